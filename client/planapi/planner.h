// The planner behind libtoporr_plan.so (client/toporr_plan.h): rank orders, costs and paths
// for programs that are not MPI jobs, from the daemon (as libtoporr reaches it), a fabric dump
// or a TOPORRC cost file. The orders are `toporrctl plan`'s for the same request: the same
// planner (client/plan/plan.h) on the same costs, fetched the same way (with the routes of
// the daemon's forwarding tables for up to kMaxRouteHosts hosts).
//
// Thread-safe: every method is const over an immutable configuration, gRPC channels made once
// at Create (gRPC channels may be shared between threads), the standby list's failover state
// and the job summary, each under its own lock.
#ifndef TOPORR_CLIENT_PLANAPI_PLANNER_H_
#define TOPORR_CLIENT_PLANAPI_PLANNER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "client/config/client_options.h"
#include "client/costs/job_costs.h"
#include "client/costs/job_report.h"

namespace toporr::client::planapi {

// GetCostMatrix's limit for routes (toporr.proto): larger jobs model the hosts' own links.
inline constexpr size_t kMaxRouteHosts = 1024;

struct PlannerOptions {
  ClientOptions client;       // the daemon and how to reach it; `costs_path` wins over it
  CostSourceOptions offline;  // fabric_path set: plan on that dump, never ask the daemon
};

// `base` with "key=value" settings applied: client.conf's keys (ApplyClientSetting) and
// `fabric` / `format` (the dump and its format). kInvalidArgument naming the setting and
// what a good value is.
absl::StatusOr<PlannerOptions> ApplyPlannerSettings(PlannerOptions base,
                                                    const std::vector<std::string>& settings);

struct OrderRequest {
  std::vector<std::string> rank_hosts;  // launch rank i runs on rank_hosts[i]
  std::string collective = "allreduce";
  std::string algorithm;  // empty or "auto": best predicted
  int64_t message_bytes = 1 << 20;
  int root = 0;
};

struct RankOrder {
  std::vector<int32_t> order;  // order[new rank] = launch rank
  std::string algorithm;
  std::string source;
  int64_t snapshot_id = 0;
  bool reordered = false;
  double launch_ns = 0, planned_ns = 0, leaf_sorted_ns = 0;
};

struct PairCost {
  double latency_ns = 0;
  double bottleneck_gbps = 0;
};

class Planner {
 public:
  // kFailedPrecondition / kNotFound when the daemon's channel cannot be made (plaintext to a
  // remote address, unreadable TLS files); nothing is contacted.
  static absl::StatusOr<std::unique_ptr<Planner>> Create(PlannerOptions options);

  // "toporrd at /run/toporr/toporrd.sock", "fabric f.topo", "cost file c.bin".
  const std::string& source() const { return source_; }

  // kInvalidArgument for an empty host list, an unknown collective or algorithm, a root out
  // of range; kNotFound for a host the costs do not know; the daemon's errors with its reason.
  // On the daemon's costs, each answer counts as a decision of (collective, "daemon") with
  // its predicted gain (launch / planned) and each failure as a fallback by its cause
  // (JobFallbackCause) in the job summary SendJobReport sends.
  absl::StatusOr<RankOrder> Order(const OrderRequest& request) const;

  // A fallback of the caller's own (its processes kept their launch order for `why`), counted
  // in the job summary by JobFallbackCause(why).
  void RecordFallback(const absl::Status& why) const;

  // Sends the job summary recorded since the last report that went through to the daemon
  // (client/costs/job_report.h: one call, at most min(deadline_ms, 500 ms), no retry) and
  // clears it. OK with nothing sent when the planner is offline, nothing was recorded or the
  // configuration says job_metrics = false; else SendJobReport's failure, the summary kept.
  absl::Status SendJobReport() const;

  absl::StatusOr<PairCost> Cost(const std::string& a, const std::string& b) const;

  // toporr_plan.h's JSON of the path between two hosts (the daemon's GetPath, or the dump's
  // shortest path offline).
  absl::StatusOr<std::string> PathJson(const std::string& a, const std::string& b) const;

 private:
  explicit Planner(PlannerOptions options) : options_(std::move(options)) {}
  absl::StatusOr<JobCosts> CostsFor(const std::vector<std::string>& hosts,
                                    int64_t* snapshot_id) const;
  absl::StatusOr<RankOrder> Planned(const OrderRequest& request) const;

  PlannerOptions options_;
  std::string source_;
  class Daemon;
  std::shared_ptr<Daemon> daemon_;  // null offline
  mutable std::mutex summary_mu_;
  mutable JobSummary summary_ ABSL_GUARDED_BY(summary_mu_);
};

}  // namespace toporr::client::planapi

#endif  // TOPORR_CLIENT_PLANAPI_PLANNER_H_
