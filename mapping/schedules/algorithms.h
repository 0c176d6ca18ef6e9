// The algorithm registry: the one place where a collective algorithm's identity is written.
// One row per Algorithm (pattern.h) gives its name (command line, TOPORR_ALGORITHM, reports),
// its value in the public C and Fortran APIs (TOPORR_ALG_* of client/toporr.h and
// client/toporr_f.f90), the collectives whose schedule it has, those offered to selection,
// those toporr runs itself (client/mpi/coll/), and what the MPI library calls it. The
// parsers, AlgorithmsFor, the decision's candidates, the C API's conversions and toporrctl's
// help derive from it; algorithms_test.cc checks the public headers and the docs against it.
//
// Adding an algorithm: a value in Algorithm and one row here, its schedule (a generator of
// its family, generators.h), its implementation in client/mpi/coll/ when toporr runs it, and
// their tests (CONTRIBUTING.md).
#ifndef TOPORR_MAPPING_SCHEDULES_ALGORITHMS_H_
#define TOPORR_MAPPING_SCHEDULES_ALGORITHMS_H_

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace toporr::mapping {

enum class Collective { kAllreduce, kBcast, kAllgather, kGather, kReduce };

enum class Algorithm {
  kRing,                  // allreduce (4), allgather ring
  kSegmentedRing,         // allreduce (5)
  kRecursiveDoubling,     // allreduce (3), allgather recursive doubling (pof2 only)
  kRabenseifner,          // allreduce (6), reduce-scatter + allgather
  kBruck,                 // allgather k_bruck with radix 2
  kBinomial,              // bcast (6), gather binomial, reduce binomial
  kBinaryTree,            // bcast (5)
  kSplitBinaryTree,       // bcast (4)
  kKnomial,               // bcast (7), any radix >= 2
  kChain,                 // bcast (2), chain_fanout chains
  kPipeline,              // bcast (3), chain of fanout 1
  kScatterAllgather,      // bcast (8), binomial scatter + recursive-doubling allgather
  kScatterAllgatherRing,  // bcast (9), binomial scatter + ring allgather
  kLinear,                // bcast (1), root sends to everyone (fallback target)
  // Beyond Open MPI's menu (swing_schedule.h has the peer schedules):
  kSwing,           // allreduce, Swing latency-optimal: full vector, log2 steps (NSDI'24)
  kSwingBandwidth,  // allreduce, Swing bandwidth-optimal: reduce-scatter + allgather
  kBine,            // bcast, Bine tree: binomial tree with distance halving (SC'25)
};

// A set of collectives, one bit per Collective.
using CollectiveSet = uint8_t;
constexpr CollectiveSet Bit(Collective c) {
  return static_cast<CollectiveSet>(1u << static_cast<unsigned>(c));
}
constexpr bool Has(CollectiveSet set, Collective c) { return (set & Bit(c)) != 0; }

struct AlgorithmInfo {
  Algorithm algorithm;
  std::string_view name;     // lower case, unique
  int c_value;               // TOPORR_ALG_<NAME in upper case>; 0 is TOPORR_ALG_AUTO
  CollectiveSet schedules;   // collectives it has a schedule for (ValidateSpec accepts)
  CollectiveSet selectable;  // of those, offered to selection and accepted by name
  CollectiveSet own;         // of those, run by toporr itself (client/mpi/coll/)
  std::string_view library;  // what the MPI library calls it (Open MPI coll/tuned ids)
};

constexpr CollectiveSet kAllreduceOnly = Bit(Collective::kAllreduce);
constexpr CollectiveSet kBcastOnly = Bit(Collective::kBcast);

// In Algorithm's declaration order (AlgorithmsFor and the candidates keep this order).
inline constexpr std::array<AlgorithmInfo, 17> kAlgorithms = {{
    {Algorithm::kRing, "ring", 1, kAllreduceOnly | Bit(Collective::kAllgather),
     kAllreduceOnly | Bit(Collective::kAllgather), kAllreduceOnly | Bit(Collective::kAllgather),
     "allreduce 4, allgather ring"},
    {Algorithm::kSegmentedRing, "segmented_ring", 2, kAllreduceOnly, kAllreduceOnly, kAllreduceOnly,
     "allreduce 5"},
    {Algorithm::kRecursiveDoubling, "recursive_doubling", 3,
     kAllreduceOnly | Bit(Collective::kAllgather), kAllreduceOnly | Bit(Collective::kAllgather),
     kAllreduceOnly | Bit(Collective::kAllgather), "allreduce 3, allgather recursive doubling"},
    {Algorithm::kRabenseifner, "rabenseifner", 4, kAllreduceOnly, kAllreduceOnly, kAllreduceOnly,
     "allreduce 6 (reduce-scatter + allgather)"},
    {Algorithm::kBruck, "bruck", 5, Bit(Collective::kAllgather), Bit(Collective::kAllgather), 0,
     "allgather k_bruck, radix 2"},
    {Algorithm::kBinomial, "binomial", 6,
     kBcastOnly | Bit(Collective::kGather) | Bit(Collective::kReduce),
     kBcastOnly | Bit(Collective::kGather) | Bit(Collective::kReduce), kBcastOnly,
     "bcast 6, gather binomial, reduce binomial"},
    {Algorithm::kBinaryTree, "binary_tree", 7, kBcastOnly, kBcastOnly, kBcastOnly, "bcast 5"},
    {Algorithm::kSplitBinaryTree, "split_binary_tree", 8, kBcastOnly, kBcastOnly, 0, "bcast 4"},
    {Algorithm::kKnomial, "knomial", 9, kBcastOnly, kBcastOnly, kBcastOnly, "bcast 7"},
    {Algorithm::kChain, "chain", 10, kBcastOnly, kBcastOnly, 0, "bcast 2"},
    {Algorithm::kPipeline, "pipeline", 11, kBcastOnly, kBcastOnly, 0, "bcast 3"},
    {Algorithm::kScatterAllgather, "scatter_allgather", 12, kBcastOnly, kBcastOnly, kBcastOnly,
     "bcast 8"},
    {Algorithm::kScatterAllgatherRing, "scatter_allgather_ring", 13, kBcastOnly, kBcastOnly,
     kBcastOnly, "bcast 9"},
    // The bcast fallback target (EffectiveAlgorithm): modelled, never selected by name.
    {Algorithm::kLinear, "linear", 14, kBcastOnly, 0, 0, "bcast 1"},
    {Algorithm::kSwing, "swing", 15, kAllreduceOnly, kAllreduceOnly, kAllreduceOnly,
     "none (Swing latency-optimal, NSDI'24)"},
    {Algorithm::kSwingBandwidth, "swing_bandwidth", 16, kAllreduceOnly, kAllreduceOnly,
     kAllreduceOnly, "none (Swing bandwidth-optimal)"},
    {Algorithm::kBine, "bine", 17, kBcastOnly, kBcastOnly, kBcastOnly, "none (Bine tree, SC'25)"},
}};

struct CollectiveInfo {
  Collective collective;
  std::string_view name;  // lower case, unique
  int c_value;            // TOPORR_<NAME in upper case> of client/toporr.h
};

// In Collective's declaration order.
inline constexpr std::array<CollectiveInfo, 5> kCollectives = {{
    {Collective::kAllreduce, "allreduce", 0},
    {Collective::kBcast, "bcast", 1},
    {Collective::kAllgather, "allgather", 2},
    {Collective::kGather, "gather", 3},
    {Collective::kReduce, "reduce", 4},
}};

// The row of `a` (every Algorithm has one: the static_asserts below keep the order).
constexpr const AlgorithmInfo& InfoOf(Algorithm a) { return kAlgorithms[static_cast<size_t>(a)]; }
constexpr const CollectiveInfo& InfoOf(Collective c) {
  return kCollectives[static_cast<size_t>(c)];
}

namespace algorithms_internal {
constexpr bool RowsInOrder() {
  for (size_t i = 0; i < kAlgorithms.size(); ++i) {
    if (static_cast<size_t>(kAlgorithms[i].algorithm) != i) return false;
    if ((kAlgorithms[i].selectable & ~kAlgorithms[i].schedules) != 0) return false;
    if ((kAlgorithms[i].own & ~kAlgorithms[i].selectable) != 0) return false;
  }
  for (size_t i = 0; i < kCollectives.size(); ++i) {
    if (static_cast<size_t>(kCollectives[i].collective) != i) return false;
  }
  return true;
}
}  // namespace algorithms_internal
static_assert(algorithms_internal::RowsInOrder(),
              "kAlgorithms and kCollectives: one row per value, in declaration order; own within "
              "selectable within schedules");
static_assert(kAlgorithms.back().algorithm == Algorithm::kBine, "a row per Algorithm");

// The algorithms toporr runs itself for `c` (client/mpi/coll/), in registry order.
std::vector<Algorithm> OwnAlgorithmsFor(Collective c);

// The row whose c_value is `value`; nullptr for none (0, TOPORR_ALG_AUTO, has none).
const AlgorithmInfo* AlgorithmOfCValue(int value);
const CollectiveInfo* CollectiveOfCValue(int value);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_SCHEDULES_ALGORITHMS_H_
