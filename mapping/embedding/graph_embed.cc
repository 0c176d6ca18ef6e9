#include "mapping/embedding/graph_embed.h"

#include <cstdint>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "mapping/embedding/machine_bisection.h"
#include "mapping/embedding/scotch_embed.h"

namespace toporr::mapping {

std::string_view EmbedMethodName(EmbedMethod m) {
  switch (m) {
    case EmbedMethod::kIdentity:
      return "identity";
    case EmbedMethod::kBipartition:
      return "bipartition";
    case EmbedMethod::kGreedy:
      return "greedy";
    case EmbedMethod::kScotch:
      return "scotch";
  }
  return "unknown";
}

absl::StatusOr<Mapping> EmbedBipartition(const RankDistance& d, const CommGraph& graph,
                                         const EmbedOptions& o) {
  if (d.size() == 0) return absl::InvalidArgumentError("graph embed: no ranks");
  if (absl::Status s = ValidateCommGraph(d, graph); !s.ok()) return s;
  return embedding_internal::BisectAlongMachine(d, graph);
}

absl::StatusOr<Mapping> EmbedGreedy(const RankDistance& d, const CommGraph& graph,
                                    const EmbedOptions& o) {
  ReorderOptions ro;
  ro.root = 0;
  ro.refinement_passes = o.refinement_passes;
  ro.max_swap_candidates = o.max_swap_candidates;
  return ReorderGraph(d, graph, ro);
}
absl::StatusOr<Mapping> EmbedScotch(const RankDistance& d, const CommGraph& graph,
                                    const EmbedOptions& o) {
  if (d.size() == 0) return absl::InvalidArgumentError("graph embed: no ranks");
  if (absl::Status s = ValidateCommGraph(d, graph); !s.ok()) return s;
  if (d.size() == 1) return IdentityMapping(1);
  return embedding_internal::ScotchMap(d, graph, o.scotch_strategy);
}

absl::StatusOr<Embedding> EmbedGraph(const RankDistance& d, const CommGraph& graph,
                                     const EmbedOptions& o) {
  auto ours = EmbedBipartition(d, graph, o);
  if (!ours.ok()) return ours.status();
  Embedding e;
  e.mapping = IdentityMapping(d.size());
  e.identity_cost_ns = GraphCostNs(d, graph, e.mapping);
  e.cost_ns = e.identity_cost_ns;
  // Candidates in tie-break order: a later one must be strictly cheaper to win.
  auto consider = [&](Mapping m, EmbedMethod method, double& cost_out) {
    cost_out = GraphCostNs(d, graph, m);
    if (cost_out < e.cost_ns) {
      e.mapping = std::move(m);
      e.method = method;
      e.cost_ns = cost_out;
    }
  };
  consider(*std::move(ours), EmbedMethod::kBipartition, e.bipartition_cost_ns);
  if (o.run_greedy) {
    auto greedy = EmbedGreedy(d, graph, o);
    if (!greedy.ok()) return greedy.status();
    consider(*std::move(greedy), EmbedMethod::kGreedy, e.greedy_cost_ns);
  }
  if (o.run_scotch) {
    auto scotch = EmbedScotch(d, graph, o);
    if (!scotch.ok()) return scotch.status();
    consider(*std::move(scotch), EmbedMethod::kScotch, e.scotch_cost_ns);
  }
  return e;
}

absl::StatusOr<CommGraph> CartesianGraph(const std::vector<int>& dims,
                                         const std::vector<bool>& periods, int64_t bytes_per_edge) {
  if (dims.size() != periods.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cartesian graph: ", dims.size(), " dims but ", periods.size(), " periods"));
  }
  int64_t n = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("cartesian graph: dimension ", i, " has size ", dims[i]));
    }
    n *= dims[i];
    if (n > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError("cartesian graph: more than 2^31-1 ranks");
    }
  }
  CommGraph g;
  g.num_ranks = static_cast<int32_t>(n);
  // stride[i]: rank distance between neighbours along dimension i (row-major).
  std::vector<int64_t> stride(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
    stride[i] = stride[i + 1] * dims[i + 1];
  for (int64_t r = 0; r < n; ++r) {
    for (size_t i = 0; i < dims.size(); ++i) {
      const int64_t c = (r / stride[i]) % dims[i];
      int64_t nb;
      if (c + 1 < dims[i]) {
        nb = r + stride[i];
      } else if (periods[i] && dims[i] > 2) {
        nb = r - c * stride[i];  // wrap to coordinate 0
      } else {
        continue;
      }
      g.edges.push_back({static_cast<int32_t>(r), static_cast<int32_t>(nb), bytes_per_edge});
      g.edges.push_back({static_cast<int32_t>(nb), static_cast<int32_t>(r), bytes_per_edge});
    }
  }
  return g;
}

}  // namespace toporr::mapping
