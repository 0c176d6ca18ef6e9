#include "collectors/hosts.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "collectors/ibnetdiscover.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "fabric/fabric.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::Host;
using fabric::Node;
using fabric::NodeType;
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::toporr::testing::ReadSharedFabric;
using ::toporr::testing::StatusIs;

using GuidMap = std::unordered_map<uint64_t, std::string>;

Fabric ParseSampleOrDie(const std::string& name) {
  IbnetdiscoverOptions options;
  options.file_name = name;
  absl::StatusOr<Fabric> f = ParseIbnetdiscover(ReadSharedFabric(name), options);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? std::move(*f) : Fabric();
}

std::vector<std::string> HostNames(const Fabric& f) {
  std::vector<std::string> names;
  for (const Host& h : f.hosts) names.push_back(h.name);
  return names;
}

std::vector<std::string> Descriptions(const Fabric& f, const std::vector<int>& nodes) {
  std::vector<std::string> out;
  for (int n : nodes) out.push_back(f.nodes[n].description);
  return out;
}

TEST(HostFromDescription, RecognisedForms) {
  const HostRule rule;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"node017 mlx5_0", "node017"},
      {"a08-p1-dgx-04-c01 mlx5_5", "a08-p1-dgx-04-c01"},
      {"hostF HCA-1", "hostF"},
      {"compute-00-01 HCA-1", "compute-00-01"},
      {"r-ufm101 HCA-2", "r-ufm101"},
      {"dgx-gb200-n01-c1 HCA-1", "dgx-gb200-n01-c1"},
      {"cn12 mlx4_1", "cn12"},
      {"cn12 mlx5_bond_0", "cn12"},
      {"cn12 mthca0", "cn12"},
      {"opa001 hfi1_0", "opa001"},
      {"qlc3 qib0", "qlc3"},
      {"qlc3 qib 1", "qlc3"},
      {"qlc3 qib_1", "qlc3"},
      {"gpu7 ibp65s0", "gpu7"},
      {"gpu7 ibp0s8f1", "gpu7"},
      {"e810a irdma0", "e810a"},
      {"e810a irdma-rocep1s0f0", "e810a"},
      {"brcm1 bnxt_re0", "brcm1"},
      {"node017.cluster.local mlx5_0", "node017"},
      {"  node017 \t mlx5_0  ", "node017"},
  };
  for (const auto& [description, host] : cases) {
    EXPECT_EQ(HostFromDescription(rule, description), std::optional<std::string>(host))
        << description;
  }
}

TEST(HostFromDescription, VendorDefaultsAndOtherShapesNameNoHost) {
  const HostRule rule;
  for (const char* description : {
           "MT4129 ConnectX7   Mellanox Technologies", "MT23108 InfiniHost Mellanox Technologies",
           "Mellanox Technologies Aggregation Node", "", "   ",
           "node017",               // bare word: off by default
           "node017 mlx5_",         // no device number
           "node017 mlx6_0",        // unknown driver
           "node017 mlx5_0 port1",  // trailing words
           "node017 HCA-1x", "gw1 IB-to-IB router", "MF0;leaf01:MSX6036/U1",
           "node;017 mlx5_0",  // not a host name
           "-node mlx5_0", "node017 ibp",
           "node017 efa_0",  // not built in
       }) {
    EXPECT_EQ(HostFromDescription(rule, description), std::nullopt) << description;
  }
}

TEST(HostFromDescription, Options) {
  HostRule rule;
  rule.accept_bare_hostname = true;
  rule.strip_domain = false;
  rule.extra_hca_prefixes = {"efa_"};
  EXPECT_EQ(HostFromDescription(rule, "node017"), std::optional<std::string>("node017"));
  EXPECT_EQ(HostFromDescription(rule, "node017.cluster.local mlx5_0"),
            std::optional<std::string>("node017.cluster.local"));
  EXPECT_EQ(HostFromDescription(rule, "aws1 efa_0"), std::optional<std::string>("aws1"));
  EXPECT_EQ(HostFromDescription(rule, "aws1 efa_"), std::nullopt);
  // Markers still win over a bare-hostname rule.
  EXPECT_EQ(HostFromDescription(rule, "Mellanox Technologies"), std::nullopt);
  rule.vendor_default_markers.clear();
  EXPECT_EQ(HostFromDescription(rule, "Aggregation Node"), std::nullopt);  // not "<h> <dev>"
}

