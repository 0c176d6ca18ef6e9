// The C facade of client/toporr_plan.h over Planner: converts, copies results out, and keeps
// the calling thread's last error. No exception or status crosses it.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "client/planapi/planner.h"
#include "client/toporr_plan.h"

struct toporr_planner {
  std::unique_ptr<toporr::client::planapi::Planner> planner;
};

namespace {

thread_local std::string last_error;

int Fail(const absl::Status& status) {
  last_error = std::string(status.message());
  return static_cast<int>(status.code());
}

int Fail(int code, const char* message) {
  last_error = message;
  return code;
}

void CopyText(const std::string& text, char* out, size_t size) {
  const size_t n = text.size() < size - 1 ? text.size() : size - 1;
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

}  // namespace

extern "C" {

int toporr_plan_api_version(void) { return TOPORR_PLAN_API_VERSION; }

int toporr_planner_open(const char* const* settings, int num_settings, toporr_planner** out) {
  using toporr::client::planapi::PlannerOptions;
  if (out == nullptr) return Fail(TOPORR_PLAN_INVALID_ARGUMENT, "out is NULL");
  *out = nullptr;
  if (num_settings < 0 || (num_settings > 0 && settings == nullptr)) {
    return Fail(TOPORR_PLAN_INVALID_ARGUMENT, "settings is NULL or num_settings < 0");
  }
  PlannerOptions base;
  base.client = toporr::client::ProcessClientOptions().options;
  std::vector<std::string> list;
  for (int i = 0; i < num_settings; ++i) {
    if (settings[i] == nullptr) return Fail(TOPORR_PLAN_INVALID_ARGUMENT, "a setting is NULL");
    list.emplace_back(settings[i]);
  }
  absl::StatusOr<PlannerOptions> options =
      toporr::client::planapi::ApplyPlannerSettings(std::move(base), list);
  if (!options.ok()) return Fail(options.status());
  auto planner = toporr::client::planapi::Planner::Create(*std::move(options));
  if (!planner.ok()) return Fail(planner.status());
  *out = new toporr_planner{*std::move(planner)};
  return TOPORR_PLAN_OK;
}

void toporr_planner_close(toporr_planner* planner) { delete planner; }

const char* toporr_planner_source(const toporr_planner* planner) {
  return planner == nullptr ? "" : planner->planner->source().c_str();
}

int toporr_plan_cost(toporr_planner* planner, const char* host_a, const char* host_b,
                     double* latency_ns, double* bottleneck_gbps) {
  if (planner == nullptr || host_a == nullptr || host_b == nullptr) {
    return Fail(TOPORR_PLAN_INVALID_ARGUMENT, "planner or host is NULL");
  }
  auto cost = planner->planner->Cost(host_a, host_b);
  if (!cost.ok()) return Fail(cost.status());
  if (latency_ns != nullptr) *latency_ns = cost->latency_ns;
  if (bottleneck_gbps != nullptr) *bottleneck_gbps = cost->bottleneck_gbps;
  return TOPORR_PLAN_OK;
}

int toporr_plan_path(toporr_planner* planner, const char* host_a, const char* host_b, char** json) {
  if (planner == nullptr || host_a == nullptr || host_b == nullptr || json == nullptr) {
    return Fail(TOPORR_PLAN_INVALID_ARGUMENT, "planner, host or json is NULL");
  }
  *json = nullptr;
  auto text = planner->planner->PathJson(host_a, host_b);
  if (!text.ok()) return Fail(text.status());
  *json = static_cast<char*>(std::malloc(text->size() + 1));
  if (*json == nullptr) return Fail(TOPORR_PLAN_DATA_LOSS, "out of memory");
  std::memcpy(*json, text->c_str(), text->size() + 1);
  return TOPORR_PLAN_OK;
}

void toporr_plan_free(void* p) { std::free(p); }

int toporr_plan_order(toporr_planner* planner, const char* const* rank_hosts, int num_ranks,
                      const char* collective, const char* algorithm, int64_t message_bytes,
                      int root, int32_t* order, toporr_plan_info* info) {
  if (planner == nullptr || rank_hosts == nullptr || order == nullptr || collective == nullptr) {
    return Fail(TOPORR_PLAN_INVALID_ARGUMENT, "planner, rank_hosts, collective or order is NULL");
  }
  toporr::client::planapi::OrderRequest request;
  for (int i = 0; i < num_ranks; ++i) {
    if (rank_hosts[i] == nullptr) return Fail(TOPORR_PLAN_INVALID_ARGUMENT, "a host is NULL");
    request.rank_hosts.emplace_back(rank_hosts[i]);
  }
  request.collective = collective;
  request.algorithm = algorithm == nullptr ? "" : algorithm;
  request.message_bytes = message_bytes;
  request.root = root;
  auto planned = planner->planner->Order(request);
  if (!planned.ok()) return Fail(planned.status());
  std::memcpy(order, planned->order.data(), planned->order.size() * sizeof(int32_t));
  if (info != nullptr) {
    CopyText(planned->algorithm, info->algorithm, sizeof(info->algorithm));
    CopyText(planned->source, info->source, sizeof(info->source));
    info->snapshot_id = planned->snapshot_id;
    info->reordered = planned->reordered ? 1 : 0;
    info->launch_ns = planned->launch_ns;
    info->planned_ns = planned->planned_ns;
    info->leaf_sorted_ns = planned->leaf_sorted_ns;
  }
  return TOPORR_PLAN_OK;
}

int toporr_plan_new_rank(const int32_t* order, int num_ranks, int launch_rank) {
  if (order == nullptr) return -1;
  for (int r = 0; r < num_ranks; ++r) {
    if (order[r] == launch_rank) return r;
  }
  return -1;
}

int toporr_plan_disabled(void) {
  return toporr::client::ProcessClientOptions().options.disable ? 1 : 0;
}

int toporr_plan_record_fallback(toporr_planner* planner, int code, const char* reason) {
  if (planner == nullptr || reason == nullptr) {
    return Fail(TOPORR_PLAN_INVALID_ARGUMENT, "planner or reason is NULL");
  }
  if (code <= 0 || code > 16) {
    return Fail(TOPORR_PLAN_INVALID_ARGUMENT, "code: a status code of toporr_plan.h (1 to 16)");
  }
  planner->planner->RecordFallback(absl::Status(static_cast<absl::StatusCode>(code), reason));
  return TOPORR_PLAN_OK;
}

int toporr_plan_report_job(toporr_planner* planner) {
  if (planner == nullptr) return Fail(TOPORR_PLAN_INVALID_ARGUMENT, "planner is NULL");
  const absl::Status sent = planner->planner->SendJobReport();
  return sent.ok() ? TOPORR_PLAN_OK : Fail(sent);
}

const char* toporr_plan_last_error(void) { return last_error.c_str(); }

}  // extern "C"
