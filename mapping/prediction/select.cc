#include "mapping/prediction/select.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace toporr::mapping {

PatternSpec SpecFor(const SelectionRequest& request, Algorithm algorithm) {
  PatternSpec s;
  s.collective = request.collective;
  s.algorithm = algorithm;
  s.num_ranks = request.num_ranks;
  s.root = request.root;
  s.count = request.count;
  s.type_size = request.type_size;
  s.radix = request.radix;
  s.chain_fanout = request.chain_fanout;
  s.segment_bytes = request.segment_bytes;
  return s;
}

absl::StatusOr<Selection> SelectAlgorithmAndMapping(const SelectionRequest& request,
                                                    const std::vector<NamedReorder>& reorders,
                                                    const PredictInputs& inputs) {
  const std::vector<Algorithm> algorithms =
      request.algorithms.empty() ? AlgorithmsFor(request.collective) : request.algorithms;
  if (algorithms.empty())
    return absl::InvalidArgumentError("no candidate algorithm for the collective");
  Selection out;
  auto consider = [&](const PatternSpec& spec, std::string name,
                      std::vector<int> mapping) -> absl::Status {
    absl::StatusOr<Prediction> pr = PredictCollective(spec, mapping, inputs);
    if (!pr.ok()) {
      return absl::Status(pr.status().code(),
                          absl::StrCat(std::string(AlgorithmName(spec.algorithm)), " with ", name,
                                       " mapping: ", pr.status().ToString()));
    }
    Candidate c;
    c.algorithm = spec.algorithm;
    c.effective = EffectiveAlgorithm(spec);
    c.mapping_name = std::move(name);
    c.prediction = *std::move(pr);
    out.candidates.push_back(std::move(c));
    if (out.candidates.size() == 1 ||
        out.candidates.back().prediction.time_ns < out.Best().prediction.time_ns) {
      out.best = out.candidates.size() - 1;
      out.best_mapping = std::move(mapping);
    }
    return absl::OkStatus();
  };
  for (Algorithm a : algorithms) {
    const PatternSpec spec = SpecFor(request, a);
    if (absl::Status s = ValidateSpec(spec); !s.ok()) return s;
    if (absl::Status s = consider(spec, "identity", {}); !s.ok()) return s;
    for (const NamedReorder& r : reorders) {
      std::vector<int> mapping = r.reorder(spec);
      if (mapping.empty()) continue;
      if (absl::Status s = consider(spec, r.name, std::move(mapping)); !s.ok()) return s;
    }
  }
  return out;
}

}  // namespace toporr::mapping
