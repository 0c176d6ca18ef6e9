#include "scheduler/slurm/job_environment.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::scheduler::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// "NAME[,NAME]=VALUE" or "...!" when it overwrites, one string per setting.
std::vector<std::string> Text(const std::vector<EnvironmentSetting>& settings) {
  std::vector<std::string> out;
  for (const EnvironmentSetting& s : settings) {
    std::string names;
    for (const std::string& n : s.names) names += (names.empty() ? "" : ",") + n;
    out.push_back(names + "=" + s.value + (s.overwrite ? "!" : ""));
  }
  return out;
}

JobSetting Parse(const std::string& text) {
  std::string error;
  std::optional<JobSetting> s = ParseJobSetting(text, &error);
  EXPECT_TRUE(s.has_value()) << error;
  return s.value_or(JobSetting{});
}

TEST(ParseJobSetting, AutoOffAndReport) {
  EXPECT_TRUE(Parse("auto").enabled);
  EXPECT_FALSE(Parse("off").enabled);
  JobSetting r = Parse("report=/scratch/%j/toporr.jsonl");
  EXPECT_TRUE(r.enabled);
  EXPECT_EQ(r.report, "/scratch/%j/toporr.jsonl");
  EXPECT_EQ(Parse("report=a%%b").report, "a%%b");
}

TEST(ParseJobSetting, BadValuesNameTheForms) {
  for (const char* bad : {"", "on", "Auto", "report", "report=", "report=x%d", "report=x%",
                          "report=a\nb", "report=a\x1b[2Jb", "report=a\x7f"}) {
    std::string error;
    EXPECT_FALSE(ParseJobSetting(bad, &error).has_value()) << bad;
    EXPECT_FALSE(error.empty());
  }
  std::string error;
  EXPECT_FALSE(ParseJobSetting("report=" + std::string(4097, 'x'), &error).has_value());
  EXPECT_THAT(error, HasSubstr("more than 4096"));
  EXPECT_TRUE(ParseJobSetting("report=" + std::string(4096, 'x'), &error).has_value());
  ParseJobSetting("bogus", &error);
  EXPECT_EQ(error, "'bogus': expected auto, off or report=FILE");
  ParseJobSetting("report=x%d", &error);
  EXPECT_THAT(error, HasSubstr("'%' is followed by j (the job id) or %"));
}

TEST(ParsePluginArguments, DefaultAndPriority) {
  std::string error;
  auto args =
      ParsePluginArguments({"default=report=/var/log/toporr/%j", "coll_priority=45"}, &error);
  ASSERT_TRUE(args.has_value()) << error;
  ASSERT_TRUE(args->site_default.has_value());
  EXPECT_EQ(args->site_default->report, "/var/log/toporr/%j");
  EXPECT_EQ(args->coll_priority, 45);
  args = ParsePluginArguments({}, &error);
  ASSERT_TRUE(args.has_value());
  EXPECT_FALSE(args->site_default.has_value());
  EXPECT_FALSE(args->coll_priority.has_value());
}

TEST(ParsePluginArguments, BadArgumentsAreNamed) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"default=sometimes"}, "default=sometimes: 'sometimes': expected auto, off"},
      {{"default"}, "unknown plugin argument 'default'"},
      {{"coll_priority=101"}, "coll_priority=N with N in 0..100"},
      {{"coll_priority=4x"}, "coll_priority=N"},
      {{"coll_priority="}, "coll_priority=N"},
      {{"default=off", "default=auto"}, "default given twice"},
      {{"verbose=1"}, "unknown plugin argument 'verbose=1'"},
  };
  for (const auto& [args, message] : bad) {
    std::string error;
    EXPECT_FALSE(ParsePluginArguments(args, &error).has_value()) << args[0];
    EXPECT_THAT(error, HasSubstr(message));
  }
}

TEST(JobEnvironment, OptionOverwritesAndSetsEveryWayIn) {
  const PluginArguments site{std::nullopt, 45};
  EXPECT_THAT(
      Text(JobEnvironment(Parse("off"), true, site, 7)),
      ElementsAre("TOPORR_DISABLE,OMPI_MCA_coll_toporr_disable,OMPI_MCA_topo_toporr_disable=1!"));
  EXPECT_THAT(
      Text(JobEnvironment(Parse("report=r-%j-%%.jsonl"), true, site, 1234)),
      ElementsAre(
          "TOPORR_DISABLE,OMPI_MCA_coll_toporr_disable,OMPI_MCA_topo_toporr_disable=0!",
          "TOPORR_REPORT,OMPI_MCA_coll_toporr_report,OMPI_MCA_topo_toporr_report=r-1234-%.jsonl!",
          "OMPI_MCA_coll_toporr_priority=45"));
}

TEST(JobEnvironment, WithoutAJobIdTheReportFileStaysAsGiven) {
  EXPECT_THAT(
      Text(JobEnvironment(Parse("report=r-%j-%%.jsonl"), true, PluginArguments{}, std::nullopt)),
      ElementsAre(
          "TOPORR_DISABLE,OMPI_MCA_coll_toporr_disable,OMPI_MCA_topo_toporr_disable=0!",
          "TOPORR_REPORT,OMPI_MCA_coll_toporr_report,OMPI_MCA_topo_toporr_report=r-%j-%%.jsonl!"));
}

TEST(JobEnvironment, SiteDefaultNeverOverwrites) {
  EXPECT_THAT(
      Text(JobEnvironment(Parse("auto"), false, PluginArguments{}, 7)),
      ElementsAre("TOPORR_DISABLE,OMPI_MCA_coll_toporr_disable,OMPI_MCA_topo_toporr_disable=0"));
}

}  // namespace
}  // namespace toporr::scheduler::slurm
