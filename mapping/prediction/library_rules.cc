// MPI libraries' default algorithm choices as predictable schedules; see library_rules.h.
#include "mapping/prediction/library_rules.h"

#include <initializer_list>
#include <utility>

#include "absl/strings/str_cat.h"
#include "mapping/schedules/collective_shapes.h"

namespace toporr::mapping {
namespace {

using A = Algorithm;

// One communicator-size band of a decision table: sizes below `below_ranks`, then message
// sizes below each threshold map to an algorithm id; `otherwise` above the last threshold.
struct Band {
  int below_ranks;  // 0: no upper bound
  std::initializer_list<std::pair<int64_t, int>> below_bytes;
  int otherwise;
};

int Lookup(std::initializer_list<Band> table, int p, int64_t bytes) {
  for (const Band& b : table) {
    if (b.below_ranks != 0 && p >= b.below_ranks) continue;
    for (const auto& [limit, alg] : b.below_bytes) {
      if (bytes < limit) return alg;
    }
    return b.otherwise;
  }
  return 0;
}

// Open MPI coll/tuned allreduce, commutative ops. 2 nonoverlapping, 3 recursive doubling,
// 4 ring, 5 segmented ring, 6 Rabenseifner.
int OpenMpiAllreduce(int p, int64_t bytes) {
  return Lookup({{4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}}, 6},
                 {8, {{16, 4}, {8192, 3}}, 6},
                 {16, {{8192, 3}}, 6},
                 {32, {{64, 5}, {4096, 3}}, 6},
                 {64, {{128, 5}}, 6},
                 {128, {{262144, 3}}, 6},
                 {256, {{131072, 2}, {262144, 3}}, 6},
                 {512, {{4096, 2}}, 6},
                 {2048, {{2048, 2}, {16384, 3}}, 6},
                 {4096, {{2048, 2}, {4096, 5}, {16384, 3}}, 6},
                 {0, {{2048, 2}, {16384, 5}, {32768, 3}}, 6}},
                p, bytes);
}

// Open MPI coll/tuned bcast. 1 linear, 2 chain, 3 pipeline, 4 split binary tree, 5 binary
// tree, 6 binomial, 7 k-nomial, 8 scatter-allgather, 9 scatter-allgather-ring.
int OpenMpiBcast(int p, int64_t bytes) {
  return Lookup({{4,
                  {{32, 3},
                   {256, 5},
                   {512, 3},
                   {1024, 7},
                   {32768, 1},
                   {131072, 5},
                   {262144, 2},
                   {524288, 1},
                   {1048576, 6}},
                  5},
                 {8, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}}, 2},
                 {16, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}}, 1},
                 {32, {{4096, 7}, {1048576, 6}}, 8},
                 {64, {{2048, 6}}, 7},
                 {128, {}, 7},
                 {256, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}}, 7},
                 {1024, {{16384, 7}, {32768, 4}}, 7},
                 {2048, {{524288, 7}}, 8},
                 {4096, {{262144, 7}}, 8},
                 {0, {{8192, 7}, {16384, 5}, {262144, 7}}, 8}},
                p, bytes);
}

// Open MPI coll/tuned allgather (bytes per rank). 2 Bruck, 3 recursive doubling, 4 ring,
// 5 neighbor exchange, 6 two_proc.
int OpenMpiAllgather(int p, int64_t bytes) {
  if (p == 2) return 6;
  return Lookup({{32, {}, 3},
                 {64, {{1024, 3}, {65536, 5}}, 4},
                 {128, {{512, 3}, {65536, 5}}, 4},
                 {256, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4},
                 {512, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4},
                 {1024, {{64, 3}, {256, 2}, {2048, 3}}, 5},
                 {2048, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}}, 5},
                 {4096, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}}, 5},
                 {0, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}}, 5}},
                p, bytes);
}

class Builder {
 public:
  Builder(Collective c, int p, int64_t count, int type_size, int root) {
    base_.collective = c;
    base_.num_ranks = p;
    base_.count = count;
    base_.type_size = type_size;
    base_.root = root;
  }
  Builder& Phase(Algorithm a, int64_t segment_bytes = 0, int radix = 4) {
    PatternSpec s = base_;
    s.algorithm = a;
    s.segment_bytes = segment_bytes;
    s.radix = radix;
    choice_.phases.push_back(s);
    return *this;
  }
  // A phase of another collective on the same buffer (two-phase approximations).
  Builder& PhaseOf(Collective c, Algorithm a) {
    PatternSpec s = base_;
    s.collective = c;
    s.algorithm = a;
    choice_.phases.push_back(s);
    return *this;
  }
  LibraryChoice Named(std::string name) {
    choice_.name = std::move(name);
    return std::move(choice_);
  }

 private:
  PatternSpec base_;
  LibraryChoice choice_;
};

