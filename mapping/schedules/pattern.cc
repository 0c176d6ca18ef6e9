#include "mapping/schedules/pattern.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "mapping/schedules/algorithms.h"
#include "mapping/schedules/collective_shapes.h"
#include "mapping/schedules/generators.h"

namespace toporr::mapping {
namespace {

// The names of a registry's rows, in its order.
template <typename Row, size_t N>
std::vector<std::string> Names(const std::array<Row, N>& rows) {
  std::vector<std::string> names;
  for (const Row& r : rows) names.emplace_back(r.name);
  return names;
}

absl::Status UnknownName(const std::vector<std::string>& names, std::string_view name,
                         const char* what) {
  return absl::InvalidArgumentError(
      absl::StrCat("unknown ", what, " \"", std::string(name),
                   "\"; expected one of: ", absl::StrJoin(names, ", ")));
}

bool Implements(Collective c, Algorithm a) { return Has(InfoOf(a).schedules, c); }

}  // namespace

namespace schedules_internal {
namespace {

// Runs the generator of spec's effective algorithm (generators.h).
absl::Status Generate(const PatternSpec& spec, bool exact, const StepVisitor& visit) {
  if (absl::Status s = ValidateSpec(spec); !s.ok()) return s;
  if (spec.num_ranks == 1) return absl::OkStatus();
  Sink sink(spec, exact, visit);
  const Ctx ctx{spec.num_ranks, spec.root, spec.count, spec};
  const bool allgather = spec.collective == Collective::kAllgather;
  switch (EffectiveAlgorithm(spec)) {
    case Algorithm::kRing:
      allgather ? AllgatherRing(ctx, sink) : AllreduceRing(ctx, sink);
      break;
    case Algorithm::kSegmentedRing:
      AllreduceSegmentedRing(ctx, sink);
      break;
    case Algorithm::kRecursiveDoubling:
      allgather ? AllgatherRecursiveDoubling(ctx, sink) : AllreduceRecursiveDoubling(ctx, sink);
      break;
    case Algorithm::kRabenseifner:
      AllreduceRabenseifner(ctx, sink);
      break;
    case Algorithm::kSwing:
      AllreduceSwing(ctx, sink);
      break;
    case Algorithm::kSwingBandwidth:
      AllreduceSwingBandwidth(ctx, sink);
      break;
    case Algorithm::kBine:
      BcastBine(ctx, sink);
      break;
    case Algorithm::kBruck:
      AllgatherBruck(ctx, sink);
      break;
    case Algorithm::kBinomial:
      if (spec.collective == Collective::kGather) {
        GatherBinomial(ctx, sink);
      } else if (spec.collective == Collective::kReduce) {
        ReduceBinomial(ctx, sink);
      } else {
        BcastBinomial(ctx, sink);
      }
      break;
    case Algorithm::kBinaryTree:
      BcastBinaryTree(ctx, sink);
      break;
    case Algorithm::kSplitBinaryTree:
      BcastSplitBinaryTree(ctx, sink);
      break;
    case Algorithm::kKnomial:
      BcastKnomial(ctx, sink);
      break;
    case Algorithm::kChain:
      BcastChain(ctx, sink);
      break;
    case Algorithm::kPipeline:
      BcastPipeline(ctx, sink);
      break;
    case Algorithm::kScatterAllgather:
      BcastScatterAllgather(ctx, sink);
      break;
    case Algorithm::kScatterAllgatherRing:
      BcastScatterAllgatherRing(ctx, sink);
      break;
    case Algorithm::kLinear:
      BcastLinear(ctx, sink);
      break;
  }
  sink.Finish();
  return absl::OkStatus();
}

}  // namespace
}  // namespace schedules_internal

std::string_view AlgorithmName(Algorithm a) { return InfoOf(a).name; }
std::string_view CollectiveName(Collective c) { return InfoOf(c).name; }

absl::StatusOr<Algorithm> ParseAlgorithm(std::string_view name) {
  for (const AlgorithmInfo& row : kAlgorithms) {
    if (row.name == name) return row.algorithm;
  }
  return UnknownName(Names(kAlgorithms), name, "algorithm");
}

absl::StatusOr<Collective> ParseCollective(std::string_view name) {
  for (const CollectiveInfo& row : kCollectives) {
    if (row.name == name) return row.collective;
  }
  return UnknownName(Names(kCollectives), name, "collective");
}

std::vector<Algorithm> AlgorithmsFor(Collective c) {
  std::vector<Algorithm> out;
  for (const AlgorithmInfo& row : kAlgorithms) {
    if (Has(row.selectable, c)) out.push_back(row.algorithm);
  }
  return out;
}

std::vector<Algorithm> OwnAlgorithmsFor(Collective c) {
  std::vector<Algorithm> out;
  for (const AlgorithmInfo& row : kAlgorithms) {
    if (Has(row.own, c)) out.push_back(row.algorithm);
  }
  return out;
}

const AlgorithmInfo* AlgorithmOfCValue(int value) {
  for (const AlgorithmInfo& row : kAlgorithms) {
    if (row.c_value == value) return &row;
  }
  return nullptr;
}

const CollectiveInfo* CollectiveOfCValue(int value) {
  for (const CollectiveInfo& row : kCollectives) {
    if (row.c_value == value) return &row;
  }
  return nullptr;
}

absl::Status ValidateSpec(const PatternSpec& spec) {
  constexpr int64_t kMaxRanks = int64_t{1} << 24;
  if (spec.num_ranks < 1 || spec.num_ranks > kMaxRanks)
    return absl::InvalidArgumentError(
        absl::StrCat("num_ranks ", spec.num_ranks, " out of range [1, ", kMaxRanks, "]"));
  if (spec.root < 0 || spec.root >= spec.num_ranks)
    return absl::InvalidArgumentError(
        absl::StrCat("root ", spec.root, " out of range [0, ", spec.num_ranks, ")"));
  if (spec.count < 1)
    return absl::InvalidArgumentError(absl::StrCat("count ", spec.count, " must be >= 1"));
  if (spec.type_size < 1)
    return absl::InvalidArgumentError(absl::StrCat("type_size ", spec.type_size, " must be >= 1"));
  if (spec.radix < 2)
    return absl::InvalidArgumentError(absl::StrCat("radix ", spec.radix, " must be >= 2"));
  if (spec.chain_fanout < 1)
    return absl::InvalidArgumentError(
        absl::StrCat("chain_fanout ", spec.chain_fanout, " must be >= 1"));
  if (spec.segment_bytes < 0)
    return absl::InvalidArgumentError(
        absl::StrCat("segment_bytes ", spec.segment_bytes, " must be >= 0"));
  // Bytes of the whole data space must fit comfortably in int64 (totals add up to p times).
  const long double space =
      static_cast<long double>(spec.count) * spec.type_size * spec.num_ranks *
      (spec.collective == Collective::kAllgather || spec.collective == Collective::kGather
           ? spec.num_ranks
           : 1);
  if (space > 4e18L)
    return absl::InvalidArgumentError(absl::StrCat("count ", spec.count, " x type_size ",
                                                   spec.type_size, " too large for ",
                                                   spec.num_ranks, " ranks"));
  if (!Implements(spec.collective, spec.algorithm))
    return absl::InvalidArgumentError(
        absl::StrCat("algorithm ", std::string(AlgorithmName(spec.algorithm)),
                     " does not implement ", std::string(CollectiveName(spec.collective))));
  return absl::OkStatus();
}

Algorithm EffectiveAlgorithm(const PatternSpec& spec) {
  const int64_t p = spec.num_ranks, count = spec.count;
  switch (spec.algorithm) {
    case Algorithm::kSegmentedRing: {
      const int64_t segcount =
          schedules_internal::SegmentCount(spec.segment_bytes, spec.type_size, count);
      if (count >= p * segcount) return Algorithm::kSegmentedRing;
      return count < p ? Algorithm::kRecursiveDoubling : Algorithm::kRing;
    }
    case Algorithm::kRing:
      if (spec.collective == Collective::kAllreduce && count < p)
        return Algorithm::kRecursiveDoubling;
      return Algorithm::kRing;
    case Algorithm::kRecursiveDoubling:
      if (spec.collective == Collective::kAllgather && FloorPowerOfTwo(p) != p)
        return Algorithm::kBruck;
      return Algorithm::kRecursiveDoubling;
    case Algorithm::kSplitBinaryTree: {
      const int64_t half1 = count / 2, half0 = count - half1;
      const int64_t ts = spec.type_size;
      const int64_t segsize =
          spec.segment_bytes > 0 ? std::max<int64_t>(spec.segment_bytes, ts) : 0;
      if (half1 == 0 || segsize > half0 * ts || segsize > half1 * ts) return Algorithm::kPipeline;
      return Algorithm::kSplitBinaryTree;
    }
    case Algorithm::kScatterAllgather:
    case Algorithm::kScatterAllgatherRing:
      if (count < p) return Algorithm::kLinear;
      return spec.algorithm;
    case Algorithm::kSwingBandwidth:
      return count < FloorPowerOfTwo(p) ? Algorithm::kSwing : Algorithm::kSwingBandwidth;
    default:
      return spec.algorithm;
  }
}

void DropOwnScatterAllgatherBelowBlock(int64_t bytes, int ranks,
                                       std::vector<Algorithm>* candidates) {
  if (bytes >= ranks) return;
  candidates->erase(std::remove_if(candidates->begin(), candidates->end(),
                                   [](Algorithm a) {
                                     return a == Algorithm::kScatterAllgather ||
                                            a == Algorithm::kScatterAllgatherRing;
                                   }),
                    candidates->end());
}

int64_t DataSpaceElements(const PatternSpec& spec) {
  if (spec.collective == Collective::kAllgather || spec.collective == Collective::kGather)
    return spec.count * spec.num_ranks;
  return spec.count;
}

absl::Status ForEachStep(const PatternSpec& spec, const StepVisitor& visit) {
  return schedules_internal::Generate(spec, /*exact=*/false, visit);
}

absl::Status ForEachExactStep(const PatternSpec& spec, const StepVisitor& visit) {
  return schedules_internal::Generate(spec, /*exact=*/true, visit);
}

absl::StatusOr<std::vector<WeightedEdge>> CommunicationGraph(const PatternSpec& spec) {
  absl::flat_hash_map<uint64_t, int64_t> bytes;
  absl::Status s = ForEachStep(spec, [&](const Step& step) {
    for (const Transfer& t : step.transfers) {
      const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(t.src)) << 32) |
                           static_cast<uint32_t>(t.dst);
      bytes[key] += t.total_bytes;
    }
  });
  if (!s.ok()) return s;
  std::vector<WeightedEdge> edges;
  edges.reserve(bytes.size());
  for (const auto& [key, b] : bytes)
    edges.push_back({static_cast<int32_t>(key >> 32), static_cast<int32_t>(key & 0xffffffffu), b});
  std::sort(edges.begin(), edges.end(), [](const WeightedEdge& a, const WeightedEdge& b) {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  });
  return edges;
}

}  // namespace toporr::mapping
