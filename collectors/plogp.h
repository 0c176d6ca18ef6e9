// probe.json: what `toporr-probe` (probe/) measured, and the fabric toporr makes of it.
//
// The file (format "toporr-plogp", version 1; docs in probe/README.md) holds
//   sizes         message sizes in bytes, ascending, sizes[0] the smallest (often 0)
//   repetitions   ping-pongs per pair and size (their median is kept)
//   ranks         per MPI rank: its host (gethostname() short name) and core (-1: unknown);
//                 optionally "hwloc": where hwloc put the rank's binding inside its host
//                 (package, numa, l3, core: hwloc logical indexes, -1 not known at that level)
//   hosts         the distinct host names, sorted; host_levels index this list
//   pairs         per measured rank pair a < b, per size (PLogP, Kielmann et al. 2000):
//                   rtt_ns   median round trip of a ping-pong of `size` bytes each way
//                   gap_ns   g(m): time per message of a back-to-back burst a -> b
//                   os_ns    o_s(m): time the sender spends in MPI_Send
//                   or_ns    o_r(m): time MPI_Recv takes once the message has arrived
//                 and latency_ns  L = rtt(sizes[0]) / 2 - g(sizes[0]) (at least 0),
//                 spread (median absolute deviation / median of the round trips at
//                 sizes[0]), remeasured (how often the pair was measured again: noisy).
//   rank_levels   the levels clustered over ranks (mapping/levels/measured_levels.h), closest first
//   host_levels   the levels over hosts: [0] "host" (every host alone) ... the last "top";
//                 each with the median one-way time of the host pairs that meet first at
//                 that level (latency_ns: rtt(sizes[0]) / 2; gbps: 8 * largest size / gap_ns)
//   schedule      rounds, messages, elapsed seconds of the measurement
//   hwloc_check   optional: the probe's comparison of the measured levels below "host" with
//                 hwloc's packages and L3 caches (probe/hwloc_check.h); written by the
//                 real-MPI probe only (not under SMPI, whose ranks share one real process)
// Distances are one-way times of the smallest message, rtt_ns[0] / 2: smaller is closer.
//
// The fabric (PlogpFabric): the measured hierarchy as synthetic switches, so that costs,
// paths, matrices, plans and the client library use it unchanged. Level j >= 1 of
// host_levels has one switch per group (the top one switch); each host has one CA cabled to
// its level-1 switch, each level-j switch one cable to its level-(j+1) switch. Two hosts that
// meet first at level j are then 2j - 1 switches apart (1 = "same leaf", as for a real fat
// tree), so the cost model (mapping/costs/host_costs.h) orders every pair as the measurement did.
// Cable rates: the (width, speed) pair of fabric.h whose data rate is nearest (in log) to the
// level's measured gbps; a path's bottleneck is the slowest cable on it, so bandwidths that
// fall with the level are kept. The latency constants of the model are not per link and so
// cannot be set from the measurement: absolute latencies are the model's, the ORDER is the
// measurement's (see DESIGN.md "Cost semantics"). One cable per uplink: a probe of disjoint
// pairs cannot see the bisection. GUIDs are hashes of host names and of a switch's level and
// first (smallest) member host, so two measurements of an unchanged machine give the same
// content, and a host that moved to another group shows in `toporrctl diff` as a host moved
// (unless it was the first of its group: then that switch is new).
// CA descriptions are "<host> HCA-1" (collectors/hosts.h names the host).
//
// Errors: kInvalidArgument "<file>:<line>: <what>" for a bad document (JSON syntax, a missing
// or mistyped member, a rank or host index out of range, sizes not ascending, a level that is
// not a partition, levels not nested, a "host" rank level that is not the host-name
// partition, more than kMaxPlogpRanks ranks or kMaxPlogpSizes sizes, an "hwloc" id below -1,
// an hwloc_check with an unknown verdict, a comparison naming no rank level, an ARI outside
// [-1, 1]). Files without the optional members parse as before. Pure and thread-safe.
#ifndef TOPORR_COLLECTORS_PLOGP_H_
#define TOPORR_COLLECTORS_PLOGP_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fabric/fabric.h"

