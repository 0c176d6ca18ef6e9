// Multi-level (leader based) bcast, reduce, allreduce and gather over the fabric's levels
// (levels.h): which ranks meet at each stage, which algorithm each group runs, and the
// predicted time of the whole — the schedule libtoporr runs (client/mpi/multilevel.h) and
// compares with the flat algorithms.
//
// Stages. Level k's stage runs inside every level-k group among its MEMBERS: at level 0 the
// ranks of one host; above, the leaders of the level-(k-1) groups inside it. A group's
// LEADER is the root when the group holds it, else its lowest rank, so the root leads every
// group on its way up (with root 0 the leaders are the lowest ranks). Members are listed
// leader first, then by rank; groups of one member have no stage, and a level none of whose
// groups has two members has no stage either.
//   bcast      top level first: each leader broadcasts to its members (root = member 0)
//   reduce     level 0 first: each group reduces into its leader (binomial)
//   allreduce  reduce stages below the top, an allreduce among the top's members, then bcast
//              stages back down
//   gather     level 0 first: each member sends the blocks of the group it leads (its own
//              one at level 0) to the leader, which appends them to its own in member order
//              (linear: the leader receives from each member in turn)
// Each bcast/allreduce group runs the candidate algorithm PredictCollective finds fastest
// for that group alone (its members' slots, the whole message; ties to the earlier
// candidate); reduce stages run binomial, gather stages linear.
//
// Prediction: stages run one after the other; the groups of one stage run concurrently, so
// their schedules are merged step by step (step t of the stage = step t of every group, runs
// of folded steps kept folded) and predicted with PredictSteps: transfers of different groups
// that share a link contend when the inputs have routes. A linear gather is one receive after
// the other at the leader (its link serialises them). Local copies are not counted. Ranks are
// the slots of the placement (no reordering: the multi-level version runs on the caller's
// ranks).
//
// Pure; thread-safe.
#ifndef TOPORR_MAPPING_LEVELS_MULTILEVEL_H_
#define TOPORR_MAPPING_LEVELS_MULTILEVEL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/costs/placement.h"
#include "mapping/levels/levels.h"
#include "mapping/prediction/predict.h"
#include "mapping/schedules/pattern.h"

namespace toporr::mapping {

// True for the collectives the multi-level version exists for.
bool MultilevelSupports(Collective c);

struct MultilevelRequest {
  Collective collective = Collective::kAllreduce;  // bcast, reduce, allreduce or gather
  int root = 0;                                    // rooted collectives
  int64_t bytes = 1;                               // whole buffer; gather: per rank (>= 1)
  int radix = 4;                                   // k-nomial candidates
  // Candidates of bcast stages and of the allreduce's top stage (empty: binomial, and
  // recursive doubling): toporr's own algorithms, so a bcast group with more members than
  // `bytes` leaves out the scatter-allgathers (DropOwnScatterAllgatherBelowBlock).
  std::vector<Algorithm> bcast_algorithms;
  std::vector<Algorithm> allreduce_algorithms;
};

// The group of every rank at every level: group[k][r] = levels.levels[k].group[host of r].
struct RankLevels {
  int num_ranks = 0;
  std::vector<std::vector<int32_t>> group;  // [level][rank]
  int num_levels() const { return static_cast<int>(group.size()); }
};
RankLevels RankLevelsOf(const HostLevels& levels, const Placement& placement);

// The members of every level-`level` group with at least two, leader first (see above), in
// the order of the groups' ids.
std::vector<std::vector<int32_t>> StageMembers(const RankLevels& ranks, int level, int root);

struct StageGroup {
  std::vector<int32_t> members;  // leader first
  Algorithm algorithm = Algorithm::kBinomial;
};

struct Stage {
  int level = 0;
  Collective collective = Collective::kBcast;  // what the groups run
  std::vector<StageGroup> groups;              // StageMembers(ranks, level, root) order
  double predicted_ns = 0;
};

struct MultilevelPlan {
  Collective collective = Collective::kAllreduce;
  int root = 0;
  RankLevels ranks;
  std::vector<Stage> stages;  // in execution order
  double predicted_ns = 0;    // sum of the stages
};

// kInvalidArgument for an unsupported collective, a root outside the placement, bytes < 1,
// levels that do not cover the placement's hosts; PredictCollective's errors otherwise.
absl::StatusOr<MultilevelPlan> PlanMultilevel(const MultilevelRequest& request,
                                              const HostLevels& levels,
                                              const PredictInputs& inputs);

// A plan as int32 values (for one MPI_Bcast) and back: collective, root, the rank levels
// and every stage's level, collective and group algorithms (members are recomputed, the
// predictions are not carried). Decode refuses anything Encode cannot have produced with
// kInvalidArgument.
std::vector<int32_t> EncodeMultilevel(const MultilevelPlan& plan);
absl::StatusOr<MultilevelPlan> DecodeMultilevel(const std::vector<int32_t>& wire);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_LEVELS_MULTILEVEL_H_
