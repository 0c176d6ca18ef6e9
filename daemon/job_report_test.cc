// Topology.ReportJob against the daemon's own server (real gRPC over its Unix socket): jobs'
// summaries reach the metrics text of GetStats and `toporrctl stats`, the per-caller rate
// limit answers RESOURCE_EXHAUSTED, and bad input INVALID_ARGUMENT naming the field.
#include <memory>
#include <string>

#include "common/status_matchers.h"
#include "daemon/testing/server_fixture.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::testing {
namespace {

using ::testing::HasSubstr;

class JobReportTest : public ServerFixture {
 protected:
  std::unique_ptr<v1::Topology::Stub> Stub() {
    return v1::Topology::NewStub(
        grpc::CreateChannel("unix:" + socket_path(), grpc::InsecureChannelCredentials()));
  }
  grpc::Status Report(v1::Topology::Stub* stub, const v1::ReportJobRequest& job) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::ReportJobResponse resp;
    return stub->ReportJob(&ctx, job, &resp);
  }
  std::string MetricsText(v1::Topology::Stub* stub) {
    grpc::ClientContext ctx;
    v1::GetStatsResponse resp;
    grpc::Status s = stub->GetStats(&ctx, v1::GetStatsRequest(), &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp.metrics_text();
  }
};

v1::ReportJobRequest Job() {
  v1::ReportJobRequest job;
  auto* d = job.add_decisions();
  d->set_collective("allreduce");
  d->set_source("daemon");
  d->set_count(4);
  d = job.add_decisions();
  d->set_collective("bcast");
  d->set_source("fallback");
  d->set_count(1);
  auto* f = job.add_fallbacks();
  f->set_cause("snapshot_mismatch");
  f->set_count(1);
  job.set_verified_library(1);
  job.add_gains()->set_predicted(1.1);
  return job;
}

TEST_F(JobReportTest, SummariesReachTheMetricsWithFixedLabels) {
  ASSERT_OK(StartServer());
  auto stub = Stub();
  ASSERT_TRUE(Report(stub.get(), Job()).ok());
  v1::ReportJobRequest odd = Job();
  odd.mutable_fallbacks(0)->set_cause("a cause nobody knows");
  ASSERT_TRUE(Report(stub.get(), odd).ok());
  const std::string text = MetricsText(stub.get());
  EXPECT_THAT(text, HasSubstr("toporr_job_reports_total 2\n"));
  EXPECT_THAT(
      text,
      HasSubstr("toporr_job_decisions_total{collective=\"allreduce\",source=\"daemon\"} 8\n"));
  EXPECT_THAT(
      text, HasSubstr("toporr_job_decisions_total{collective=\"bcast\",source=\"fallback\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_fallbacks_total{cause=\"snapshot_mismatch\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_fallbacks_total{cause=\"other\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_verified_total{verdict=\"library\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_gain_ratio_count{kind=\"predicted\"} 2\n"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("nobody knows")));
  // The same text through toporrctl stats.
  RunResult r = Ctl({"stats", "--prometheus"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("toporr_job_fallbacks_total{cause=\"snapshot_mismatch\"} 1"));
  r = Ctl({"stats"});  // the table for humans
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out,
              ::testing::ContainsRegex("toporr_job_fallbacks_total +cause=snapshot_mismatch +1"));
}

TEST_F(JobReportTest, TheRateLimitIsTheConfigurations) {
  ASSERT_OK(StartServer("job_reports_burst = 3\njob_reports_per_minute = 1\n"));
  auto stub = Stub();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Report(stub.get(), Job()).ok()) << i;
  const grpc::Status refused = Report(stub.get(), Job());
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), HasSubstr("faster than 1 per minute (burst 3"));
  EXPECT_THAT(refused.error_message(), HasSubstr("job_reports_per_minute"));
}

TEST_F(JobReportTest, ACallerPastItsRateIsRefused) {
  ASSERT_OK(StartServer());
  auto stub = Stub();
  // The default bucket holds 20 summaries and refills one a second: 20 pass at once, and a
  // caller sending faster than that is refused soon after.
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(Report(stub.get(), Job()).ok()) << i;
  grpc::Status refused;
  for (int i = 0; i < 40 && refused.ok(); ++i) refused = Report(stub.get(), Job());
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), HasSubstr("per minute"));
  EXPECT_THAT(
      MetricsText(stub.get()),
      ::testing::ContainsRegex("toporr_job_reports_refused_total\\{reason=\"rate_limit\"\\} "
                               "[1-9]"));
}

TEST_F(JobReportTest, OversizedInputIsRefusedNamingTheField) {
  ASSERT_OK(StartServer());
  auto stub = Stub();
  v1::ReportJobRequest job = Job();
  for (int i = 0; i < 65; ++i) job.add_fallbacks()->set_cause("timeout");
  grpc::Status s = Report(stub.get(), job);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("fallbacks"));
  job = Job();
  job.mutable_decisions(0)->set_collective(std::string(100, 'a'));
  s = Report(stub.get(), job);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("decisions[0].collective"));
  EXPECT_THAT(MetricsText(stub.get()), HasSubstr("toporr_job_reports_total 0\n"));
}

}  // namespace
}  // namespace toporr::testing
