// `toporrctl validate`: measured costs (toporr-probe's probe.json) against the model's (the
// daemon's snapshot, or a fabric dump read offline), so that admins see where the model -- or
// the fabric: a degraded cable, a misrouted switch -- is wrong.
//
// Per host pair x != y present in both: measured = the smallest rtt_ns[k] / 2 over the rank
// pairs between the two hosts (the best-placed ranks, as the model's cost of a host pair is
// that of its best port pair), k = the probe's size `bytes`; model = alpha + bytes * beta of
// the cost matrix. The two are in different units of "truth" (the model's latency constants
// are not the machine's), so pairs are compared after dividing by the median ratio:
//   scale  = median over pairs of measured / model
//   ratio  = measured / model / scale   (1: as the model predicts, relative to the others)
// The pairs that disagree most are those with the largest |log ratio| (slower or faster than
// the model says). `spearman` is the rank correlation of measured and model times over all
// pairs (ties averaged): 1 when the model orders every pair as the measurement does.
// With routes (offline fabric; the model's or, with --lfts, the subnet manager's), every
// directed link gets the median ratio of the compared pairs whose route (either direction)
// crosses it; the links whose median (then mean) is largest are the `suspects` (a degraded
// cable slows every pair routed over it, and only those).
//
// Pure and thread-safe.
#ifndef TOPORR_CLIENT_CTL_PROBE_VALIDATION_H_
#define TOPORR_CLIENT_CTL_PROBE_VALIDATION_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "collectors/plogp.h"
#include "mapping/costs/cost_matrix.h"
#include "mapping/routes/route_source.h"

namespace toporr::client::ctl {

struct PairComparison {
  int x = 0, y = 0;  // indices into Validation::hosts, x < y
  double measured_ns = 0, model_ns = 0, ratio = 0;
};

struct SuspectLink {
  int directed_link = -1;
  std::string name;
  int pairs = 0;  // compared pairs routed over it
  double median_ratio = 0;
  double mean_ratio = 0;  // breaks ties of the median
};

struct Validation {
  std::vector<std::string> hosts;    // compared: in the probe and in the model
  std::vector<std::string> missing;  // probe hosts the model does not know
  int64_t bytes = 0;
  double scale = 0;
  double spearman = 0;
  std::vector<PairComparison> pairs;  // every compared pair, most disagreeing first
  std::vector<SuspectLink> suspects;  // with routes only, most suspect first (at most 10)
};

struct ValidationInput {
  const collectors::PlogpProbe* probe = nullptr;
  int64_t bytes = -1;  // one of probe->sizes; -1: the largest
  // The model over `hosts` (the probe's hosts the model knows, in that order).
  std::vector<std::string> hosts;
  const mapping::HostCostMatrix* model = nullptr;
  const mapping::RouteSource* routes = nullptr;             // may be null
  std::function<std::string(int directed_link)> link_name;  // with routes
};

// kInvalidArgument when `bytes` is not a measured size or fewer than 2 hosts compare.
absl::StatusOr<Validation> ValidateProbe(const ValidationInput& input);

// The probe's one-way times between `hosts` (indices as in that list): per host pair x < y and
// probe size k, the smallest rtt_ns[k] / 2 over the rank pairs between the two hosts (a
// positive, finite round trip), +infinity where none was measured.
struct HostPairTimes {
  int n = 0;         // hosts
  size_t sizes = 0;  // the probe's sizes
  std::vector<double> ns;
  double At(int x, int y, size_t k) const {
    return ns[(static_cast<size_t>(x) * n + y) * sizes + k];
  }
};
HostPairTimes BestHostPairTimes(const collectors::PlogpProbe& probe,
                                const std::vector<std::string>& hosts);

// The probe's hosts that are not in `hosts`, in probe order.
std::vector<std::string> MissingHosts(const collectors::PlogpProbe& probe,
                                      const std::vector<std::string>& hosts);

// The median of `v` (the mean of the two middle values for an even count); 0 when empty.
double MedianOf(std::vector<double> v);

// Spearman's rank correlation of two equally long series (ties get their average rank);
// 0 when either is constant or shorter than 2.
double Spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_PROBE_VALIDATION_H_