TEST(ParseHostMap, Accepts) {
  const std::string text =
      "# guid -> host\n"
      "\n"
      "0x0002c903000e0b10 alpha\n"
      "2c903000e0b21\tbeta   # port GUID, no 0x\n"
      "0x0002C903000E0B30 \"gamma\"\n"
      "0x0002c903000e0b10 alpha\n";  // repeated, same host: fine
  ASSERT_OK_AND_ASSIGN(GuidMap map, ParseHostMap(text, "hosts.map"));
  EXPECT_EQ(map.size(), 3u);
  EXPECT_EQ(map.at(0x2c903000e0b10), "alpha");
  EXPECT_EQ(map.at(0x2c903000e0b21), "beta");
  EXPECT_EQ(map.at(0x2c903000e0b30), "gamma");
  ASSERT_OK_AND_ASSIGN(GuidMap empty, ParseHostMap("", "hosts.map"));
  EXPECT_TRUE(empty.empty());
}

TEST(ParseHostMap, ErrorsNameFileAndLine) {
  auto error_of = [](const std::string& text) { return ParseHostMap(text, "hosts.map"); };
  EXPECT_THAT(error_of("# c\n0xzz12 alpha\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::AllOf(HasSubstr("hosts.map:2:"), HasSubstr("bad GUID"))));
  EXPECT_THAT(error_of("0x0002c903000e0b10123 alpha\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("hosts.map:1: bad GUID")));
  EXPECT_THAT(error_of("0x0 alpha\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("hosts.map:1:")));
  EXPECT_THAT(error_of("\n\n0x12\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::AllOf(HasSubstr("hosts.map:3:"), HasSubstr("missing host"))));
  EXPECT_THAT(error_of("0x12 two words\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::AllOf(HasSubstr("hosts.map:1:"), HasSubstr("not a host"))));
  EXPECT_THAT(error_of("0x12 alpha\n0x13 beta\n0x0012 gamma\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::AllOf(HasSubstr("hosts.map:3:"), HasSubstr("line 1"),
                                        HasSubstr("alpha"), HasSubstr("gamma"))));
}

TEST(AssignHosts, FatTree) {
  for (const char* sample :
       {"ibnetdiscover_fattree_default.txt", "ibnetdiscover_fattree_ports_p.txt"}) {
    SCOPED_TRACE(sample);
    Fabric f = ParseSampleOrDie(sample);
    ASSERT_OK(AssignHosts(HostRule(), {}, &f));
    ASSERT_EQ(f.hosts.size(), 16u);
    EXPECT_EQ(f.hosts.front().name, "node01");
    EXPECT_EQ(f.hosts.back().name, "node16");
    EXPECT_TRUE(std::is_sorted(f.hosts.begin(), f.hosts.end(),
                               [](const Host& a, const Host& b) { return a.name < b.name; }));
    EXPECT_THAT(f.anonymous_endpoints, IsEmpty());
    for (size_t h = 0; h < f.hosts.size(); ++h) {
      ASSERT_EQ(f.hosts[h].cas.size(), 1u);
      const Node& ca = f.nodes[f.hosts[h].cas[0]];
      EXPECT_EQ(ca.host, static_cast<int>(h));
      EXPECT_EQ(ca.description, f.hosts[h].name + " HCA-1");
      EXPECT_EQ(f.FindHost(f.hosts[h].name), static_cast<int>(h));
    }
    for (const Node& n : f.nodes) {
      if (n.type == NodeType::kSwitch) {
        EXPECT_EQ(n.host, -1);
      }
    }
  }
}

TEST(AssignHosts, EdgeCasesDualHomedRouterAndSharp) {
  for (const char* sample :
       {"ibnetdiscover_edgecases_default.txt", "ibnetdiscover_edgecases_ports_p.txt",
        "ibnetdiscover_edgecases_grouping_g.txt"}) {
    SCOPED_TRACE(sample);
    Fabric f = ParseSampleOrDie(sample);
    ASSERT_OK(AssignHosts(HostRule(), {}, &f));
    EXPECT_THAT(HostNames(f), ElementsAre("hostA", "hostB", "hostC", "hostD", "hostE", "hostF"));
    // hostF's CA is cabled to two switches: still one host with one CA.
    const Host& hostf = f.hosts[f.FindHost("hostF")];
    ASSERT_EQ(hostf.cas.size(), 1u);
    EXPECT_EQ(f.nodes[hostf.cas[0]].ports.size(), 2u);
    // The SHARP aggregation node and the router are neither hosts nor anonymous endpoints.
    EXPECT_THAT(f.anonymous_endpoints, IsEmpty());
    EXPECT_EQ(f.nodes[f.FindNodeByGuid(0x2c90000020cf9)].host, -1);
    EXPECT_EQ(f.nodes[f.FindNodeByGuid(0x8f10400410000)].host, -1);
  }
}

TEST(AssignHosts, RealDumps) {
  Fabric mixed = ParseSampleOrDie("ibnetdiscover_real_nvidia_loops_mixed.txt");
  ASSERT_OK(AssignHosts(HostRule(), {}, &mixed));
  EXPECT_THAT(HostNames(mixed),
              ElementsAre("r-ufm100", "r-ufm101", "r-ufm111", "r-ufm216", "r-ufm96"));
  // Multi-rail: r-ufm101 has two CAs (HCA-1 and HCA-2).
  const Host& ufm101 = mixed.hosts[mixed.FindHost("r-ufm101")];
  EXPECT_THAT(Descriptions(mixed, ufm101.cas),
              ::testing::UnorderedElementsAre("r-ufm101 HCA-1", "r-ufm101 HCA-2"));
  EXPECT_TRUE(std::is_sorted(ufm101.cas.begin(), ufm101.cas.end()));

  Fabric ibm = ParseSampleOrDie("ibnetdiscover_real_ibm_small.txt");
  ASSERT_OK(AssignHosts(HostRule(), {}, &ibm));
  EXPECT_THAT(HostNames(ibm), ElementsAre("compute-00-00", "compute-00-01"));

  Fabric chassis = ParseSampleOrDie("ibnetdiscover_chassis_grouping_g.txt");
  ASSERT_OK(AssignHosts(HostRule(), {}, &chassis));
  EXPECT_EQ(chassis.hosts.size(), 8u);

  // The 2007 man page: every CA still has its vendor default description.
  Fabric voltaire = ParseSampleOrDie("ibnetdiscover_real_manpage_voltaire_g.txt");
  ASSERT_OK(AssignHosts(HostRule(), {}, &voltaire));
  EXPECT_THAT(voltaire.hosts, IsEmpty());
  EXPECT_EQ(voltaire.anonymous_endpoints.size(), 4u);
  EXPECT_TRUE(
      std::is_sorted(voltaire.anonymous_endpoints.begin(), voltaire.anonymous_endpoints.end()));
}

TEST(AssignHosts, MapOverridesTheRule) {
  Fabric f = ParseSampleOrDie("ibnetdiscover_real_manpage_voltaire_g.txt");
  // Node GUID of one anonymous CA, port GUID (port 1) of another; a GUID not in the fabric.
  ASSERT_OK_AND_ASSIGN(GuidMap map, ParseHostMap("0x8f10403960558 oldhost1\n"
                                                 "8f10403961355 oldhost2\n"
                                                 "0x1234 elsewhere\n",
                                                 "hosts.map"));
  ASSERT_OK(AssignHosts(HostRule(), map, &f));
  EXPECT_THAT(HostNames(f), ElementsAre("oldhost1", "oldhost2"));
  EXPECT_EQ(f.anonymous_endpoints.size(), 2u);
  EXPECT_EQ(f.nodes[f.FindNodeByGuid(0x8f10403961354)].host, f.FindHost("oldhost2"));

  // A map entry beats a description that names another host; re-assigning starts afresh.
  Fabric tree = ParseSampleOrDie("ibnetdiscover_fattree_default.txt");
  ASSERT_OK(AssignHosts(HostRule(), {{0x2c903000e0b11, "node02"}}, &tree));  // node01's port
  EXPECT_EQ(tree.hosts.size(), 15u);
  EXPECT_EQ(tree.hosts[tree.FindHost("node02")].cas.size(), 2u);
  ASSERT_OK(AssignHosts(HostRule(), {}, &tree));
  EXPECT_EQ(tree.hosts.size(), 16u);
  EXPECT_EQ(tree.hosts[tree.FindHost("node02")].cas.size(), 1u);
}

TEST(AssignHosts, MapErrors) {
  Fabric f = ParseSampleOrDie("ibnetdiscover_edgecases_default.txt");
  EXPECT_THAT(AssignHosts(HostRule(), {{0x7cfe900300a1b200, "swA"}}, &f),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("switch")));
  EXPECT_THAT(AssignHosts(HostRule(), {{0x2c90000020cfa, "sharp"}}, &f),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("aggregation")));
  EXPECT_THAT(AssignHosts(HostRule(), {{0x8f10400410001, "gw"}}, &f),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("router")));
  // hostF's two ports mapped to different hosts.
  EXPECT_THAT(AssignHosts(HostRule(), {{0x2c903001f0001, "x"}, {0x2c903001f0002, "y"}}, &f),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("same CA")));
  ASSERT_OK(AssignHosts(HostRule(), {{0x2c903001f0001, "x"}, {0x2c903001f0002, "x"}}, &f));
  EXPECT_EQ(f.hosts[f.FindHost("x")].cas.size(), 1u);
}

// A map entry AssignHosts refuses is named by the map's file and line (a case
// fuzz/host_map_fuzzer found).
TEST(AssignHosts, MapErrorsNameTheMapLine) {
  Fabric f = ParseSampleOrDie("ibnetdiscover_edgecases_default.txt");
  HostMapOrigin origin;
  ASSERT_OK_AND_ASSIGN(GuidMap map, ParseHostMap("# site map\n0x2c903001f0001 x\n"
                                                 "0x7cfe900300a1b200 swA\n",
                                                 "hosts.map", &origin));
  EXPECT_THAT(AssignHosts(HostRule(), map, &f, &origin),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("hosts.map:3: names switch 0x7cfe900300a1b200")));
  ASSERT_OK_AND_ASSIGN(
      map, ParseHostMap("0x2c903001f0001 x\n0x2c903001f0002 y\n", "hosts.map", &origin));
  EXPECT_THAT(AssignHosts(HostRule(), map, &f, &origin),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("hosts.map:")));
  // Without an origin the message still says it is about the host map.
  EXPECT_THAT(AssignHosts(HostRule(), {{0x7cfe900300a1b200, "swA"}}, &f),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("host map: names switch")));
}

TEST(AssignHosts, MultiRailAndAnonymous) {
  Fabric f;
  const char* descriptions[] = {"dgx01 mlx5_3", "dgx01 mlx5_0",
                                "MT4129 ConnectX7   Mellanox Technologies", "dgx00 mlx5_0",
                                "dgx01 mlx5_1"};
  for (int i = 0; i < 5; ++i) {
    Node n;
    n.type = NodeType::kCa;
    n.guid = 0x100 + i;
    n.num_ports = 1;
    n.description = descriptions[i];
    ASSERT_OK(f.AddNode(std::move(n), nullptr));
  }
  ASSERT_OK(AssignHosts(HostRule(), {}, &f));
  EXPECT_THAT(HostNames(f), ElementsAre("dgx00", "dgx01"));
  EXPECT_THAT(f.hosts[1].cas, ElementsAre(0, 1, 4));
  EXPECT_THAT(f.anonymous_endpoints, ElementsAre(2));
  EXPECT_EQ(f.nodes[3].host, 0);
  EXPECT_EQ(f.nodes[2].host, -1);
}

}  // namespace
}  // namespace toporr::collectors
