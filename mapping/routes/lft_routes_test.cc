// LFT walks on real tool outputs: ibnetdiscover + dump_fts / opensm-lfts.dump of the same
// ibsim fabric, checked against the ibtracert traces taken on it.
#include "mapping/routes/lft_routes.h"

#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_replace.h"
#include "collectors/forwarding_tables.h"
#include "collectors/hosts.h"
#include "collectors/ibnetdiscover.h"
#include "collectors/ibtracert.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapping/costs/host_costs.h"
#include "mapping/routes/trace_check.h"

namespace toporr::mapping {
namespace {

using fabric::Fabric;
using fabric::ForwardingTables;
using fabric::Trace;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::toporr::testing::ReadFileOrDie;
using ::toporr::testing::ReadSharedFabric;
using ::toporr::testing::StatusIs;

constexpr uint64_t kLeaf01 = 0x0002c90200500000;
constexpr uint64_t kLeaf04 = 0x0002c90200500300;
constexpr uint64_t kSpine02 = 0x0002c90200400100;

Fabric LoadFabric(const std::string& name) {
  auto f = collectors::ParseIbnetdiscover(ReadSharedFabric(name), {name});
  EXPECT_OK(f);
  if (!f.ok()) return Fabric();
  EXPECT_OK(collectors::AssignHosts(collectors::HostRule(), {}, &*f));
  return *std::move(f);
}

ForwardingTables LoadTables(const std::string& text, const std::string& name) {
  auto t = collectors::ParseForwardingTables(text, {name});
  EXPECT_OK(t);
  return t.ok() ? *std::move(t) : ForwardingTables();
}

ForwardingTables SharedTables(const std::string& name) {
  return LoadTables(ReadSharedFabric(name), name);
}

std::vector<Trace> Traces(const std::string& name) {
  auto t = collectors::ParseIbtracert(ReadSharedFabric(name), {name});
  EXPECT_OK(t);
  return t.ok() ? *std::move(t) : std::vector<Trace>();
}

struct FatTree {
  Fabric fabric = LoadFabric("ibnetdiscover_fattree_default.txt");
  ForwardingTables tables = SharedTables("dump_fts_fattree.txt");
  int Host(const std::string& name) const { return fabric.FindHost(name); }
};

TEST(LftRoutesTest, FatTreeTracesAgreeWithTheWalk) {
  FatTree ft;
  ASSERT_OK_AND_ASSIGN(auto routes, LftRoutes::Create(ft.fabric, ft.tables));
  for (const char* file :
       {"ibtracert_fattree_interleaf.txt", "ibtracert_fattree_intraleaf.txt",
        "ibtracert_fattree_ca_to_switch.txt", "ibtracert_fattree_from_hca_port2.txt",
        "ibtracert_fattree_by_guid_G.txt", "ibtracert_fattree_simple_n.txt"}) {
    SCOPED_TRACE(file);
    std::vector<Trace> traces = Traces(file);
    ASSERT_THAT(traces, SizeIs(1));
    EXPECT_THAT(CompareTrace(*routes, traces[0]), IsEmpty());
  }
}

TEST(LftRoutesTest, OpenSmDumpGivesTheSameWalk) {
  FatTree ft;
  ForwardingTables osm = LoadTables(
      ReadFileOrDie("collectors/testdata/opensm-lfts_fattree-2l-16h.dump"), "opensm-lfts.dump");
  ASSERT_OK_AND_ASSIGN(auto routes, LftRoutes::Create(ft.fabric, std::move(osm)));
  EXPECT_THAT(CompareTrace(*routes, Traces("ibtracert_fattree_interleaf.txt")[0]), IsEmpty());
}

TEST(LftRoutesTest, EdgecaseTracesAgreeWithTheWalk) {
  Fabric f = LoadFabric("ibnetdiscover_edgecases_default.txt");
  ASSERT_OK_AND_ASSIGN(auto routes, LftRoutes::Create(f, SharedTables("dump_fts_edgecases.txt")));
  for (const char* file :
       {"ibtracert_edgecases_to_ca_port2.txt", "ibtracert_edgecases_to_router.txt"}) {
    SCOPED_TRACE(file);
    std::vector<Trace> traces = Traces(file);
    ASSERT_THAT(traces, SizeIs(1));
    EXPECT_THAT(CompareTrace(*routes, traces[0]), IsEmpty());
  }
  // ibroute of one switch is enough to walk routes that stay on it.
  ASSERT_OK_AND_ASSIGN(ForwardingTables swa, collectors::ParseForwardingTables(
                                                 ReadSharedFabric("ibroute_edgecases_swA.txt")));
  LftRoutesOptions o;
  o.check_routes = false;  // swB's table is missing
  ASSERT_OK_AND_ASSIGN(auto one, LftRoutes::Create(f, std::move(swa), o));
  ASSERT_OK_AND_ASSIGN(LftRoute r, one->HostRoute(f.FindHost("hostA"), f.FindHost("hostB")));
  EXPECT_EQ(r.switches, 1);
  EXPECT_OK(one->HostRoute(f.FindHost("hostA"), f.FindHost("hostF")));  // port 1 is on swA
  EXPECT_THAT(CompareTrace(*one, Traces("ibtracert_edgecases_to_ca_port2.txt")[0]),
              ElementsAre(AllOf(HasSubstr("the LFT walk fails"), HasSubstr("ISR9024D Voltaire"),
                                HasSubstr("no forwarding table"))));
}

// The LMC 2 traces: four DLIDs of node15's range take different spines; the tables are
// OpenSM's own dump of that run (up/down routing).
TEST(LftRoutesTest, LmcMultipathTracesAgreeForEachPathIndex) {
  Fabric f = LoadFabric("ibnetdiscover_fattree_lmc2.txt");
  ForwardingTables osm =
      LoadTables(ReadFileOrDie("collectors/testdata/opensm-lfts_fattree-2l-16h_lmc2_updn.dump"),
                 "opensm-lfts.dump");
  ASSERT_OK_AND_ASSIGN(auto routes, LftRoutes::Create(f, osm));
  std::vector<Trace> traces = Traces("ibtracert_fattree_lmc2_multipath.txt");
  ASSERT_THAT(traces, SizeIs(4));
  const int node02 = f.FindHost("node02"), node15 = f.FindHost("node15");
  for (int k = 0; k < 4; ++k) {
    SCOPED_TRACE(k);
    EXPECT_THAT(CompareTrace(*routes, traces[k], 76 + k), IsEmpty());
    // The same through the host API with path_index k.
    LftRoutesOptions o;
    o.path_index = k;
    ASSERT_OK_AND_ASSIGN(auto pk, LftRoutes::Create(f, osm, o));
    ASSERT_OK_AND_ASSIGN(LftRoute r, pk->HostRoute(node02, node15));
    EXPECT_EQ(r.dlid, 76u + k);
    ASSERT_THAT(r.hops, SizeIs(5));
    EXPECT_EQ(r.hops[1].out_port, traces[k].hops[1].out_port);
  }
  // Without the DLID, the base LID's route is checked: trace 2 (DLID 77) went by spine01.
  EXPECT_THAT(CompareTrace(*routes, traces[1]),
              ElementsAre(AllOf(HasSubstr("hop 2"), HasSubstr("by port 10"),
                                HasSubstr("LID 76 by port 11"))));
  LftRoutesOptions bad;
  bad.path_index = 4;
  EXPECT_THAT(LftRoutes::Create(f, osm, bad).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("LMC range")));
}

TEST(LftRoutesTest, AlteredTableDisagreesWithTrace) {
  FatTree ft;
  // leaf01 sends node15 (LID 23) up port 10 (spine01) instead of 11 (spine02).
  ASSERT_EQ(ft.tables.FindTable(kLeaf01)->OutPort(23), 11);
  ASSERT_OK(ft.tables.SetOutPort(kLeaf01, 23, 10));
  ASSERT_OK_AND_ASSIGN(auto routes, LftRoutes::Create(ft.fabric, ft.tables));
  std::vector<std::string> d = CompareTrace(*routes, Traces("ibtracert_fattree_interleaf.txt")[0]);
  EXPECT_THAT(d, ElementsAre(AllOf(HasSubstr("hop 2"), HasSubstr("MF0;leaf01:MSX6036/U1"),
                                   HasSubstr("by port 11"), HasSubstr("LID 23 by port 10"))));
  // Same switches, other spine.
  ASSERT_OK_AND_ASSIGN(LftRoute r, routes->HostRoute(ft.Host("node02"), ft.Host("node15")));
  EXPECT_EQ(r.switches, 3);
  EXPECT_EQ(ft.fabric.nodes[r.hops[2].node].description, "MF0;spine01:MSX6036/U1");
}

TEST(LftRoutesTest, RouteShapeHopsAndBottleneck) {
  FatTree ft;
  ASSERT_OK_AND_ASSIGN(auto routes, LftRoutes::Create(ft.fabric, ft.tables));
  ASSERT_OK_AND_ASSIGN(LftRoute r, routes->HostRoute(ft.Host("node02"), ft.Host("node15")));
  EXPECT_EQ(r.dlid, 23u);
  EXPECT_EQ(r.switches, 3);
  EXPECT_DOUBLE_EQ(r.bottleneck_gbps, 32.0);  // 4x QDR
  ASSERT_THAT(r.hops, SizeIs(5));
  ASSERT_THAT(r.directed_links, SizeIs(4));
  EXPECT_EQ(ft.fabric.nodes[r.hops[0].node].description, "node02 HCA-1");
  EXPECT_EQ(r.hops[0].in_port, -1);
  EXPECT_EQ(r.hops[0].out_port, 1);
  EXPECT_EQ(r.hops[1].in_port, 2);  // leaf01 [2] -> [11]
  EXPECT_EQ(r.hops[1].out_port, 11);
  EXPECT_EQ(r.hops[4].in_port, 1);
  EXPECT_EQ(r.hops[4].out_port, -1);
  // Directed links follow the hops.
  for (size_t i = 0; i < r.directed_links.size(); ++i) {
    const fabric::Link& l = ft.fabric.links[r.directed_links[i] / 2];
    const fabric::LinkEnd& from = r.directed_links[i] % 2 == 0 ? l.a : l.b;
    EXPECT_EQ(from.node, r.hops[i].node);
    EXPECT_EQ(from.port, r.hops[i].out_port);
  }
  // To a switch (ibtracert 10 7) and from a switch.
  const int leaf04 = ft.fabric.FindNodeByGuid(kLeaf04);
  ASSERT_OK_AND_ASSIGN(LftRoute to_sw,
                       routes->PortRoute(routes->HostPort(ft.Host("node02")), {leaf04, 0}));
  EXPECT_EQ(to_sw.dlid, 7u);
  EXPECT_EQ(to_sw.switches, 3);
  EXPECT_EQ(to_sw.hops.back().node, leaf04);
  ASSERT_OK_AND_ASSIGN(LftRoute from_sw, routes->RouteToLid({leaf04, 0}, 10));
  EXPECT_EQ(from_sw.switches, 3);
  EXPECT_EQ(from_sw.hops[0].in_port, -1);
  // Same host: empty.
  ASSERT_OK_AND_ASSIGN(LftRoute self, routes->HostRoute(3, 3));
  EXPECT_THAT(self.hops, IsEmpty());
  EXPECT_THAT(routes->RouteToLid({0, 1}, 0).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a unicast LID")));
  EXPECT_THAT(routes->RouteToLid(routes->HostPort(0), 200).status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("owns LID 200")));
}

// Minhop LFTs route over shortest paths: every pair has the switch count and bottleneck the
// graph model (mapping/costs/host_costs.h) computes.
TEST(LftRoutesTest, MinhopRoutesAreShortest) {
  FatTree ft;
  ASSERT_OK_AND_ASSIGN(auto routes, LftRoutes::Create(ft.fabric, ft.tables));
  ASSERT_OK_AND_ASSIGN(auto costs, HostCosts::Create(ft.fabric));
  ASSERT_EQ(routes->num_hosts(), 16);
  for (int a = 0; a < 16; ++a) {
    for (int b = 0; b < 16; ++b) {
      if (a == b) continue;
      ASSERT_OK_AND_ASSIGN(LftRoute r, routes->HostRoute(a, b));
      EXPECT_EQ(r.switches, costs->Cost(a, b).hops) << a << " -> " << b;
      EXPECT_DOUBLE_EQ(r.bottleneck_gbps, costs->Cost(a, b).bottleneck_gbps);
    }
  }
}

TEST(LftRoutesTest, RouteSourceContract) {
  FatTree ft;
  ASSERT_OK_AND_ASSIGN(auto routes, LftRoutes::Create(ft.fabric, ft.tables));
  EXPECT_EQ(routes->num_directed_links(), 2 * static_cast<int>(ft.fabric.links.size()));
  for (int l = 0; l < routes->num_directed_links(); ++l) EXPECT_GT(routes->link_gbps(l), 0);
  std::vector<int32_t> links = {99};
  routes->Route(4, 4, &links);
  EXPECT_THAT(links, IsEmpty());
  for (int a = 0; a < 16; ++a) {
    for (int b = 0; b < 16; ++b) {
      if (a == b) continue;
      routes->Route(a, b, &links);
      ASSERT_OK_AND_ASSIGN(LftRoute r, routes->HostRoute(a, b));
      EXPECT_EQ(links, r.directed_links);
      EXPECT_FALSE(links.empty());
    }
  }
  const int n02 = ft.Host("node02"), n15 = ft.Host("node15");
  ASSERT_OK_AND_ASSIGN(auto job, routes->ForJob({n15, n02}));
  job->Route(1, 0, &links);
  ASSERT_OK_AND_ASSIGN(LftRoute r, routes->HostRoute(n02, n15));
  EXPECT_EQ(links, r.directed_links);
  EXPECT_THAT(routes->ForJob({n02, n02}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("twice")));
  EXPECT_THAT(routes->ForJob({16}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("out of range")));
}

// The streamed all-pairs count equals the sum over explicitly listed pairs.
void ExpectAllPairsSharingMatchesPairs(const LftRoutes& routes) {
  std::vector<std::pair<int, int>> pairs;
  int64_t total_links = 0;
  for (int a = 0; a < routes.num_hosts(); ++a) {
    for (int b = 0; b < routes.num_hosts(); ++b) {
      if (a == b || routes.HostPort(a).node < 0 || routes.HostPort(b).node < 0) continue;
      pairs.emplace_back(a, b);
      ASSERT_OK_AND_ASSIGN(LftRoute r, routes.HostRoute(a, b));
      total_links += static_cast<int64_t>(r.directed_links.size());
    }
  }
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> listed, routes.LinkSharing(pairs));
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> all, routes.AllPairsLinkSharing());
  EXPECT_EQ(all, listed);
  EXPECT_EQ(std::accumulate(all.begin(), all.end(), int64_t{0}), total_links);
}