LibraryChoice OpenMpi(Collective c, int p, int64_t count, int type_size, int root) {
  Builder b(c, p, count, type_size, root);
  const int64_t bytes = count * type_size;
  if (c == Collective::kAllreduce) {
    switch (OpenMpiAllreduce(p, bytes)) {
      case 2:
        return b.PhaseOf(Collective::kReduce, A::kBinomial)
            .PhaseOf(Collective::kBcast, A::kBinomial)
            .Named("nonoverlapping");
      case 3:
        return b.Phase(A::kRecursiveDoubling).Named("recursive_doubling");
      case 4:
        return b.Phase(A::kRing).Named("ring");
      case 5:
        return b.Phase(A::kSegmentedRing).Named("segmented_ring");
      default:
        return b.Phase(A::kRabenseifner).Named("rabenseifner");
    }
  }
  if (c == Collective::kBcast) {
    switch (OpenMpiBcast(p, bytes)) {
      case 1:
        return b.Phase(A::kLinear).Named("basic_linear");
      case 2:
        return b.Phase(A::kChain).Named("chain");
      case 3:
        return b.Phase(A::kPipeline).Named("pipeline");
      case 4:
        return b.Phase(A::kSplitBinaryTree).Named("split_binary_tree");
      case 5:
        return b.Phase(A::kBinaryTree).Named("binary_tree");
      case 6:
        return b.Phase(A::kBinomial).Named("binomial");
      case 7:
        return b.Phase(A::kKnomial, 0, 4).Named("knomial");
      case 8:
        return b.Phase(A::kScatterAllgather).Named("scatter_allgather");
      default:
        return b.Phase(A::kScatterAllgatherRing).Named("scatter_allgather_ring");
    }
  }
  switch (OpenMpiAllgather(p, bytes)) {  // allgather
    case 2:
      return b.Phase(A::kBruck).Named("bruck");
    case 3:
      return b.Phase(A::kRecursiveDoubling).Named("recursive_doubling");
    case 4:
      return b.Phase(A::kRing).Named("ring");
    case 5:
      return b.Phase(A::kRing).Named("neighbor_exchange");
    default:
      return b.Phase(A::kRecursiveDoubling).Named("two_proc");
  }
}

LibraryChoice Mpich(Collective c, int p, int64_t count, int type_size, int root) {
  Builder b(c, p, count, type_size, root);
  const int64_t bytes = count * type_size;
  const bool pow2 = FloorPowerOfTwo(p) == p;
  if (c == Collective::kAllreduce) {
    if (bytes <= 8 || count < FloorPowerOfTwo(p)) {
      return b.Phase(A::kRecursiveDoubling).Named("recursive_doubling");
    }
    return b.Phase(A::kRabenseifner).Named("reduce_scatter_allgather");
  }
  if (c == Collective::kBcast) {
    if (p < 8 || bytes <= 12288) return b.Phase(A::kBinomial).Named("binomial");
    if (pow2 && bytes <= 524288) {
      return b.Phase(A::kScatterAllgather).Named("scatter_recursive_doubling_allgather");
    }
    return b.Phase(A::kScatterAllgatherRing).Named("scatter_ring_allgather");
  }
  const int64_t total = bytes * p;  // allgather
  if (pow2 && total < 524288) return b.Phase(A::kRecursiveDoubling).Named("recursive_doubling");
  if (!pow2 && total < 81920) return b.Phase(A::kBruck).Named("brucks");
  return b.Phase(A::kRing).Named("ring");
}

// SimGrid 3.31+ (`ompi` selector "updated 02/2022"): Open MPI 4's tables, run with SMPI's
// implementations: the segmented ring with 1 MiB segments, k-nomial unsegmented (MVAPICH2's
// intra-node k-nomial, radix 4), linear and binary tree as SMPI's NTSL / NTSB.
LibraryChoice SmpiOmpi(Collective c, int p, int64_t count, int type_size, int root) {
  LibraryChoice choice = OpenMpi(c, p, count, type_size, root);
  if (c == Collective::kAllreduce && choice.name == "segmented_ring") {
    choice.phases[0].segment_bytes = 1 << 20;
  }
  return choice;
}

}  // namespace

std::string_view LibraryRulesName(LibraryRules rules) {
  switch (rules) {
    case LibraryRules::kOpenMpi:
      return "openmpi";
    case LibraryRules::kMpich:
      return "mpich";
    case LibraryRules::kSmpiOmpi:
      return "smpi-ompi";
  }
  return "?";
}

absl::StatusOr<LibraryRules> ParseLibraryRules(std::string_view name) {
  for (LibraryRules r : {LibraryRules::kOpenMpi, LibraryRules::kMpich, LibraryRules::kSmpiOmpi}) {
    if (name == LibraryRulesName(r)) return r;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown MPI library rules `", std::string(name),
                                                 "` (openmpi, mpich, smpi-ompi)"));
}

absl::StatusOr<LibraryChoice> LibraryDefault(LibraryRules rules, Collective collective,
                                             int num_ranks, int64_t count, int type_size,
                                             int root) {
  if (collective != Collective::kAllreduce && collective != Collective::kBcast &&
      collective != Collective::kAllgather) {
    return absl::InvalidArgumentError(absl::StrCat("no library rules for ",
                                                   std::string(CollectiveName(collective)),
                                                   " (allreduce, bcast, allgather)"));
  }
  if (num_ranks < 1 || count < 1 || type_size < 1) {
    return absl::InvalidArgumentError(absl::StrCat("invalid size: ", num_ranks, " ranks, count ",
                                                   count, ", type size ", type_size));
  }
  switch (rules) {
    case LibraryRules::kOpenMpi:
      return OpenMpi(collective, num_ranks, count, type_size, root);
    case LibraryRules::kMpich:
      return Mpich(collective, num_ranks, count, type_size, root);
    case LibraryRules::kSmpiOmpi:
      return SmpiOmpi(collective, num_ranks, count, type_size, root);
  }
  return absl::InternalError("unknown library rules");
}

}  // namespace toporr::mapping
