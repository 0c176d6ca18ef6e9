#include "daemon/job_metrics.h"

#include <string>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::toporr::testing::StatusIs;

v1::ReportJobRequest Job() {
  v1::ReportJobRequest job;
  auto* d = job.add_decisions();
  d->set_collective("allreduce");
  d->set_source("daemon");
  d->set_count(3);
  d = job.add_decisions();
  d->set_collective("bcast");
  d->set_source("fallback");
  d->set_count(1);
  auto* f = job.add_fallbacks();
  f->set_cause("no_daemon");
  f->set_count(1);
  job.set_verified_toporr(2);
  job.set_verified_library(1);
  auto* g = job.add_gains();
  g->set_predicted(1.3);
  g->set_measured(0.9);
  return job;
}

JobMetrics::Options FakeClock(absl::Time* now) {
  JobMetrics::Options o;
  o.burst = 2;
  o.per_minute = 6;  // one token per 10 s
  o.now = [now] { return *now; };
  return o;
}

TEST(JobMetricsTest, AggregatesIntoFixedLabelSets) {
  absl::Time now = absl::FromUnixSeconds(1000);
  JobMetrics m(FakeClock(&now));
  ASSERT_OK(m.Record("uid 1000", Job()));
  v1::ReportJobRequest odd;
  auto* d = odd.add_decisions();
  d->set_collective("frobnicate");
  d->set_source("carrier pigeon");
  d->set_count(5);
  auto* f = odd.add_fallbacks();
  f->set_cause("cosmic rays");
  f->set_count(2);
  ASSERT_OK(m.Record("uid 1001", odd));
  ASSERT_OK(m.Record("uid 1001", Job()));
  std::string text;
  m.AppendPrometheusText(&text);
  EXPECT_THAT(text, HasSubstr("toporr_job_reports_total 3\n"));
  EXPECT_THAT(
      text,
      HasSubstr("toporr_job_decisions_total{collective=\"allreduce\",source=\"daemon\"} 6\n"));
  EXPECT_THAT(
      text, HasSubstr("toporr_job_decisions_total{collective=\"bcast\",source=\"fallback\"} 2\n"));
  EXPECT_THAT(text,
              HasSubstr("toporr_job_decisions_total{collective=\"other\",source=\"other\"} 5\n"));
  EXPECT_THAT(text, Not(HasSubstr("frobnicate")));
  EXPECT_THAT(text, Not(HasSubstr("pigeon")));
  EXPECT_THAT(text, HasSubstr("toporr_job_fallbacks_total{cause=\"no_daemon\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_fallbacks_total{cause=\"other\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_fallbacks_total{cause=\"timeout\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_verified_total{verdict=\"toporr\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_verified_total{verdict=\"library\"} 2\n"));
  // 1.3 falls in le=1.5, 0.9 in le=0.95.
  EXPECT_THAT(text, HasSubstr("toporr_job_gain_ratio_bucket{kind=\"predicted\",le=\"1.2\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_gain_ratio_bucket{kind=\"predicted\",le=\"1.5\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_gain_ratio_bucket{kind=\"measured\",le=\"0.8\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_gain_ratio_bucket{kind=\"measured\",le=\"0.95\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_gain_ratio_count{kind=\"measured\"} 2\n"));
  // Every cause label is one of the fixed set.
  for (const char* cause : {"no_daemon", "timeout", "unknown_host", "snapshot_mismatch", "tls",
                            "mpi_error", "disagreement", "disabled", "other"}) {
    EXPECT_EQ(JobMetrics::CauseLabel(cause), cause);
  }
}

TEST(JobMetricsTest, RateLimitsEachCallerOnItsOwn) {
  absl::Time now = absl::FromUnixSeconds(1000);
  JobMetrics m(FakeClock(&now));
  ASSERT_OK(m.Record("uid 1000", Job()));
  ASSERT_OK(m.Record("uid 1000", Job()));
  EXPECT_THAT(m.Record("uid 1000", Job()),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("uid 1000")));
  ASSERT_OK(m.Record("uid 1001", Job()));  // another caller has its own bucket
  now += absl::Seconds(10);                // one token back
  ASSERT_OK(m.Record("uid 1000", Job()));
  EXPECT_THAT(m.Record("uid 1000", Job()),
              StatusIs(absl::StatusCode::kResourceExhausted, ::testing::_));
  std::string text;
  m.AppendPrometheusText(&text);
  EXPECT_THAT(text, HasSubstr("toporr_job_reports_total 4\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_reports_refused_total{reason=\"rate_limit\"} 2\n"));
}

TEST(JobMetricsTest, RefusesOutOfBoundsInputNamingTheField) {
  absl::Time now = absl::FromUnixSeconds(1000);
  JobMetrics m(FakeClock(&now));
  v1::ReportJobRequest job = Job();
  job.mutable_decisions(1)->set_count(-1);
  EXPECT_THAT(m.Record("u", job),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("decisions[1].count")));
  job = Job();
  job.mutable_fallbacks(0)->set_cause(std::string(65, 'x'));
  EXPECT_THAT(m.Record("u", job),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("fallbacks[0].cause")));
  job = Job();
  for (int i = 0; i < 65; ++i) job.add_gains()->set_predicted(1);
  EXPECT_THAT(m.Record("u", job), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("gains")));
  job = Job();
  job.mutable_gains(0)->set_measured(1e9);
  EXPECT_THAT(m.Record("u", job),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("gains[0].measured")));
  job = Job();
  job.set_verified_library(-3);
  EXPECT_THAT(m.Record("u", job),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("verified_library")));
  std::string text;
  m.AppendPrometheusText(&text);
  EXPECT_THAT(text, HasSubstr("toporr_job_reports_total 0\n"));
  EXPECT_THAT(text, HasSubstr("toporr_job_reports_refused_total{reason=\"invalid\"} 5\n"));
  // Refused input takes no token of the caller's bucket.
  ASSERT_OK(m.Record("u", Job()));
  ASSERT_OK(m.Record("u", Job()));
}

}  // namespace
}  // namespace toporr::daemon
