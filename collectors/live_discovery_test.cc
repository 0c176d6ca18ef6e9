// Live discovery against the real simulator: run_ibsim.sh starts ibsim + opensm, runs the
// real ibnetdiscover and dump_fts, and then (while the subnet is still up) our toporr-discover
// binary through umad2sim. The test parses both sets of outputs with the project's parsers
// and requires the same fabric (nodes, ports, LIDs, links and rates) and the same LFT entries
// for every switch. toporr-discover runs twice, attached at different nodes, so the sweep
// meets the nodes in a different order: the written outputs must be byte-identical.
//
// The in-process tests below run without umad2sim and check the option and no-device errors.
#include "collectors/live_discovery.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "collectors/forwarding_tables.h"
#include "collectors/ibnetdiscover.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "fabric/fabric.h"
#include "fabric/fabric_compare.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::FabricDifferences;
using fabric::ForwardingTables;
using fabric::ForwardingTablesDifferences;
using fabric::NodeType;
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::toporr::testing::MakeTempDir;
using ::toporr::testing::ReadFileOrDie;
using ::toporr::testing::SharedFabric;
using ::toporr::testing::StatusIs;

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return path;
  return std::string(srcdir) + "/" + workspace + "/" + path;
}

int RunShell(const std::string& cmd, const std::string& log) {
  const int rc = std::system((cmd + " >" + log + " 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

struct LiveCase {
  std::string name;
  std::string gen_args;  // gen_fattree.py arguments, or empty for a shared .net file
  std::string shared_file;
  std::string run_args;     // run_ibsim.sh options
  std::string second_host;  // node the second discovery attaches at (SIM_HOST)
};

class LiveDiscoveryTest : public ::testing::TestWithParam<LiveCase> {};

TEST_P(LiveDiscoveryTest, EqualsIbnetdiscoverAndDumpFts) {
  const LiveCase& c = GetParam();
  const std::string dir = MakeTempDir("live_" + c.name);
  const std::string scripts = Runfile("collectors/sim");
  const std::string discover = Runfile("collectors/toporr-discover");
  const std::string net = c.shared_file.empty() ? dir + "/fabric.net" : SharedFabric(c.shared_file);
  if (!c.gen_args.empty()) {
    ASSERT_EQ(
        RunShell("/usr/bin/python3 " + scripts + "/gen_fattree.py " + c.gen_args + " --out " + net,
                 dir + "/gen.log"),
        0)
        << ReadFileOrDie(dir + "/gen.log");
  }
  // Run 1 attaches where opensm does; run 2 at another node, with SIM_HOST overridden for
  // that process only. The summary run reports SMPs and time.
  const std::string out = dir + "/out";
  const std::string script =
      discover + " --probe-pause-us 0 --output live.txt --lfts live_lfts.txt && SIM_HOST='" +
      c.second_host + "' " + discover +
      " --probe-pause-us 0 --output live2.txt --lfts live_lfts2.txt && " + discover +
      " --probe-pause-us 0 --format summary --lfts /dev/null";
  ASSERT_EQ(RunShell("/bin/bash " + scripts + "/run_ibsim.sh " + net + " " + out + " " +
                         c.run_args + " -- /bin/sh -c \"" + script + "\"",
                     dir + "/run.log"),
            0)
      << ReadFileOrDie(dir + "/run.log");
  std::cout << ReadFileOrDie(dir + "/run.log") << ReadFileOrDie(out + "/command.out");

  ASSERT_OK_AND_ASSIGN(Fabric tool, ParseIbnetdiscover(ReadFileOrDie(out + "/ibnetdiscover.txt"),
                                                       {out + "/ibnetdiscover.txt"}));
  ASSERT_OK_AND_ASSIGN(Fabric live,
                       ParseIbnetdiscover(ReadFileOrDie(out + "/live.txt"), {out + "/live.txt"}));
  EXPECT_THAT(FabricDifferences(tool, live), IsEmpty());
  EXPECT_EQ(live.nodes.size(), tool.nodes.size());
  EXPECT_EQ(live.links.size(), tool.links.size());

  ASSERT_OK_AND_ASSIGN(
      ForwardingTables tool_lfts,
      ParseForwardingTables(ReadFileOrDie(out + "/dump_fts.txt"), {out + "/dump_fts.txt"}));
  ASSERT_OK_AND_ASSIGN(
      ForwardingTables live_lfts,
      ParseForwardingTables(ReadFileOrDie(out + "/live_lfts.txt"), {out + "/live_lfts.txt"}));
  EXPECT_THAT(ForwardingTablesDifferences(tool_lfts, live_lfts), IsEmpty());
  EXPECT_EQ(live_lfts.switches().size(), tool.CountNodes(NodeType::kSwitch));

  // Canonical order: nodes ascending by GUID, tables too.
  for (size_t i = 1; i < live.nodes.size(); ++i) {
    EXPECT_LT(live.nodes[i - 1].guid, live.nodes[i].guid) << i;
  }
  for (size_t i = 1; i < live_lfts.switches().size(); ++i) {
    EXPECT_LT(live_lfts.switches()[i - 1].guid, live_lfts.switches()[i].guid) << i;
  }
  // Independent of where the sweep starts.
  EXPECT_EQ(ReadFileOrDie(out + "/live2.txt"), ReadFileOrDie(out + "/live.txt"));
  EXPECT_EQ(ReadFileOrDie(out + "/live_lfts2.txt"), ReadFileOrDie(out + "/live_lfts.txt"));

  const std::string summary = ReadFileOrDie(out + "/command.out");
  EXPECT_THAT(summary, HasSubstr("nodes " + std::to_string(tool.nodes.size()) + " "));
  EXPECT_THAT(summary, HasSubstr("links " + std::to_string(tool.links.size()) + "\n"));
}

INSTANTIATE_TEST_SUITE_P(
    Fabrics, LiveDiscoveryTest,
    ::testing::Values(LiveCase{"SharedFattree2lvl", "", "ibsim_fattree_2lvl.net", "", "node09"},
                      // Dual-homed host, router, SHARP aggregation node, host links
                      // 4xHDR/4xEDR/1xFDR/ 12xQDR/4xDDR, EDR between switches, up/down routing.
                      LiveCase{
                          "Fattree2l8hDualhomedRouterSharpMixedSpeeds",
                          "--hosts 8 --hosts-per-leaf 4 --leaf-uplinks 2 --spines 2 --dual-homed 1 "
                          "--routers 1 --sharp-nodes 1 --host-speeds HDR,EDR,FDR,QDR,DDR "
                          "--host-widths 4x,4x,1x,12x --uplink-speed EDR --hca-ports 2",
                          "", "--routing-engine updn", "node00006"},
                      LiveCase{"SharedFattree2lvlLmc2Updn", "", "ibsim_fattree_2lvl.net",
                               "--lmc 2 --routing-engine updn", "node16"},
                      LiveCase{"SharedEdgecases", "", "ibsim_edgecases.net", "", "hostE"}),
    [](const ::testing::TestParamInfo<LiveCase>& info) { return info.param.name; });

TEST(DiscoverFabric, RefusesBadOptions) {
  LiveDiscoveryOptions o;
  o.max_hops = 64;
  EXPECT_THAT(DiscoverFabric(o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("max_hops")));
  o = LiveDiscoveryOptions();
  o.timeout_ms = 0;
  EXPECT_THAT(DiscoverFabric(o), StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  o = LiveDiscoveryOptions();
  o.ca_port = 255;
  EXPECT_THAT(DiscoverFabric(o), StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
}

TEST(DiscoverFabric, SaysWhenThereIsNoInfinibandDevice) {
  struct stat st;
  if (stat("/sys/class/infiniband", &st) == 0) GTEST_SKIP() << "this machine has IB devices";
  EXPECT_THAT(DiscoverFabric({}),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("no InfiniBand device found")));
}

}  // namespace
}  // namespace toporr::collectors
