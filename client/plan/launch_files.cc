#include "client/plan/launch_files.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/text_scan.h"

namespace toporr::client {
namespace {

// Calls fn(line_no, trimmed line without comment) for each non-empty line.
template <typename Fn>
absl::Status ForEachLine(std::string_view text, Fn fn) {
  LineScanner lines(text);
  for (std::string_view line; lines.Next(&line);) {
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = Trim(line);
    if (!line.empty()) RETURN_IF_ERROR(fn(lines.number(), line));
  }
  return absl::OkStatus();
}

bool ParseInt(std::string_view s, int64_t* out) {
  return absl::SimpleAtoi(absl::string_view(s.data(), s.size()), out);
}

bool ParsePositive(std::string_view s, int* out) {
  int64_t v = 0;
  if (!ParseInt(s, &v) || v <= 0 || v > (1 << 30)) return false;
  *out = static_cast<int>(v);
  return true;
}

std::string ShortName(std::string_view host) { return std::string(host.substr(0, host.find('.'))); }

}  // namespace

int JobHosts::total_slots() const {
  int n = 0;
  for (int s : slots) n += s;
  return n;
}

absl::StatusOr<JobHosts> ParseHostfile(std::string_view text, std::string_view file_name) {
  JobHosts hosts;
  std::unordered_map<std::string, int> index;
  RETURN_IF_ERROR(ForEachLine(text, [&](int line_no, std::string_view line) -> absl::Status {
    auto where = [&] { return absl::StrCat(std::string(file_name), ":", line_no, ": "); };
    size_t sp = line.find_first_of(" \t");
    std::string_view name = line.substr(0, sp);
    std::string_view rest = sp == std::string_view::npos ? "" : Trim(line.substr(sp));
    int slots = 1;
    bool explicit_slots = false;
    if (size_t colon = name.find(':'); colon != std::string_view::npos) {
      if (!ParsePositive(name.substr(colon + 1), &slots)) {
        return absl::InvalidArgumentError(
            absl::StrCat(where(), "bad slot count in `", std::string(name), "`"));
      }
      name = name.substr(0, colon);
      explicit_slots = true;
    }
    while (!rest.empty()) {
      size_t end = rest.find_first_of(" \t");
      std::string_view word = rest.substr(0, end);
      rest = end == std::string_view::npos ? "" : Trim(rest.substr(end));
      if (word.rfind("slots=", 0) == 0) {
        if (!ParsePositive(word.substr(6), &slots)) {
          return absl::InvalidArgumentError(
              absl::StrCat(where(), "bad `", std::string(word), "` (need slots=N, N > 0)"));
        }
        explicit_slots = true;
      } else if (word.rfind("max_slots=", 0) == 0 || word.rfind("max-slots=", 0) == 0) {
        continue;  // an upper bound for oversubscription; the plan uses `slots`
      } else {
        return absl::InvalidArgumentError(absl::StrCat(where(), "unexpected `", std::string(word),
                                                       "` (expected slots=N or max_slots=N)"));
      }
    }
    if (name.empty()) return absl::InvalidArgumentError(where() + "missing host name");
    std::string host = ShortName(name);
    auto [it, inserted] = index.emplace(host, static_cast<int>(hosts.names.size()));
    if (inserted) {
      hosts.names.push_back(host);
      hosts.slots.push_back(slots);
    } else if (explicit_slots) {
      hosts.slots[it->second] += slots;
    } else {
      hosts.slots[it->second] += 1;
    }
    return absl::OkStatus();
  }));
  if (hosts.names.empty()) {
    return absl::InvalidArgumentError(std::string(file_name) + ": no hosts");
  }
  return hosts;
}

absl::StatusOr<mapping::Placement> InitialPlacement(const JobHosts& hosts, MapBy map_by,
                                                    int num_ranks, const NodeShape& shape) {
  const int total = hosts.total_slots();
  if (num_ranks <= 0) num_ranks = total;
  if (num_ranks > total) {
    return absl::InvalidArgumentError(
        absl::StrCat(num_ranks, " ranks requested but the hostfile has ", total, " slots"));
  }
  mapping::Placement p;
  p.num_hosts = static_cast<int32_t>(hosts.names.size());
  std::vector<int> used(hosts.names.size(), 0);
  if (map_by == MapBy::kCore) {
    for (size_t h = 0; h < hosts.names.size() && p.size() < num_ranks; ++h)
      for (int s = 0; s < hosts.slots[h] && p.size() < num_ranks; ++s)
        p.ranks.push_back(SlotLocation(static_cast<int>(h), used[h]++, shape));
  } else {
    while (p.size() < num_ranks) {
      for (size_t h = 0; h < hosts.names.size() && p.size() < num_ranks; ++h)
        if (used[h] < hosts.slots[h])
          p.ranks.push_back(SlotLocation(static_cast<int>(h), used[h]++, shape));
    }
  }
  return p;
}

absl::StatusOr<std::vector<std::string>> ParseRankHosts(std::string_view text,
                                                        std::string_view file_name) {
  std::vector<std::string> ranks;
  RETURN_IF_ERROR(ForEachLine(text, [&](int, std::string_view line) -> absl::Status {
    ranks.push_back(ShortName(line));
    return absl::OkStatus();
  }));
  if (ranks.empty()) return absl::InvalidArgumentError(std::string(file_name) + ": no ranks");
  return ranks;
}

absl::StatusOr<mapping::Placement> ExplicitPlacement(const JobHosts& hosts, std::string_view text,
                                                     std::string_view file_name,
                                                     const NodeShape& shape) {
  std::unordered_map<std::string, int> index;
  for (size_t h = 0; h < hosts.names.size(); ++h) index[hosts.names[h]] = static_cast<int>(h);
  mapping::Placement p;
  p.num_hosts = static_cast<int32_t>(hosts.names.size());
  std::vector<int> used(hosts.names.size(), 0);
  RETURN_IF_ERROR(ForEachLine(text, [&](int line_no, std::string_view line) -> absl::Status {
    auto it = index.find(ShortName(line));
    if (it == index.end()) {
      return absl::InvalidArgumentError(absl::StrCat(std::string(file_name), ":", line_no,
                                                     ": host `", std::string(line),
                                                     "` is not in the hostfile"));
    }
    p.ranks.push_back(SlotLocation(it->second, used[it->second]++, shape));
    return absl::OkStatus();
  }));
  if (p.ranks.empty()) return absl::InvalidArgumentError(std::string(file_name) + ": no ranks");
  return p;
}

std::string Rankfile(const PlanResult& plan, const mapping::Placement& placement,
                     const JobHosts& hosts) {
  return Rankfile(plan.mapping, plan.algorithm, placement, hosts);
}

std::string Rankfile(const std::vector<int32_t>& order, std::string_view what,
                     const mapping::Placement& placement, const JobHosts& hosts) {
  std::string out = absl::StrCat("# toporr plan: ", std::string(what), ", new rank -> slot\n");
  for (size_t r = 0; r < order.size(); ++r) {
    const mapping::RankLocation& loc = placement.ranks[order[r]];
    absl::StrAppend(&out, "rank ", r, "=", hosts.names[loc.host], " slot=", loc.core, "\n");
  }
  return out;
}

std::string ReorderedHostfile(const PlanResult& plan, const mapping::Placement& placement,
                              const JobHosts& hosts) {
  return ReorderedHostfile(plan.mapping, placement, hosts);
}

std::string ReorderedHostfile(const std::vector<int32_t>& order,
                              const mapping::Placement& placement, const JobHosts& hosts) {
  std::string out;
  for (int32_t slot : order) {
    absl::StrAppend(&out, hosts.names[placement.ranks[slot].host], "\n");
  }
  return out;
}

std::string SlurmHostfile(const std::vector<int32_t>& order, std::string_view what,
                          const mapping::Placement& placement, const JobHosts& hosts) {
  return absl::StrCat("# toporr plan: ", std::string(what), ", host of each new rank (srun -n ",
                      order.size(), " --distribution=arbitrary, SLURM_HOSTFILE)\n",
                      ReorderedHostfile(order, placement, hosts));
}

absl::StatusOr<int> TorchrunProcsPerNode(const mapping::Placement& placement,
                                         const JobHosts& hosts) {
  std::vector<int> ranks(hosts.names.size(), 0);
  for (const mapping::RankLocation& loc : placement.ranks) ++ranks[loc.host];
  // The hosts of each count, the counts in the order of their first host.
  std::vector<std::pair<int, std::vector<size_t>>> by_count;
  for (size_t h = 0; h < ranks.size(); ++h) {
    if (ranks[h] == 0) continue;
    auto it = std::find_if(by_count.begin(), by_count.end(),
                           [&](const auto& group) { return group.first == ranks[h]; });
    if (it == by_count.end()) {
      by_count.push_back({ranks[h], {h}});
    } else {
      it->second.push_back(h);
    }
  }
  if (by_count.empty()) return absl::InvalidArgumentError("torchrun: the job has no ranks");
  if (by_count.size() == 1) return by_count[0].first;
  constexpr size_t kHostsNamed = 3;
  std::string counts;
  for (const auto& [count, group] : by_count) {
    absl::StrAppend(&counts, counts.empty() ? "" : "; ", count, count == 1 ? " rank" : " ranks",
                    " on ");
    for (size_t i = 0; i < group.size() && i < kHostsNamed; ++i) {
      absl::StrAppend(&counts, i == 0 ? "" : ", ", hosts.names[group[i]]);
    }
    if (group.size() > kHostsNamed) {
      absl::StrAppend(&counts, " and ", group.size() - kHostsNamed, " more");
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "torchrun starts the same number of ranks on every host (--nproc_per_node), but the "
      "job's hosts have different numbers: ",
      counts));
}

absl::StatusOr<TorchrunLaunch> TorchrunNodeRanks(const std::vector<int32_t>& order,
                                                 std::string_view what,
                                                 const mapping::Placement& placement,
                                                 const JobHosts& hosts) {
  TorchrunLaunch launch;
  ASSIGN_OR_RETURN(launch.nproc_per_node, TorchrunProcsPerNode(placement, hosts));
  std::vector<int> node_of_host(hosts.names.size(), -1);
  std::vector<int> host_of_node;
  for (size_t r = 0; r < order.size(); ++r) {
    const int host = placement.ranks[order[r]].host;
    if (node_of_host[host] < 0) {
      node_of_host[host] = static_cast<int>(host_of_node.size());
      host_of_node.push_back(host);
    }
    // torchrun runs new rank r on the host of node rank r / nproc_per_node.
    const size_t node = r / launch.nproc_per_node;
    if (node >= host_of_node.size() || host_of_node[node] != host) launch.exact = false;
  }
  launch.text = absl::StrCat("# toporr plan: ", std::string(what),
                             ", node rank of each host (torchrun --nnodes ", host_of_node.size(),
                             " --nproc_per_node ", launch.nproc_per_node, " --node_rank N)\n");
  for (size_t node = 0; node < host_of_node.size(); ++node) {
    launch.node_hosts.push_back(hosts.names[host_of_node[node]]);
    absl::StrAppend(&launch.text, launch.node_hosts.back(), " ", node, "\n");
  }
  return launch;
}

std::string MpichMachinefile(const std::vector<int32_t>& order, std::string_view what,
                             const mapping::Placement& placement, const JobHosts& hosts) {
  std::string out =
      absl::StrCat("# toporr plan: ", std::string(what),
                   ", hosts of the new ranks in order (mpiexec -f FILE -n ", order.size(), ")\n");
  for (size_t i = 0; i < order.size();) {
    const int host = placement.ranks[order[i]].host;
    size_t run = 1;
    while (i + run < order.size() && placement.ranks[order[i + run]].host == host) ++run;
    absl::StrAppend(&out, hosts.names[host], ":", run, "\n");
    i += run;
  }
  return out;
}

}  // namespace toporr::client
