// The planner: topology-aware rank order with the mapping engine, the same code for
// libtoporr (rank 0 plans a communicator's order) and `toporrctl plan` (a job's order
// before launch, for users who link nothing).
//
// Given a placement of ranks on hosts, a collective, an algorithm (or auto) and a message
// size, computes the reordering, and predicts the collective before and after (with link
// contention when routes are known). Pure: the caller supplies the host cost matrix (from a
// fabric dump, a cost file or the daemon). The files around a launch (hostfiles, rank lists,
// the rankfile that reproduces a plan's order) are launch_files.h's.
#ifndef TOPORR_CLIENT_PLAN_PLAN_H_
#define TOPORR_CLIENT_PLAN_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/costs/cost_matrix.h"
#include "mapping/costs/placement.h"
#include "mapping/prediction/library_rules.h"
#include "mapping/routes/route_source.h"
#include "mapping/schedules/pattern.h"

namespace toporr::client {

// Host-local shape used to give each rank a core / L3 / NUMA / package (the daemon has no
// node-local topology). Either the real cores of a node (`core_slots`, from hwloc:
// client/plan/node_topology.h CoreSlots, e.g. of an `lstopo --of xml` file; local rank i
// takes core_slots[i % size]), or a regular shape: one L3 and one NUMA node per package,
// 8 cores per L3 by default.
struct NodeShape {
  std::vector<mapping::RankLocation> core_slots;  // host field ignored
  int cores_per_l3 = 8;
  int l3_per_numa = 1;
  int numa_per_package = 1;
};

// Where the `local`-th rank of host `host` runs when nothing better is known: slot `local`
// of `shape` (its core_slots, else the regular shape). What `toporrctl plan` and libtoporr
// (for ranks not bound to one core) both use, so their plans agree.
mapping::RankLocation SlotLocation(int host, int local, const NodeShape& shape = {});

// Whether Plan also predicts the multi-level (leader) version of the collective over the
// fabric's levels (mapping/levels/levels.h, mapping/levels/multilevel.h): not at all, as one more
// candidate (chosen only when predicted faster than the best flat one by kMultilevelMargin below
// kMultilevelMarginBelowBytes, strictly faster above), or forced.
enum class MultilevelChoice { kOff, kCandidate, kForce };

// Below 1 MiB the multi-level prediction is optimistic where the flat ones are not: each of
// its stages is a blocking tree whose members start as soon as their leader is done, and
// below the rendezvous size a leader's blocking sends overlap (eager), which the step model
// sums as if every stage began after the last. In SMPI its simulated time exceeds its
// prediction below 1 MiB, the more the smaller the message, while the flat algorithms' errors
// are alike across candidates (bench/results/model_quality_smpi.md has the figures). So below
// kMultilevelMarginBelowBytes the version is adopted only when predicted at least this much
// faster.
inline constexpr double kMultilevelMargin = 1.3;
inline constexpr int64_t kMultilevelMarginBelowBytes = int64_t{1} << 20;

// toporr replaces the MPI library's own call only when its choice is predicted faster by a
// margin, because the model's error between two implementations is largest exactly where
// they differ. Below 1 MiB a collective's time on a real network is dominated by per-message
// costs the model knows least (the transport's stack, the library's eager and rendezvous
// protocols, the CPU that handles each message): kLibraryMargin. From 1 MiB the library's
// implementations segment, pipeline and overlap what the model predicts as whole-message
// steps, so a schedule predicted as fast as the library's runs slower than it:
// kLibraryMarginLarge. Ties go to the library either way.
inline constexpr double kLibraryMargin = 1.1;
inline constexpr double kLibraryMarginLarge = 1.05;
inline constexpr int64_t kLibraryMarginBelowBytes = int64_t{1} << 20;

struct PlanRequest {
  mapping::Collective collective = mapping::Collective::kAllreduce;
  std::optional<mapping::Algorithm> algorithm;  // nullopt = auto (best predicted)
  // With auto: the algorithms to choose among (empty: every one the collective has).
  std::vector<mapping::Algorithm> candidates;
  int64_t message_bytes =
      1 << 20;  // allreduce/bcast/reduce: whole buffer; allgather/gather: per rank
  int root = 0;
  int radix = 4;
  // Segment size of the segmented algorithms (mapping::PatternSpec::segment_bytes); 0 =
  // whole messages.
  int64_t segment_bytes = 0;
  // With auto: also predict what the MPI library would run by itself on the launch order
  // (mapping/prediction/library_rules.h), and for allreduce, bcast and reduce (whose result
  // does not depend on the ranks' order) on the leaf-sorted order of a job of at most
  // kLeafSortedMaxHosts hosts. They are the first candidates ("mpi_library", mappings
  // "identity" and "leaf-sorted"); the faster of the two (the launch order on ties) wins
  // unless beaten by kLibraryMargin (kLibraryMarginLarge from kLibraryMarginBelowBytes). When
  // it wins, PlanResult::library_call is set and the order is the identity or the leaf-sorted
  // one (reordered): toporr never plans worse than the library's call on the free order.
  std::optional<mapping::LibraryRules> library_rules;
  // Bcast, reduce, allreduce and gather only (kForce on another collective: kInvalidArgument).
  MultilevelChoice multilevel = MultilevelChoice::kOff;
  // Candidates of its bcast stages and of its allreduce's top stage (empty: binomial, and
  // recursive doubling; libtoporr passes the algorithms it runs, client/mpi/coll/).
  std::vector<mapping::Algorithm> multilevel_bcast;
  std::vector<mapping::Algorithm> multilevel_allreduce;
  // Also predict the leaf-sorted baseline (PlanResult::leaf_sorted): one more prediction and
  // O(hosts^2) cost reads to find the leaves.
  bool leaf_sorted = false;
};

// PlanCandidate::algorithm of the MPI library's own call (effective = the library's name).
inline constexpr char kLibraryCandidate[] = "mpi_library";

struct PlanCandidate {
  std::string algorithm;  // as requested
  std::string effective;  // what Open MPI would run for this size (fallbacks)
  std::string mapping;    // "identity" or the heuristic's name
  double time_ns = 0;
  int32_t max_link_load = 0;
  double hop_bytes = 0;
};

// One stage of the multi-level version (mapping/levels/multilevel.h), for reports: the level it
// runs at, what its groups run and the stage's predicted time.
struct PlanStage {
  std::string level;       // mapping::LevelName: "host", "leaf", ..., "top"
  std::string collective;  // bcast, reduce, allreduce, gather
  std::string algorithm;   // its groups' algorithms, distinct, joined by "+"
  int32_t groups = 0;      // groups of two or more members
  int32_t max_members = 0;
  double time_ns = 0;
};

// The leaf-sorted order of a launch order: what a site gets for free from its scheduler or
// launcher (Slurm's TopologyParam=SwitchAsNodeRank, a by-slot launch on a host list sorted by
// leaf switch), and so the baseline toporr has to beat. The launch order's hosts grouped by
// the leaf switch they hang off (the "leaf" level of mapping/levels/levels.h: the closest
// level above "host"; one group when the costs show none), groups in the order of their first
// host in the launch order, hosts inside a group in launch order, and each host's ranks
// contiguous, in launch order. mapping[new_rank] = old rank. kInvalidArgument for hosts
// outside the cost matrix.
absl::StatusOr<std::vector<int32_t>> LeafSortedMapping(const mapping::Placement& placement,
                                                       const mapping::HostCostMatrix& costs);

// libtoporr reports the leaf-sorted baseline for jobs of at most this many hosts (finding the
// leaves reads every pair of the job's costs).
inline constexpr int kLeafSortedMaxHosts = 4096;

// `placement` in the order of `mapping` (mapping[new_rank] = old rank): new rank i runs
// where old rank mapping[i] ran.
mapping::Placement Reordered(const mapping::Placement& placement,
                             const std::vector<int32_t>& mapping);

struct PlanResult {
  std::string algorithm;         // chosen algorithm
  std::vector<int32_t> mapping;  // mapping[new_rank] = old rank (slot)
  bool reordered = false;
  PlanCandidate before;                   // identity with the chosen algorithm
  PlanCandidate after;                    // the chosen (algorithm, mapping)
  std::vector<PlanCandidate> candidates;  // the multi-level one: "multilevel", "levels"
  // The MPI library's own call wins (algorithm = kLibraryCandidate): on the launch order, or
  // with `reordered` on the leaf-sorted one (`mapping`; `before` is then the launch order's).
  bool library_call = false;
  // The free baseline (LeafSortedMapping) and what a job launched in it would run: the MPI
  // library's own call with PlanRequest::library_rules and auto, else the chosen algorithm
  // (the forced one), predicted on it. Compare `after` with it for what toporr adds beyond the
  // leaf-sorted order.
  std::vector<int32_t> leaf_sorted_mapping;
  PlanCandidate leaf_sorted;
  // Where the MPI library's own call is predicted fastest, when that is not the launch order:
  // the leaf-sorted order (mapping[new_rank] = old rank); empty otherwise, and when the
  // library's call was not weighed. libtoporr's run-time check measures toporr's choice
  // against the library's call there.
  std::vector<int32_t> library_mapping;
  // When the multi-level version was considered: the levels' names ("host", "leaf", "top").
  std::vector<std::string> levels;
  std::vector<PlanStage> stages;  // and its stages, in execution order
  // When it was chosen (algorithm "multilevel", identity mapping): its plan,
  // mapping::EncodeMultilevel.
  std::vector<int32_t> multilevel;
};

// Plans with the mapping engine. `routes` may be null: then only the hosts' own links are
// modelled as shared (mapping/prediction/host_link_routes.h), the fabric beyond them as
// contention-free.
absl::StatusOr<PlanResult> Plan(const PlanRequest& request, const mapping::Placement& placement,
                                const mapping::HostCostMatrix& costs,
                                const mapping::RouteSource* routes,
                                const mapping::IntraHostModel& intra = {});

// "1M", "64K", "4096", "2G" (binary units) -> bytes.
absl::StatusOr<int64_t> ParseBytes(std::string_view text);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_PLAN_PLAN_H_
