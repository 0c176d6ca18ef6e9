// Levels from MEASURED distances: the nesting (core -> socket -> host -> leaf -> pod -> job)
// hidden in a noisy, continuous matrix of pairwise times, such as the PLogP latencies
// `toporr-probe` measures. levels.h does the same for MODELLED costs, where every distance of
// one level is the same number and a relative tolerance of 1e-3 separates the classes; a
// measurement has no such classes, only clouds of values around each level's true time.
//
// Rule (single linkage with an automatic choice of the cuts):
//   1. Elements are ranks (or hosts); d(a, b) > 0 is the time between them, smaller is
//      closer. The matrix need not be symmetric: d(a, b) and d(b, a) are folded into their
//      MINIMUM (a measurement is slowed by interference, never sped up, so the smaller of two
//      independent estimates is the better one). Non-finite or missing entries (<= 0) are
//      "not measured" and join nothing below the top.
//   2. Single linkage = Kruskal's minimum spanning tree: the n-1 merge heights h_1 <= ... in
//      log(d) (relative noise becomes additive, levels a factor apart become equally far).
//   3. Parameter search (persistence over the scale): a boundary between two levels is a gap
//      between consecutive merge heights. At a scale eps every gap > eps is a boundary, so
//      the hierarchy with j boundaries (the j largest gaps) exists for eps in
//      [gap_(j+1), gap_j) (gap_0 = the whole range of heights, and gaps at or below the floor
//      `resolution` never count). The chosen hierarchy is the one that PERSISTS over the
//      longest stretch of log(eps); ties go to fewer levels. The floor (default 0.5 %
//      relative) is the timer's and the simulator's resolution: heights closer than that
//      cannot be told apart by any measurement. Nothing is set per cluster; the only knob is
//      that resolution, the same for every machine (measured_levels_test sweeps seeds and
//      noise 1-4 % with 10 % interference outliers at one setting).
//   4. Each boundary between two consecutive classes is a cut at the geometric middle of the
//      gap (the largest height of the lower class and the smallest of the upper one); the
//      connected components of the pairs below the cut are a LEVEL. Cuts that merge nothing
//      are dropped.
//   5. Per level, `separation` = (smallest distance between two groups) / (largest distance
//      inside a group), over ALL pairs, not just the tree's: > 1 means the level is a clean
//      partition of the matrix (an ultrametric cut); `exact` says separation > 1.
// Level 0 is every element alone, the last level one group (added with +infinity height when
// the classes do not reach it: unmeasured pairs). Groups are numbered by their lowest element.
//
// Cost: O(n^2 log n) for the tree, O(n log n) for the search, O(n^2) per level for the
// separation. Pure and thread-safe.
#ifndef TOPORR_MAPPING_LEVELS_MEASURED_LEVELS_H_
#define TOPORR_MAPPING_LEVELS_MEASURED_LEVELS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace toporr::mapping {

struct MeasuredLevelOptions {
  double resolution = 0.005;  // relative; (0, 1)
  int max_levels = 8;         // most classes of merge heights (levels above 0), >= 1
};

struct MeasuredLevel {
  std::vector<int32_t> group;  // per element: 0..num_groups-1, numbered by their lowest element
  int32_t num_groups = 0;
  double cut = 0;          // the distance below which pairs joined (0 for level 0; +inf for top)
  double max_within = 0;   // largest distance of two elements of one group
  double min_between = 0;  // smallest distance of two elements of different groups (+inf: none)
  double separation = 0;   // min_between / max_within (+inf when max_within is 0)
  bool exact = true;       // separation > 1
};

struct MeasuredLevels {
  std::vector<MeasuredLevel> levels;  // closest first; [0] every element alone, back() one group
  std::vector<double> persistence;    // per number of boundaries j = 0..: for reports
  int chosen_classes = 0;             // boundaries + 1 the search chose
};

// `distance` is n x n row-major (n * n entries, n >= 1); the diagonal is ignored.
// kInvalidArgument for a size that is not a square or bad options.
absl::StatusOr<MeasuredLevels> ClusterMeasuredDistances(const std::vector<double>& distance,
                                                        const MeasuredLevelOptions& options = {});

// Adjusted Rand index of two partitions of the same elements (labels are arbitrary ints):
// 1.0 when they are the same partition, ~0 for independent ones. Two partitions that are both
// "all alone" or both "one group" score 1.0. kInvalidArgument when the sizes differ.
absl::StatusOr<double> AdjustedRandIndex(const std::vector<int32_t>& x,
                                         const std::vector<int32_t>& y);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_LEVELS_MEASURED_LEVELS_H_