TEST(LftRoutesTest, LinkSharing) {
  FatTree ft;
  ASSERT_OK_AND_ASSIGN(auto routes, LftRoutes::Create(ft.fabric, ft.tables));
  ExpectAllPairsSharingMatchesPairs(*routes);
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> all, routes->AllPairsLinkSharing());
  // Every host cable carries 15 routes each way.
  for (int h = 0; h < 16; ++h) {
    const PortRef p = routes->HostPort(h);
    const int link = ft.fabric.nodes[p.node].FindPort(p.port)->link;
    EXPECT_EQ(all[2 * link] + all[2 * link + 1], 30) << ft.fabric.hosts[h].name;
  }
  // Two pairs over one leaf01 uplink: node02->node15 and node03->node15 (both up port 11).
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> two,
                       routes->LinkSharing({{ft.Host("node02"), ft.Host("node15")},
                                            {ft.Host("node03"), ft.Host("node15")},
                                            {ft.Host("node04"), ft.Host("node04")}}));
  EXPECT_EQ(*std::max_element(two.begin(), two.end()), 2);
  EXPECT_EQ(std::accumulate(two.begin(), two.end(), int64_t{0}), 8);

  // LMC path 1 of the LMC 2 fabric and the edge-case fabric.
  Fabric lmc = LoadFabric("ibnetdiscover_fattree_lmc2.txt");
  LftRoutesOptions o;
  o.path_index = 1;
  ASSERT_OK_AND_ASSIGN(
      auto lmc_routes,
      LftRoutes::Create(
          lmc,
          LoadTables(ReadFileOrDie("collectors/testdata/opensm-lfts_fattree-2l-16h_lmc2_updn.dump"),
                     "lmc2"),
          o));
  ExpectAllPairsSharingMatchesPairs(*lmc_routes);
  Fabric edge = LoadFabric("ibnetdiscover_edgecases_default.txt");
  ASSERT_OK_AND_ASSIGN(auto edge_routes,
                       LftRoutes::Create(edge, SharedTables("dump_fts_edgecases.txt")));
  ExpectAllPairsSharingMatchesPairs(*edge_routes);
}

