// The levels of a job's fabric, derived from its host cost matrix: the nesting that leader
// based (multi-level) collectives follow — ranks of one host, hosts of one leaf switch, leaves
// of one pod (spine group), ..., the whole job — with as many levels as the costs show.
//
// Rule. The distance of two hosts a != b is the pair (alpha, beta) of the slower direction
// (max of a->b and b->a for each). Two distances are one CLASS when their alphas and their
// betas each agree within a relative tolerance; classes are ordered by the time of a
// reference message (alpha + reference_bytes * beta). Walking the classes from the closest,
// the hosts joined by pairs of the classes seen so far form groups (connected components:
// single-linkage clustering). Each class that merges groups closes a LEVEL whose partition
// is those groups; a class that merges nothing adds no level. Level 0 is "host" (every host
// alone); the last level ("top") always has one group, the whole job. On a tree fabric the
// distances are an ultrametric — within a group every pair is at most the level's class —
// and the groups are exactly the leaf switches, the pods, ...: `exact` is true. When a class
// is not transitive (a torus, a ring: a~b and b~c but a and c farther), the components chain
// through it and one group holds pairs farther apart than its class: `exact` is false and the
// levels are what single linkage gives (for a torus usually just host and top). Unreachable
// pairs (infinite costs) join no group below the top.
//
// Names: level 0 "host", the last "top", the ones between "leaf", "pod", then "level3",
// "level4"... from the closest. One host gives one level, "host", which is also the whole
// job. More than kMaxClasses distinct classes (a fabric with no hierarchy to speak of) give
// host and top only.
//
// Cost: O(n^2 x levels) cost-matrix reads for n hosts. Pure and thread-safe.
#ifndef TOPORR_MAPPING_LEVELS_LEVELS_H_
#define TOPORR_MAPPING_LEVELS_LEVELS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/costs/cost_matrix.h"

namespace toporr::mapping {

struct LevelOptions {
  int64_t reference_bytes = 65536;  // orders the classes (> 0)
  double tolerance = 1e-3;          // relative; [0, 0.5)
};

struct HostLevel {
  std::string name;
  std::vector<int32_t> group;  // per host: 0..num_groups-1, numbered by their lowest host
  int32_t num_groups = 0;
  // The class that closed the level (the farthest pair it admits); 0 for "host", +infinity
  // for a "top" the rule adds (unreachable pairs, too many classes).
  double alpha_ns = 0;
  double beta_ns = 0;
  bool exact = true;  // every pair of hosts in one group is within the class (see above)
};

struct HostLevels {
  std::vector<HostLevel> levels;  // closest first; levels[0] is "host", back() one group
  int num_levels() const { return static_cast<int>(levels.size()); }
  std::vector<std::string> names() const;
};

inline constexpr int kMaxClasses = 64;

// kInvalidArgument for an empty matrix or bad options.
absl::StatusOr<HostLevels> DetectLevels(const HostCostMatrix& costs,
                                        const LevelOptions& options = {});

// The name of level `k` of `num_levels` (see the file comment).
std::string LevelName(int k, int num_levels);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_LEVELS_LEVELS_H_
