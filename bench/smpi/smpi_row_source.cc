// The daemon source of libtoporr's SMPI build (bench/smpi/build_libtoporr_smpi.sh), which
// leaves out the gRPC one (client/costs/daemon_rows.cc) and the job report's transport
// (client/costs/job_report.cc): the costs come from the
// TOPORR_COSTS file, as in a daemon-less job. Without TOPORR_COSTS every decision falls back to the
// identity order with a reason saying so (the benchmark refuses such runs: it checks the decision
// report).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "client/costs/daemon_rows.h"
#include "client/costs/job_report.h"
#include "client/costs/row_source.h"

namespace toporr::client {
namespace {

class NoDaemonRowSource final : public RowSource {
 public:
  std::string_view kind() const override { return "daemon"; }
  absl::StatusOr<HostListTicket> Prepare(const std::vector<std::string>&) override {
    return absl::UnavailableError(
        "this SMPI build of libtoporr has no daemon source: set TOPORR_COSTS to a cost file");
  }
  absl::StatusOr<CostRow> Row(const HostListTicket&, const std::vector<std::string>&, int,
                              bool) override {
    return absl::UnavailableError("no daemon source in this build");
  }
};

}  // namespace

std::unique_ptr<RowSource> NewDaemonRowSource(const ClientOptions&) {
  return std::make_unique<NoDaemonRowSource>();
}

// No daemon ever answers in this build.
std::string LastAnsweringDaemon() { return ""; }

// The gRPC transport of job_report.h is left out with the daemon source.
absl::Status SendJobReport(const ClientOptions&, const JobSummary&) {
  return absl::UnavailableError("no daemon source in this build");
}

}  // namespace toporr::client
