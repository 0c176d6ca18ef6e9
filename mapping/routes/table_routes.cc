#include "mapping/routes/table_routes.h"

#include <unordered_map>

#include "absl/strings/str_cat.h"

namespace toporr::mapping {

absl::StatusOr<std::unique_ptr<TableRoutes>> TableRoutes::Create(
    const std::vector<RouteRow>& rows) {
  const size_t n = rows.size();
  std::unique_ptr<TableRoutes> t(new TableRoutes());
  t->n_ = static_cast<int>(n);
  t->offsets_.reserve(n * n + 1);
  t->offsets_.push_back(0);
  std::unordered_map<uint32_t, int32_t> dense;  // source id -> dense id
  for (size_t a = 0; a < n; ++a) {
    const RouteRow& row = rows[a];
    auto bad = [a](const std::string& what) {
      return absl::InvalidArgumentError(absl::StrCat("routes of job host ", a, ": ", what));
    };
    if (row.offsets.size() != n + 1 || row.offsets[0] != 0 || row.offsets[n] != row.links.size()) {
      return bad(absl::StrCat(row.offsets.size(), " offsets for ", n, " hosts and ",
                              row.links.size(), " links"));
    }
    if (row.link_ids.size() != row.link_gbps.size()) {
      return bad(
          absl::StrCat(row.link_ids.size(), " link ids but ", row.link_gbps.size(), " rates"));
    }
    std::unordered_map<uint32_t, float> rate;
    for (size_t k = 0; k < row.link_ids.size(); ++k) {
      if (!(row.link_gbps[k] > 0)) {
        return bad(absl::StrCat("link ", row.link_ids[k], " has rate ", row.link_gbps[k]));
      }
      auto [it, inserted] = rate.emplace(row.link_ids[k], row.link_gbps[k]);
      if (!inserted && it->second != row.link_gbps[k]) {
        return bad(absl::StrCat("link ", row.link_ids[k], " has two rates"));
      }
    }
    for (size_t b = 0; b < n; ++b) {
      const uint32_t begin = row.offsets[b], end = row.offsets[b + 1];
      if (end < begin) return bad(absl::StrCat("offsets decrease at host ", b));
      if ((a == b) != (begin == end)) {
        return bad(a == b ? "a route to itself" : absl::StrCat("no route to job host ", b));
      }
      for (uint32_t k = begin; k < end; ++k) {
        const uint32_t id = row.links[k];
        auto r = rate.find(id);
        if (r == rate.end()) return bad(absl::StrCat("link ", id, " has no rate"));
        auto [it, inserted] = dense.emplace(id, static_cast<int32_t>(t->gbps_.size()));
        if (inserted) {
          t->gbps_.push_back(r->second);
        } else if (t->gbps_[it->second] != static_cast<double>(r->second)) {
          return bad(absl::StrCat("link ", id, " has another rate in an earlier row"));
        }
        t->links_.push_back(it->second);
      }
      t->offsets_.push_back(t->links_.size());
    }
  }
  return t;
}

void TableRoutes::Route(int host_a, int host_b, std::vector<int32_t>* directed_links) const {
  const size_t cell = static_cast<size_t>(host_a) * n_ + host_b;
  directed_links->assign(links_.begin() + offsets_[cell], links_.begin() + offsets_[cell + 1]);
}

}  // namespace toporr::mapping
