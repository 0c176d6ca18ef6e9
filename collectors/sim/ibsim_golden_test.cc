// Golden tests against the real tools: each case generates (or takes from ../shared) an ibsim
// .net file, runs ibsim + opensm + ibnetdiscover through run_ibsim.sh into its own temp dir
// (own IBSIM_SOCKNAME), parses the dumps with the project's parser and checks them against
// the .net file's ground truth (collectors/sim/ibsim_net.h): the same switches, CAs, routers
// and aggregation nodes (GUID, description, ports, vendor/device ids), the same cables
// (both ends' GUID and port) with the widths and speeds ibsim makes active, LIDs from the
// SM with the requested LMC, and the hosts named by the CA descriptions.
#include <sys/wait.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "collectors/hosts.h"
#include "collectors/ibnetdiscover.h"
#include "collectors/sim/ibsim_net.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "fabric/fabric.h"
#include "gtest/gtest.h"

namespace toporr::collectors::sim {

using fabric::Fabric;
using fabric::FormatGuid;
using fabric::Host;
using fabric::Link;
using fabric::LinkSpeed;
using fabric::LinkSpeedName;
using fabric::Node;
using fabric::NodeType;
using fabric::Port;
namespace {

using ::toporr::testing::MakeTempDir;
using ::toporr::testing::ReadFileOrDie;
using ::toporr::testing::SharedFabric;

struct GoldenCase {
  std::string name;         // test name: the fabric's shape
  std::string gen_args;     // generator arguments, or empty for a shared file
  std::string shared_file;  // ../shared/fabrics/<file> when gen_args is empty
  std::string run_args;     // extra run_ibsim.sh arguments
  int lmc = 0;
  std::string generator = "gen_fattree.py";  // or gen_direct.py (torus, dragonfly)
};

std::string ScriptDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return "collectors/sim";
  return std::string(srcdir) + "/" + workspace + "/collectors/sim";
}

// Runs `cmd` through the shell with its output in `log`; returns the exit status.
int RunShell(const std::string& cmd, const std::string& log) {
  int rc = std::system((cmd + " >" + log + " 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

// A cable as both sources can name it: GUIDs and port numbers of both ends (smaller end
// first), width and speed.
using Cable = std::tuple<uint64_t, int, uint64_t, int, int, std::string>;

Cable MakeCable(uint64_t ga, int pa, uint64_t gb, int pb, int width, LinkSpeed speed) {
  if (std::make_pair(gb, pb) < std::make_pair(ga, pa)) {
    std::swap(ga, gb);
    std::swap(pa, pb);
  }
  return {ga, pa, gb, pb, width, LinkSpeedName(speed)};
}

std::string Describe(const Cable& c) {
  std::ostringstream s;
  s << FormatGuid(std::get<0>(c)) << "[" << std::get<1>(c) << "] - " << FormatGuid(std::get<2>(c))
    << "[" << std::get<3>(c) << "] " << std::get<4>(c) << "x" << std::get<5>(c);
  return s.str();
}

std::multiset<Cable> CablesOf(const Fabric& f) {
  std::multiset<Cable> out;
  for (const Link& l : f.links) {
    out.insert(MakeCable(f.nodes[l.a.node].guid, l.a.port, f.nodes[l.b.node].guid, l.b.port,
                         l.width_lanes, l.speed));
  }
  return out;
}

std::multiset<Cable> CablesOf(const IbsimNet& net) {
  std::multiset<Cable> out;
  for (const IbsimLink& l : net.links) {
    out.insert(MakeCable(net.nodes[l.node_a].guid, l.port_a, net.nodes[l.node_b].guid, l.port_b,
                         l.width_lanes, l.speed));
  }
  return out;
}

// Lists what one side has and the other lacks, so a failure names the cables.
void ExpectSameCables(const std::multiset<Cable>& want, const std::multiset<Cable>& got,
                      const std::string& what) {
  std::vector<std::string> missing, extra;
  for (const Cable& c : want)
    if (got.count(c) < want.count(c)) missing.push_back(Describe(c));
  for (const Cable& c : got)
    if (want.count(c) < got.count(c)) extra.push_back(Describe(c));
  EXPECT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < missing.size() && i < 10; ++i)
    ADD_FAILURE() << what << " lacks " << missing[i];
  for (size_t i = 0; i < extra.size() && i < 10; ++i)
    ADD_FAILURE() << what << " has extra " << extra[i];
}

NodeType ExpectedType(const IbsimNode& n) {
  if (n.type == NodeType::kCa && n.num_ports == 1 &&
      n.description.find("Aggregation Node") != std::string::npos) {
    return NodeType::kAggregation;
  }
  return n.type;
}

class IbsimGoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(IbsimGoldenTest, ToolsOutputMatchesNetFile) {
  const GoldenCase& c = GetParam();
  const std::string dir = MakeTempDir("golden_" + c.name);
  const std::string scripts = ScriptDir();
  std::string net_path = c.shared_file.empty() ? dir + "/fabric.net" : SharedFabric(c.shared_file);
  if (!c.gen_args.empty()) {
    ASSERT_EQ(RunShell("/usr/bin/python3 " + scripts + "/" + c.generator + " " + c.gen_args +
                           " --out " + net_path,
                       dir + "/gen.log"),
              0)
        << ReadFileOrDie(dir + "/gen.log");
  }
  const std::string out = dir + "/out";
  ASSERT_EQ(
      RunShell("/bin/bash " + scripts + "/run_ibsim.sh " + net_path + " " + out + " " + c.run_args,
               dir + "/run.log"),
      0)
      << ReadFileOrDie(dir + "/run.log");
  std::cout << ReadFileOrDie(dir + "/run.log");

  ASSERT_OK_AND_ASSIGN(IbsimNet net, ParseIbsimNet(ReadFileOrDie(net_path), net_path));
  ASSERT_OK_AND_ASSIGN(Fabric fabric, ParseIbnetdiscover(ReadFileOrDie(out + "/ibnetdiscover.txt"),
                                                         {out + "/ibnetdiscover.txt"}));
  ASSERT_OK(AssignHosts(HostRule{}, {}, &fabric));

  // Nodes: the same set, each with the .net file's identity.
  EXPECT_EQ(fabric.nodes.size(), net.nodes.size());
  for (const IbsimNode& want : net.nodes) {
    int i = fabric.FindNodeByGuid(want.guid);
    ASSERT_GE(i, 0) << "ibnetdiscover lacks \"" << want.id << "\" " << FormatGuid(want.guid);
    const Node& got = fabric.nodes[i];
    EXPECT_EQ(got.type, ExpectedType(want)) << want.id;
    EXPECT_EQ(got.description, want.description) << want.id;
    EXPECT_EQ(got.num_ports, want.num_ports) << want.id;
    EXPECT_EQ(got.vendor_id, want.vendor_id) << want.id;
    EXPECT_EQ(got.device_id, want.device_id) << want.id;
    EXPECT_EQ(got.system_image_guid, want.system_image_guid) << want.id;
    EXPECT_EQ(got.enhanced_port0, want.type == NodeType::kSwitch && want.enhanced_port0) << want.id;
    // Every cabled port is known, with ibsim's port GUID and an SM-assigned LID.
    for (const IbsimPort& p : want.ports) {
      const Port* port = got.FindPort(p.number);
      ASSERT_NE(port, nullptr) << want.id << "[" << p.number << "]";
      EXPECT_EQ(port->guid, want.PortGuid(p.number)) << want.id << "[" << p.number << "]";
      EXPECT_NE(port->lid, 0u) << want.id << "[" << p.number << "]";
      if (want.type != NodeType::kSwitch) {
        EXPECT_EQ(port->lmc, c.lmc) << want.id << "[" << p.number << "]";
      }
    }
  }

  // Cables, from the topology file and from the -p report.
  const std::multiset<Cable> want_cables = CablesOf(net);
  ExpectSameCables(want_cables, CablesOf(fabric), "ibnetdiscover");
  ASSERT_OK_AND_ASSIGN(Fabric ports_report,
                       ParseIbnetdiscover(ReadFileOrDie(out + "/ibnetdiscover_p.txt"),
                                          {out + "/ibnetdiscover_p.txt"}));
  ExpectSameCables(want_cables, CablesOf(ports_report), "ibnetdiscover -p");
  EXPECT_EQ(ports_report.nodes.size(), net.nodes.size());

  // LIDs: an SM ran, so every CA/router port owns 2^LMC distinct LIDs and switches one.
  std::map<uint32_t, std::string> owner;
  for (const Node& n : fabric.nodes) {
    for (const Port& p : n.ports) {
      if (n.type == NodeType::kSwitch && &p != &n.ports.front()) continue;
      uint32_t count = n.type == NodeType::kSwitch ? 1u : 1u << p.lmc;
      for (uint32_t l = p.lid; l < p.lid + count; ++l) {
        auto [it, fresh] = owner.emplace(l, n.description);
        EXPECT_TRUE(fresh) << "LID " << l << " of " << n.description << " also owned by "
                           << it->second;
      }
    }
  }

  // Hosts: a CA whose description is "<its .net id> <device>" names that host.
  std::set<std::string> want_hosts, got_hosts;
  for (const IbsimNode& n : net.nodes) {
    if (n.type == NodeType::kCa && n.description.rfind(n.id + " ", 0) == 0) {
      want_hosts.insert(n.id);
    }
  }
  for (const Host& h : fabric.hosts) {
    got_hosts.insert(h.name);
    EXPECT_EQ(h.cas.size(), 1u) << h.name;
  }
  EXPECT_EQ(got_hosts, want_hosts);
  EXPECT_TRUE(fabric.anonymous_endpoints.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Fabrics, IbsimGoldenTest,
    ::testing::Values(
        GoldenCase{"Fattree2l16h", "--hosts 16 --hosts-per-leaf 4 --leaf-uplinks 4 --spines 2", "",
                   ""},
        // Dual-homed host, router, SHARP node, host links 4xHDR/4xEDR/1xFDR/12xQDR/4xDDR, EDR
        // between switches, routed up/down.
        GoldenCase{"Fattree2l8hDualhomedRouterSharpMixedSpeeds",
                   "--hosts 8 --hosts-per-leaf 4 --leaf-uplinks 2 --spines 2 --dual-homed 1 "
                   "--routers 1 --sharp-nodes 1 --host-speeds HDR,EDR,FDR,QDR,DDR "
                   "--host-widths 4x,4x,1x,12x --uplink-speed EDR --hca-ports 2",
                   "", "--routing-engine updn"},
        GoldenCase{"Fattree3l32hLmc1",
                   "--levels 3 --hosts 32 --hosts-per-leaf 4 --leaf-uplinks 2 "
                   "--leaves-per-pod 2 --radix 8",
                   "", "--lmc 1", 1},
        GoldenCase{"Fattree3l64hFtree",
                   "--levels 3 --hosts 64 --hosts-per-leaf 8 --leaves-per-pod 4 "
                   "--leaf-uplinks 4 --radix 8 --uplink-speed FDR --host-speeds EDR",
                   "", "--routing-engine ftree"},
        GoldenCase{"SharedFattree2lvlLmc2Updn", "", "ibsim_fattree_2lvl.net",
                   "--lmc 2 --routing-engine updn", 2},
        GoldenCase{"SharedEdgecases", "", "ibsim_edgecases.net", ""},
        // Direct networks: a 4x4x2 torus routed in dimension order, a dragonfly of
        // 5 groups x 2 switches routed up/down.
        GoldenCase{"Torus4x4x2Dor", "--shape torus --dims 4x4x2 --hosts-per-switch 2", "",
                   "--routing-engine dor", 0, "gen_direct.py"},
        GoldenCase{"Dragonfly5gUpdn",
                   "--shape dragonfly --groups 5 --switches-per-group 2 --global-per-switch 2 "
                   "--hosts-per-switch 2 --link-speed EDR",
                   "", "--routing-engine updn", 0, "gen_direct.py"}),
    [](const ::testing::TestParamInfo<GoldenCase>& info) { return info.param.name; });

}  // namespace
}  // namespace toporr::collectors::sim
