#include "client/report/decision_report.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client {
namespace {

using ::testing::HasSubstr;

TEST(DecisionReportTest, TheDaemonThatAnsweredIsNamedAndNullOtherwise) {
  Decision d;
  d.collective = "allreduce";
  d.algorithm = "auto";
  d.size = 4;
  d.hosts = 2;
  d.source = "daemon";
  d.daemon_address = "mgmt02:7575";
  d.snapshot_id = 3;
  EXPECT_THAT(DecisionJsonLine(d),
              HasSubstr("\"source\":\"daemon\",\"fallback_reason\":null,"
                        "\"daemon_address\":\"mgmt02:7575\",\"snapshot_id\":3,"));
  d.source = "fallback";
  d.daemon_address.clear();
  d.fallback_reason = "none of the 2 toporrd addresses answered";
  EXPECT_THAT(DecisionJsonLine(d), HasSubstr("\"daemon_address\":null,"));
}

}  // namespace
}  // namespace toporr::client
