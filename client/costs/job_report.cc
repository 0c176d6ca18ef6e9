#include "client/costs/job_report.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "client/costs/daemon_channel.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::client {

absl::Status SendJobReport(const ClientOptions& options, const JobSummary& summary) {
  v1::ReportJobRequest req;
  for (const auto& [key, n] : summary.decisions) {
    if (req.decisions_size() == kJobReportMaxEntries) break;
    v1::JobDecisionCount* d = req.add_decisions();
    d->set_collective(key.first.substr(0, 64));
    d->set_source(key.second.substr(0, 64));
    d->set_count(n);
  }
  for (const auto& [cause, n] : summary.fallbacks) {
    if (req.fallbacks_size() == kJobReportMaxEntries) break;
    v1::JobFallbackCount* f = req.add_fallbacks();
    f->set_cause(cause.substr(0, 64));
    f->set_count(n);
  }
  req.set_verified_toporr(summary.verified_toporr);
  req.set_verified_library(summary.verified_library);
  for (const auto& [predicted, measured] : summary.gains) {
    v1::JobGainSample* g = req.add_gains();
    g->set_predicted(std::clamp(predicted, 0.0, 1000.0));
    g->set_measured(std::clamp(measured, 0.0, 1000.0));
  }

  const auto deadline =
      std::chrono::system_clock::now() +
      std::chrono::milliseconds(std::min(options.deadline_ms, kJobReportDeadlineMs));
  absl::StatusOr<std::vector<DaemonEndpoint>> endpoints =
      DaemonEndpoints(DaemonEndpoint::Of(options));
  if (!endpoints.ok()) return endpoints.status();
  absl::Status last = absl::UnavailableError("no daemon configured");
  for (const DaemonEndpoint& endpoint : *endpoints) {
    if (std::chrono::system_clock::now() >= deadline) break;
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = NewDaemonChannel(endpoint);
    if (!channel.ok()) {
      last = channel.status();
      continue;
    }
    grpc::ClientContext context;
    context.set_deadline(deadline);
    v1::ReportJobResponse resp;
    grpc::Status s = v1::Topology::NewStub(*channel)->ReportJob(&context, req, &resp);
    if (s.ok()) return absl::OkStatus();
    last = absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                        absl::StrCat(endpoint.Describe(), ": ", s.error_message()));
    // The daemon answered: another would count the same job under another caller.
    if (s.error_code() != grpc::StatusCode::UNAVAILABLE &&
        s.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) {
      break;
    }
  }
  return last;
}

}  // namespace toporr::client