namespace toporr::collectors {

inline constexpr int kMaxPlogpRanks = 65536;
inline constexpr int kMaxPlogpSizes = 32;
inline constexpr size_t kMaxPlogpDetailBytes = 1024;
inline constexpr const char* kPlogpHwlocVerdicts[] = {"match", "mismatch", "nothing_to_detect",
                                                      "unknown"};

// Where hwloc (collectors/hwloc_topology.h PuLocation) put a rank's binding inside its host:
// hwloc logical indexes, local to the host; -1 = not known at that level (the binding spans
// several such objects, or the machine has none).
struct PlogpHwloc {
  int32_t package = -1;
  int32_t numa = -1;
  int32_t l3 = -1;
  int32_t core = -1;
  bool operator==(const PlogpHwloc& o) const {
    return package == o.package && numa == o.numa && l3 == o.l3 && core == o.core;
  }
};

struct PlogpRank {
  std::string host;
  int core = -1;
  std::optional<PlogpHwloc> hwloc;  // absent in files without it (SMPI, older probes)
};

// One hwloc level ("package" or "l3") against the measured rank levels below "host".
struct PlogpHwlocComparison {
  std::string hwloc;     // "package" or "l3"
  int32_t groups = 0;    // groups of (host, hwloc id) over the ranks
  std::string measured;  // the measured rank level that agrees best ("" = none to compare)
  double ari = 0;        // adjusted Rand index of the two (over all ranks); NaN with no level
};

// The verdict of probe/hwloc_check.h. `verdict` is one word: "match", "mismatch",
// "nothing_to_detect" or "unknown"; `detail` says why in one sentence.
struct PlogpHwlocCheck {
  std::string verdict;
  std::string detail;
  std::vector<PlogpHwlocComparison> comparisons;
};

struct PlogpPair {
  int a = 0, b = 0;                                  // ranks, a < b
  std::vector<double> rtt_ns, gap_ns, os_ns, or_ns;  // per size
  double latency_ns = 0;
  double spread = 0;
  int remeasured = 0;
  double distance_ns() const { return rtt_ns.empty() ? 0 : rtt_ns[0] / 2; }
};

struct PlogpLevel {
  std::string name;
  std::vector<int32_t> group;  // per element (rank or host), 0..num_groups-1
  int32_t num_groups = 0;
  double cut_ns = 0;      // the clustering's cut (0 for level 0; +inf/null for an added top)
  double separation = 0;  // mapping/levels/measured_levels.h
  double latency_ns = 0;  // host levels >= 1: median distance of the pairs meeting here
  double gbps = 0;        // host levels >= 1: median bandwidth of those pairs
};

struct PlogpSchedule {
  int64_t rounds = 0;
  int64_t messages = 0;
  double elapsed_s = 0;
};

struct PlogpProbe {
  std::vector<int64_t> sizes;
  int repetitions = 0;
  std::vector<PlogpRank> ranks;
  std::vector<std::string> hosts;  // sorted, distinct
  std::vector<PlogpPair> pairs;
  std::vector<PlogpLevel> rank_levels;
  std::vector<PlogpLevel> host_levels;
  PlogpSchedule schedule;
  std::optional<PlogpHwlocCheck> hwloc_check;

  // Host index (into `hosts`) of a rank.
  int HostOf(int rank) const;
};

absl::StatusOr<PlogpProbe> ParsePlogpProbe(std::string_view text, std::string_view file_name);

// Writes `probe` as probe.json: one member per line, one pair per line (so that errors
// name useful lines). Numbers keep 9 significant digits; non-finite ones are written as null.
void WritePlogpProbe(const PlogpProbe& probe, std::ostream* out);

// The synthetic fabric (see the file comment). Hosts are not assigned: ParseFabricInput
// (fabric_input.h) does that as for every topology format.
absl::StatusOr<fabric::Fabric> PlogpFabric(const PlogpProbe& probe);

// The (width, speed) of fabric.h nearest in log to `gbps` (> 0).
void NearestLinkRate(double gbps, int* width_lanes, fabric::LinkSpeed* speed);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_PLOGP_H_
