#include "client/costs/job_report.h"

#include <unistd.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::client {
namespace {

// A Topology server that keeps the summaries it is sent (the daemon's side is tested in
// //daemon:job_report_test).
class Recorder final : public v1::Topology::Service {
 public:
  grpc::Status ReportJob(grpc::ServerContext*, const v1::ReportJobRequest* req,
                         v1::ReportJobResponse*) override {
    std::lock_guard<std::mutex> lock(mu);
    last = *req;
    ++calls;
    return refuse ? grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "slow down")
                  : grpc::Status::OK;
  }
  std::mutex mu;
  v1::ReportJobRequest last;
  int calls = 0;
  bool refuse = false;
};

std::string SocketPath(const char* name) {
  return absl::StrCat("/tmp/toporr-job-report-", getpid(), "-", name, ".sock");
}

TEST(JobFallbackCauseTest, MapsStatusesToTheFixedCauses) {
  EXPECT_EQ(JobFallbackCause(absl::CancelledError("disabled by TOPORR_DISABLE")), "disabled");
  EXPECT_EQ(
      JobFallbackCause(absl::UnavailableError("/run/toporr/toporrd.sock: Connection refused")),
      "no_daemon");
  EXPECT_EQ(JobFallbackCause(absl::DeadlineExceededError("no answer in 2000 ms")), "timeout");
  EXPECT_EQ(JobFallbackCause(absl::UnavailableError("TLS: certificate has expired")), "tls");
  EXPECT_EQ(JobFallbackCause(absl::NotFoundError("host \"n9\" is not in snapshot 4")),
            "unknown_host");
  EXPECT_EQ(JobFallbackCause(absl::AbortedError("the row of n2 came from snapshot 5, not 4")),
            "snapshot_mismatch");
  EXPECT_EQ(JobFallbackCause(absl::AbortedError(
                "the row of n2 came from another toporrd than the row of n1; not mixing them")),
            "snapshot_mismatch");
  EXPECT_EQ(JobFallbackCause(absl::InternalError("the ranks' outcomes disagree")), "disagreement");
  EXPECT_EQ(JobFallbackCause(absl::InternalError("MPI_Bcast failed: MPI_ERR_COMM")), "mpi_error");
  EXPECT_EQ(JobFallbackCause(absl::UnavailableError("hwloc: no topology")), "other");
  EXPECT_EQ(JobFallbackCause(absl::InvalidArgumentError("whatever")), "other");
}

TEST(SendJobReportTest, SendsTheSummaryBounded) {
  Recorder recorder;
  const std::string path = SocketPath("ok");
  unlink(path.c_str());
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix:" + path, grpc::InsecureServerCredentials());
  builder.RegisterService(&recorder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ClientOptions options;
  options.socket = path;
  JobSummary summary;
  summary.decisions[{"allreduce", "daemon"}] = 3;
  summary.fallbacks["timeout"] = 1;
  summary.verified_library = 2;
  for (int i = 0; i < 100; ++i) summary.AddGain(1.5, 2000);
  ASSERT_OK(SendJobReport(options, summary));
  {
    std::lock_guard<std::mutex> lock(recorder.mu);
    ASSERT_EQ(recorder.calls, 1);
    ASSERT_EQ(recorder.last.decisions_size(), 1);
    EXPECT_EQ(recorder.last.decisions(0).collective(), "allreduce");
    EXPECT_EQ(recorder.last.decisions(0).source(), "daemon");
    EXPECT_EQ(recorder.last.decisions(0).count(), 3);
    EXPECT_EQ(recorder.last.fallbacks(0).cause(), "timeout");
    EXPECT_EQ(recorder.last.verified_library(), 2);
    EXPECT_EQ(recorder.last.gains_size(), kJobReportMaxEntries);
    EXPECT_EQ(recorder.last.gains(0).measured(), 1000);  // clamped to the daemon's bound
    recorder.refuse = true;
  }
  EXPECT_THAT(SendJobReport(options, summary),
              toporr::testing::StatusIs(absl::StatusCode::kResourceExhausted,
                                        ::testing::HasSubstr("slow down")));
  server->Shutdown();
  unlink(path.c_str());
}

TEST(SendJobReportTest, GivesUpWithinItsDeadline) {
  ClientOptions options;
  // A TCP port on a blackholed TEST-NET address would hang the connection until the deadline;
  // loopback with nothing listening is refused at once. Both must return in time.
  options.address = "192.0.2.1:7575";
  options.insecure = true;
  options.deadline_ms = 5000;
  JobSummary summary;
  summary.decisions[{"bcast", "fallback"}] = 1;
  const auto start = std::chrono::steady_clock::now();
  absl::Status s = SendJobReport(options, summary);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  EXPECT_FALSE(s.ok());
  EXPECT_LT(ms, kJobReportDeadlineMs + 400) << s;
  options.address.clear();
  options.socket = SocketPath("absent");
  EXPECT_FALSE(SendJobReport(options, summary).ok());
}

}  // namespace
}  // namespace toporr::client
