// Choosing a collective algorithm and a rank mapping by predicted time — a tuning table that
// knows the topology.
//
// For every candidate algorithm of the collective, the identity mapping and every mapping
// the caller's reorder callbacks produce for that algorithm's PatternSpec are predicted with
// PredictCollective (predict.h); the fastest wins. Ties go to the earlier candidate, and the
// identity of an algorithm always comes before its reorders, so a reorder is chosen only
// when it is predicted strictly faster than identity: the result is never predicted slower
// than the identity mapping of the same algorithm ("Guarantee" in DESIGN.md). Reordering
// heuristics live elsewhere (mapping/reorder/reorder.h); this file only ranks what it is given.
// Stateless; thread-safe when the callbacks and inputs are.
#ifndef TOPORR_MAPPING_PREDICTION_SELECT_H_
#define TOPORR_MAPPING_PREDICTION_SELECT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/prediction/predict.h"
#include "mapping/schedules/pattern.h"

namespace toporr::mapping {

// A mapping producer: returns mapping[new_rank] = slot for the given pattern, or an empty
// vector when it has nothing to offer for it (e.g. a heuristic for another algorithm, or a
// heuristic that failed — selection then just skips it).
struct NamedReorder {
  std::string name;  // shown in the candidate list, e.g. "ring", "graph"
  std::function<std::vector<int>(const PatternSpec&)> reorder;
};

struct SelectionRequest {
  Collective collective = Collective::kAllreduce;
  int num_ranks = 1;
  int root = 0;
  int64_t count = 1;  // per-rank count for allgather/gather, as in PatternSpec
  int type_size = 1;
  int radix = 4;
  int chain_fanout = 4;
  int64_t segment_bytes = 0;
  // Candidate algorithms; empty = AlgorithmsFor(collective).
  std::vector<Algorithm> algorithms;
};

struct Candidate {
  Algorithm algorithm = Algorithm::kRing;  // as requested
  Algorithm effective = Algorithm::kRing;  // what Open MPI runs (EffectiveAlgorithm)
  std::string mapping_name;                // "identity" or NamedReorder::name
  Prediction prediction;
};

struct Selection {
  std::vector<Candidate> candidates;  // in evaluation order
  size_t best = 0;                    // index into candidates
  std::vector<int> best_mapping;      // empty = identity
  const Candidate& Best() const { return candidates[best]; }
};

// kInvalidArgument when the request makes no valid PatternSpec for an algorithm, or a
// reorder returns a vector that is not a permutation of the placement's slots (naming the
// reorder and the algorithm); errors of PredictCollective otherwise.
absl::StatusOr<Selection> SelectAlgorithmAndMapping(const SelectionRequest& request,
                                                    const std::vector<NamedReorder>& reorders,
                                                    const PredictInputs& inputs);

// The PatternSpec selection predicts for `algorithm` under `request`.
PatternSpec SpecFor(const SelectionRequest& request, Algorithm algorithm);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_PREDICTION_SELECT_H_
