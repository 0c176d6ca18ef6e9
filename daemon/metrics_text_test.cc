#include "daemon/metrics_text.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "common/status_matchers.h"
#include "daemon/testing/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::RunProcess;
using ::toporr::testing::RunResult;

std::string TempDir() {
  std::string tmpl = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
                     "/metrics.XXXXXX";
  EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `promtool check metrics` reads the exposition from stdin; exit 0 and no lint output
// means it is valid and follows Prometheus' naming conventions.
RunResult Promtool(const std::string& path) {
  return RunProcess({"/bin/sh", "-c", "/usr/bin/promtool check metrics < '" + path + "'"});
}

RpcStats::Values SomeTraffic() {
  RpcStats stats;
  stats.Record("GetCostRow", absl::StatusCode::kOk, absl::Microseconds(180));
  stats.Record("GetCostRow", absl::StatusCode::kOk, absl::Milliseconds(3));
  stats.Record("GetCostRow", absl::StatusCode::kNotFound, absl::Microseconds(50));
  stats.Record("Ingest", absl::StatusCode::kPermissionDenied, absl::Microseconds(20));
  stats.RecordIngest("ibnetdiscover", "created", absl::Milliseconds(40));
  stats.RecordIngest("lft", "refused", absl::Milliseconds(2));
  stats.RecordSweep("unchanged");
  stats.RecordPeerRefused("admin_denied");
  return stats.Snapshot();
}

TEST(MetricsText, PromtoolAcceptsItWithAndWithoutSnapshot) {
  const std::string dir = TempDir();
  ServingGauges none;
  ServingGauges some;
  some.has_snapshot = true;
  some.snapshot_id = 7;
  some.snapshot_created_unix_ms = 1'700'000'000'000;
  some.now_unix_ms = 1'700'000'090'500;
  some.hosts = 16;
  some.cache_hits = 3;
  for (const auto& [values, gauges] :
       {std::pair{RpcStats::Values(), none}, std::pair{SomeTraffic(), some}}) {
    const std::string text = RenderPrometheusText(values, gauges);
    ASSERT_OK(WriteTextfile(dir, text));
    RunResult r = Promtool(dir + "/toporrd.prom");
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err << text;
    EXPECT_EQ(r.out + r.err, "") << "lint findings";
  }
  const std::string text = ReadAll(dir + "/toporrd.prom");
  EXPECT_THAT(text, HasSubstr("toporr_rpc_requests_total{method=\"GetCostRow\",code=\"OK\"} 2\n"));
  EXPECT_THAT(text,
              HasSubstr("toporr_rpc_requests_total{method=\"GetCostRow\",code=\"NOT_FOUND\"} 1"));
  EXPECT_THAT(text,
              HasSubstr("toporr_rpc_duration_seconds_bucket{method=\"GetCostRow\",code=\"OK\","
                        "le=\"0.00025\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("toporr_rpc_duration_seconds_bucket{method=\"GetCostRow\",code=\"OK\","
                        "le=\"+Inf\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("toporr_ingests_total{format=\"lft\",result=\"refused\"} 1"));
  EXPECT_THAT(text, HasSubstr("toporr_snapshot_age_seconds 90.5\n"));
  EXPECT_THAT(text, HasSubstr("toporr_snapshot_id 7\n"));
  EXPECT_THAT(text, HasSubstr("toporr_peers_refused_total{reason=\"admin_denied\"} 1"));
  EXPECT_THAT(text, HasSubstr("toporr_reply_cache_hits_total 3\n"));
  // Atomic replacement: no temporary file is left behind, and the file is world-readable
  // for node_exporter.
  EXPECT_NE(access((dir + "/toporrd.prom.tmp").c_str(), F_OK), 0);
  struct stat st;
  ASSERT_EQ(stat((dir + "/toporrd.prom").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644);
}

TEST(MetricsText, TextfileDirectoryMissingIsAnError) {
  EXPECT_THAT(WriteTextfile("/nonexistent/dir", "x 1\n"),
              toporr::testing::StatusIs(absl::StatusCode::kUnavailable, HasSubstr("/nonexistent")));
}

}  // namespace
}  // namespace toporr::daemon
