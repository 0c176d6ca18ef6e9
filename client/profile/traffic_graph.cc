#include "client/profile/traffic_graph.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "mapping/schedules/pattern.h"

namespace toporr::client {
namespace {

constexpr int64_t kMaxBytes = kMaxProfileBytes;

int64_t SaturatingProduct(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > static_cast<uint64_t>(kMaxBytes) / b) return kMaxBytes;
  return static_cast<int64_t>(a * b);
}

// A profile's unsigned count as bytes, saturated at kMaxBytes.
int64_t Clamped(uint64_t count) {
  return static_cast<int64_t>(std::min<uint64_t>(count, kMaxBytes));
}

// Edge bytes by (from, to), added up with saturation.
class EdgeSums {
 public:
  void Add(int from, int to, int64_t bytes) {
    if (from == to || bytes <= 0) return;
    int64_t& sum = sums_[{from, to}];
    sum = std::min(kMaxBytes, sum + bytes);
  }

  mapping::CommGraph Graph(int ranks) const {
    mapping::CommGraph graph;
    graph.num_ranks = ranks;
    graph.edges.reserve(sums_.size());
    for (const auto& [pair, bytes] : sums_) graph.edges.push_back({pair.first, pair.second, bytes});
    std::sort(graph.edges.begin(), graph.edges.end(),
              [](const mapping::CommEdge& a, const mapping::CommEdge& b) {
                return std::pair(a.from, a.to) < std::pair(b.from, b.to);
              });
    return graph;
  }

 private:
  absl::flat_hash_map<std::pair<int, int>, int64_t> sums_;
};

// Appends the edges of `spec`'s schedule (communicator ranks, bytes of one call), each turned
// around when `reversed` (the data flows the other way).
absl::Status AddSchedule(const mapping::PatternSpec& spec, bool reversed,
                         std::vector<mapping::WeightedEdge>* out) {
  ASSIGN_OR_RETURN(std::vector<mapping::WeightedEdge> edges, mapping::CommunicationGraph(spec));
  for (mapping::WeightedEdge e : edges) {
    if (reversed) std::swap(e.src, e.dst);
    out->push_back(e);
  }
  return absl::OkStatus();
}

// The edges of one call of `c` with `bytes` per call on `size` ranks, between communicator
// ranks, as the library's algorithm moves them (traffic_graph.h).
absl::StatusOr<std::vector<mapping::WeightedEdge>> PatternOf(ProfiledCollective c, int size,
                                                             int64_t bytes,
                                                             mapping::LibraryRules rules) {
  std::vector<mapping::WeightedEdge> pattern;
  if (size < 2 || bytes <= 0) return pattern;
  auto library = [&](mapping::Collective collective) -> absl::Status {
    ASSIGN_OR_RETURN(mapping::LibraryChoice choice,
                     mapping::LibraryDefault(rules, collective, size, bytes, 1, 0));
    for (const mapping::PatternSpec& phase : choice.phases) {
      RETURN_IF_ERROR(AddSchedule(phase, false, &pattern));
    }
    return absl::OkStatus();
  };
  auto binomial = [&](mapping::Collective collective, bool reversed) {
    mapping::PatternSpec spec;
    spec.collective = collective;
    spec.algorithm = mapping::Algorithm::kBinomial;
    spec.num_ranks = size;
    spec.count = bytes;
    return AddSchedule(spec, reversed, &pattern);
  };
  auto ring_next = [&](int64_t per_rank) {
    for (int r = 0; r < size; ++r) pattern.push_back({r, (r + 1) % size, per_rank});
  };
  switch (c) {
    case ProfiledCollective::kBarrier:
      break;
    case ProfiledCollective::kAllreduce:
      RETURN_IF_ERROR(library(mapping::Collective::kAllreduce));
      break;
    case ProfiledCollective::kBcast:
      RETURN_IF_ERROR(library(mapping::Collective::kBcast));
      break;
    case ProfiledCollective::kAllgather:
    case ProfiledCollective::kAllgatherv:
      RETURN_IF_ERROR(library(mapping::Collective::kAllgather));
      break;
    case ProfiledCollective::kReduce:
      RETURN_IF_ERROR(binomial(mapping::Collective::kReduce, false));
      break;
    case ProfiledCollective::kGather:
    case ProfiledCollective::kGatherv:
      RETURN_IF_ERROR(binomial(mapping::Collective::kGather, false));
      break;
    case ProfiledCollective::kScatter:
    case ProfiledCollective::kScatterv:
      RETURN_IF_ERROR(binomial(mapping::Collective::kGather, true));
      break;
    case ProfiledCollective::kAlltoall:
    case ProfiledCollective::kAlltoallv:
    case ProfiledCollective::kAlltoallw:
      for (int from = 0; from < size; ++from) {
        for (int to = 0; to < size; ++to) {
          if (from != to) pattern.push_back({from, to, bytes});
        }
      }
      break;
    case ProfiledCollective::kReduceScatter:
    case ProfiledCollective::kReduceScatterBlock:
      ring_next(SaturatingProduct(static_cast<uint64_t>(bytes), static_cast<uint64_t>(size - 1)));
      break;
    case ProfiledCollective::kScan:
    case ProfiledCollective::kExscan:
      for (int r = 0; r + 1 < size; ++r) pattern.push_back({r, r + 1, bytes});
      break;
  }
  return pattern;
}

}  // namespace