TEST(LftRoutesTest, DeadEndsAndLoopsNameSwitchAndLid) {
  FatTree ft;
  const int n02 = ft.Host("node02"), n15 = ft.Host("node15");
  LftRoutesOptions keep;
  keep.check_routes = false;
  struct Case {
    uint64_t sw;
    uint8_t port;
    const char* what;
  };
  for (const Case& c :
       {Case{kLeaf01, 6, "forwards LID 23 to port 6, which is not connected"},
        Case{kLeaf01, ForwardingTables::kUnsetPort, "has no forwarding entry for LID 23"},
        Case{kLeaf04, 9, "routing loop: LID 23 is not delivered after 64 switches"},
        Case{kLeaf04, 1, "which does not own LID 23"},
        Case{kLeaf04, 0, "to itself (port 0), but LID 23 is not the switch's"}}) {
    SCOPED_TRACE(c.what);
    ForwardingTables t = ft.tables;
    ASSERT_OK(t.SetOutPort(c.sw, 23, c.port));
    EXPECT_THAT(LftRoutes::Create(ft.fabric, t).status(),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(c.what)));
    ASSERT_OK_AND_ASSIGN(auto routes, LftRoutes::Create(ft.fabric, t, keep));
    EXPECT_THAT(routes->HostRoute(n02, n15).status(),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         AllOf(HasSubstr(c.what), HasSubstr("MF0;leaf0"))));
    std::vector<int32_t> links;
    routes->Route(n02, n15, &links);
    EXPECT_THAT(links, IsEmpty());
    EXPECT_THAT(routes->ForJob({n02, n15}).status(),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(c.what)));
    EXPECT_THAT(routes->AllPairsLinkSharing().status(),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("LID 23")));
    EXPECT_THAT(CompareTrace(*routes, Traces("ibtracert_fattree_interleaf.txt")[0]),
                ElementsAre(HasSubstr(c.what)));
  }
  // A switch missing from the dump.
  ForwardingTables partial;
  for (const auto& s : ft.tables.switches()) {
    if (s.guid == kSpine02) continue;
    *partial.Add(s.guid) = s;
  }
  EXPECT_THAT(LftRoutes::Create(ft.fabric, partial).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("MF0;spine02:MSX6036/U1"),
                             HasSubstr("has no forwarding table in the dump"))));
}

TEST(LftRoutesTest, DumpAndFabricMustAgreeOnLids) {
  FatTree ft;
  // The dump says LID 10 is node03's port: the two were taken at different times.
  std::string text =
      absl::StrReplaceAll(ReadSharedFabric("dump_fts_fattree.txt"),
                          {{"0x000a 010 : (Channel Adapter portguid 0x0002c903000e0b21",
                            "0x000a 010 : (Channel Adapter portguid 0x0002c903000e0b31"}});
  EXPECT_THAT(LftRoutes::Create(ft.fabric, LoadTables(text, "stale")).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("disagree on LID 10"), HasSubstr("node02 HCA-1"))));
}

}  // namespace
}  // namespace toporr::mapping
