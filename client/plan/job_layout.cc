#include "client/plan/job_layout.h"

#include <unordered_map>

#include "client/plan/plan.h"

namespace toporr::client {

JobLayout LayoutFromRankHosts(const std::vector<std::string>& rank_hosts) {
  JobLayout layout;
  std::unordered_map<std::string, int32_t> index;
  layout.rank_host.reserve(rank_hosts.size());
  for (const std::string& h : rank_hosts) {
    auto [it, inserted] = index.emplace(h, static_cast<int32_t>(layout.hosts.size()));
    if (inserted) layout.hosts.push_back(h);
    layout.rank_host.push_back(it->second);
  }
  return layout;
}

mapping::Placement JobPlacement(const JobLayout& layout,
                                const std::vector<mapping::RankLocation>& bound) {
  mapping::Placement p;
  p.num_hosts = static_cast<int32_t>(layout.hosts.size());
  p.ranks.reserve(layout.rank_host.size());
  std::vector<int> used(layout.hosts.size(), 0);
  for (int r = 0; r < layout.size(); ++r) {
    const int32_t host = layout.rank_host[r];
    const int local = used[host]++;
    if (r < static_cast<int>(bound.size()) && bound[r].core >= 0) {
      mapping::RankLocation loc = bound[r];
      loc.host = host;
      p.ranks.push_back(loc);
    } else {
      p.ranks.push_back(SlotLocation(host, local));
    }
  }
  return p;
}

}  // namespace toporr::client