absl::StatusOr<TrafficGraph> TrafficGraphOf(const TrafficProfile& profile,
                                            mapping::LibraryRules rules) {
  TrafficGraph out;
  out.mpi_share = MpiShareOf(profile);
  EdgeSums sums;
  auto count = [](int64_t* total, int64_t bytes) { *total = std::min(kMaxBytes, *total + bytes); };
  for (const TrafficProfile::Pair& p : profile.p2p) {
    const int64_t bytes = Clamped(p.traffic.bytes);
    sums.Add(p.src, p.dst, bytes);
    count(&out.p2p_bytes, bytes);
  }
  for (const TrafficProfile::RmaPair& p : profile.rma) {
    const int64_t to_target = Clamped(p.traffic.bytes_to_target);
    const int64_t from_target = Clamped(p.traffic.bytes_from_target);
    sums.Add(p.origin, p.target, to_target);
    sums.Add(p.target, p.origin, from_target);
    count(&out.rma_bytes, std::min(kMaxBytes, to_target + from_target));
  }
  for (const CommunicatorTraffic& comm : profile.communicators) {
    for (int i = 0; i < kNumProfiledCollectives; ++i) {
      const CollectiveTraffic& t = comm.collectives[i];
      if (t.calls == 0) continue;
      if (!comm.remote.empty()) {
        count(&out.unmodelled_calls, Clamped(t.calls));
        continue;
      }
      const auto collective = static_cast<ProfiledCollective>(i);
      const int64_t per_call = Clamped(t.bytes / t.calls);
      absl::StatusOr<std::vector<mapping::WeightedEdge>> pattern =
          PatternOf(collective, static_cast<int>(comm.members.size()), per_call, rules);
      if (!pattern.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            std::string(ProfiledCollectiveName(collective)), " of ", per_call, " bytes on ",
            comm.members.size(), " ranks: ", pattern.status().message()));
      }
      for (const mapping::WeightedEdge& e : *pattern) {
        const int64_t bytes = SaturatingProduct(static_cast<uint64_t>(e.bytes), t.calls);
        sums.Add(comm.members[e.src], comm.members[e.dst], bytes);
        count(&out.collective_bytes, bytes);
      }
    }
  }
  out.graph = sums.Graph(profile.ranks);
  // Every count that saturated saturated a total (sums keep kMaxBytes) or an edge.
  out.saturated = out.p2p_bytes == kMaxBytes || out.rma_bytes == kMaxBytes ||
                  out.collective_bytes == kMaxBytes ||
                  std::any_of(out.graph.edges.begin(), out.graph.edges.end(),
                              [](const mapping::CommEdge& e) { return e.bytes == kMaxBytes; });
  return out;
}

}  // namespace toporr::client
