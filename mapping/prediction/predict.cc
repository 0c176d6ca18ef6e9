#include "mapping/prediction/predict.h"

#include <algorithm>
#include <cstddef>
#include <string>

#include "absl/strings/str_cat.h"

namespace toporr::mapping {
namespace {

absl::Status CheckInputs(const PatternSpec& spec, const std::vector<int>& mapping,
                         const PredictInputs& in) {
  if (absl::Status s = ValidateSpec(spec); !s.ok()) return s;
  if (in.placement == nullptr || in.costs == nullptr)
    return absl::InvalidArgumentError("prediction needs a placement and a host cost matrix");
  const int p = spec.num_ranks;
  if (in.placement->size() != p)
    return absl::InvalidArgumentError(
        absl::StrCat("placement has ", in.placement->size(), " ranks, the pattern ", p));
  for (int r = 0; r < p; ++r) {
    const int h = in.placement->ranks[r].host;
    if (h < 0 || h >= in.costs->num_hosts())
      return absl::InvalidArgumentError(absl::StrCat("slot ", r, " is on host ", h,
                                                     ", outside the cost matrix's ",
                                                     in.costs->num_hosts(), " hosts"));
  }
  if (mapping.empty()) return absl::OkStatus();
  if (static_cast<int>(mapping.size()) != p)
    return absl::InvalidArgumentError(
        absl::StrCat("mapping has ", mapping.size(), " entries for ", p, " ranks"));
  std::vector<char> seen(p, 0);
  for (int i = 0; i < p; ++i) {
    const int s = mapping[i];
    if (s < 0 || s >= p || seen[s])
      return absl::InvalidArgumentError(
          absl::StrCat("mapping is not a permutation: entry ", i, " = ", s));
    seen[s] = 1;
  }
  return absl::OkStatus();
}

// Per-call scratch reused across steps so a step costs O(its transfers x route length).
class StepEvaluator {
 public:
  StepEvaluator(const std::vector<int>& mapping, const PredictInputs& in, Prediction* out)
      : in_(in), out_(out) {
    const int p = in.placement->size();
    loc_.resize(p);
    for (int i = 0; i < p; ++i) loc_[i] = &in.placement->ranks[mapping.empty() ? i : mapping[i]];
    if (in.routes != nullptr) {
      const int n = in.routes->num_directed_links();
      load_.assign(n, 0);
      link_bytes_.assign(n, 0);
      link_beta_.resize(n);
      for (int l = 0; l < n; ++l) link_beta_[l] = 8.0 / in.routes->link_gbps(l);
    }
  }

  // Time of one repetition of the step; accumulates volumes for all repetitions.
  double Evaluate(const Step& step) {
    double worst = 0;
    inter_.clear();
    links_.clear();
    for (const Transfer& t : step.transfers) {
      const RankLocation& a = *loc_[t.src];
      const RankLocation& b = *loc_[t.dst];
      if (a.host == b.host) {
        const LocalityLevel level = SharedLevel(a, b);
        worst = std::max(worst, in_.intra.LatencyNs(level) +
                                    static_cast<double>(t.bytes) * in_.intra.BetaNs(level));
        out_->intra_host_bytes += t.total_bytes;
        continue;
      }
      out_->inter_host_bytes += t.total_bytes;
      Inter x{&t, a.host, b.host, links_.size(), links_.size()};
      if (in_.routes != nullptr) {
        in_.routes->Route(a.host, b.host, &route_);
        for (int32_t l : route_) {
          if (load_[l]++ == 0) touched_.push_back(l);
          link_bytes_[l] += t.total_bytes;
          links_.push_back(l);
        }
        x.links_end = links_.size();
        out_->hop_bytes += static_cast<double>(t.total_bytes) * route_.size();
      } else {
        out_->hop_bytes += static_cast<double>(t.total_bytes);
      }
      inter_.push_back(x);
    }
    for (const Inter& x : inter_) {
      double beta = in_.costs->BetaNs(x.ha, x.hb);
      for (size_t i = x.links_begin; i < x.links_end; ++i) {
        const int32_t l = links_[i];
        beta = std::max(beta, load_[l] * link_beta_[l]);
      }
      worst = std::max(
          worst, in_.costs->AlphaNs(x.ha, x.hb) + static_cast<double>(x.transfer->bytes) * beta);
    }
    for (int32_t l : touched_) {
      out_->max_link_load = std::max(out_->max_link_load, load_[l]);
      load_[l] = 0;
    }
    touched_.clear();
    return worst;
  }

  int64_t MaxLinkBytes() const {
    int64_t m = 0;
    for (int64_t b : link_bytes_) m = std::max(m, b);
    return m;
  }

 private:
  struct Inter {
    const Transfer* transfer;
    int ha, hb;
    size_t links_begin, links_end;
  };

  const PredictInputs& in_;
  Prediction* out_;
  std::vector<const RankLocation*> loc_;  // by new rank
  std::vector<int32_t> load_;             // per directed link, this step
  std::vector<int64_t> link_bytes_;       // per directed link, whole collective
  std::vector<double> link_beta_;         // ns per byte
  std::vector<int32_t> touched_;
  std::vector<int32_t> route_;
  std::vector<int32_t> links_;  // routes of this step's inter-host transfers, concatenated
  std::vector<Inter> inter_;
};

// Adds one folded step to `out`.
void Account(StepEvaluator& eval, const Step& step, const PredictOptions& options,
             Prediction* out) {
  const double t = eval.Evaluate(step);
  out->time_ns += t * static_cast<double>(step.repeat);
  out->num_steps += step.repeat;
  if (options.per_step) {
    out->step_ns.push_back(t);
    out->step_repeat.push_back(step.repeat);
  }
}

}  // namespace

absl::StatusOr<Prediction> PredictCollective(const PatternSpec& spec,
                                             const std::vector<int>& mapping,
                                             const PredictInputs& inputs,
                                             const PredictOptions& options) {
  if (absl::Status s = CheckInputs(spec, mapping, inputs); !s.ok()) return s;
  Prediction out;
  StepEvaluator eval(mapping, inputs, &out);
  absl::Status s = ForEachStep(spec, [&](const Step& step) { Account(eval, step, options, &out); });
  if (!s.ok()) return s;
  out.max_link_bytes = eval.MaxLinkBytes();
  return out;
}

absl::StatusOr<Prediction> PredictSteps(const std::vector<Step>& steps, const PredictInputs& inputs,
                                        const PredictOptions& options) {
  if (inputs.placement == nullptr || inputs.costs == nullptr)
    return absl::InvalidArgumentError("prediction needs a placement and a host cost matrix");
  const int p = inputs.placement->size();
  for (const Step& step : steps) {
    for (const Transfer& t : step.transfers) {
      if (t.src < 0 || t.src >= p || t.dst < 0 || t.dst >= p)
        return absl::InvalidArgumentError(absl::StrCat("transfer ", t.src, " -> ", t.dst,
                                                       " outside the placement's ", p, " slots"));
    }
  }
  Prediction out;
  StepEvaluator eval({}, inputs, &out);
  for (const Step& step : steps) Account(eval, step, options, &out);
  out.max_link_bytes = eval.MaxLinkBytes();
  return out;
}

}  // namespace toporr::mapping
