#include "client/costs/row_routes.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace toporr::client {
namespace {

void PutWords(const std::vector<uint32_t>& v, std::vector<uint32_t>* out) {
  out->push_back(static_cast<uint32_t>(v.size()));
  out->insert(out->end(), v.begin(), v.end());
}

// Reads one length-prefixed array at *at; false when it runs past the end.
bool TakeWords(const std::vector<uint32_t>& words, size_t* at, std::vector<uint32_t>* v) {
  if (*at >= words.size() || words[*at] > words.size() - *at - 1) return false;
  const size_t size = words[(*at)++];
  v->assign(words.begin() + *at, words.begin() + *at + size);
  *at += size;
  return true;
}

}  // namespace

void PackRouteRow(int host, const mapping::RouteRow& row, std::vector<uint32_t>* out) {
  out->push_back(static_cast<uint32_t>(host));
  PutWords(row.offsets, out);
  PutWords(row.links, out);
  PutWords(row.link_ids, out);
  for (float g : row.link_gbps) {
    uint32_t bits;
    std::memcpy(&bits, &g, sizeof(bits));
    out->push_back(bits);
  }
}

absl::StatusOr<std::unique_ptr<mapping::TableRoutes>> UnpackRoutes(
    const std::vector<uint32_t>& words, int n, std::string* why) {
  std::vector<mapping::RouteRow> rows(n);
  std::vector<char> seen(n, 0);
  size_t at = 0;
  while (at < words.size()) {
    const uint32_t host = words[at++];
    if (host >= static_cast<uint32_t>(n) || seen[host]) {
      return absl::DataLossError(
          absl::StrCat("route packet of host ", host, " of ", n, seen[host] ? " (twice)" : ""));
    }
    seen[host] = 1;
    mapping::RouteRow& row = rows[host];
    if (!TakeWords(words, &at, &row.offsets) || !TakeWords(words, &at, &row.links) ||
        !TakeWords(words, &at, &row.link_ids) || row.link_ids.size() > words.size() - at) {
      return absl::DataLossError(absl::StrCat("route packet of host ", host, " is truncated"));
    }
    row.link_gbps.resize(row.link_ids.size());
    std::memcpy(row.link_gbps.data(), words.data() + at, row.link_ids.size() * sizeof(float));
    at += row.link_ids.size();
  }
  for (int h = 0; h < n; ++h) {
    if (!seen[h] || rows[h].offsets.empty()) {
      *why = absl::StrCat("no routes for job host ", h,
                          !seen[h] ? " (no packet)" : " from the source");
      return std::unique_ptr<mapping::TableRoutes>();
    }
  }
  return mapping::TableRoutes::Create(rows);
}

}  // namespace toporr::client
