#include "fabric/fabric_diff.h"

#include <cstdio>
#include <string>
#include <string_view>

#include "collectors/forwarding_tables.h"
#include "collectors/hosts.h"
#include "collectors/ibnetdiscover.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "fabric/fabric.h"
#include "fabric/fabric_diff_report.h"
#include "fabric/forwarding_tables.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::fabric {
namespace {

using collectors::AssignHosts;
using collectors::HostRule;
using collectors::ParseForwardingTables;
using collectors::ParseIbnetdiscover;

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::toporr::testing::ReadSharedFabric;

// The shared 2-level fat tree (ibsim + opensm): 2 spines, 4 leaves, 16 hosts, node16 with
// both ports on leaf04, two parallel cables per leaf-spine pair, all 4xQDR.
constexpr char kFatTree[] = "ibnetdiscover_fattree_default.txt";
constexpr char kFatTreeLfts[] = "dump_fts_fattree.txt";
constexpr uint64_t kSpine01 = 0x0002c90200400000;
constexpr uint64_t kSpine02 = 0x0002c90200400100;
constexpr uint64_t kLeaf02 = 0x0002c90200500100;
constexpr uint64_t kLeaf03 = 0x0002c90200500200;
constexpr uint64_t kLeaf04 = 0x0002c90200500300;
constexpr uint64_t kNode05Ca = 0x0002c903000e0b50;
constexpr uint64_t kNode15Ca = 0x0002c903000e0bf0;

Fabric ParseWithHosts(const std::string& text) {
  absl::StatusOr<Fabric> f = ParseIbnetdiscover(text);
  EXPECT_OK(f.status());
  if (!f.ok()) return Fabric();
  EXPECT_OK(AssignHosts(HostRule(), {}, &*f));
  return *std::move(f);
}

ForwardingTables ParseLfts(const std::string& text) {
  absl::StatusOr<ForwardingTables> t = ParseForwardingTables(text);
  EXPECT_OK(t.status());
  return t.ok() ? *std::move(t) : ForwardingTables();
}

// Text edits on a dump. Each names its target line by a substring that must occur in
// exactly one line, so an edit that silently misses fails the test instead.
size_t LineWith(const std::string& text, std::string_view needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  EXPECT_EQ(text.find(needle, at + 1), std::string::npos) << "ambiguous: " << needle;
  if (at == std::string::npos) return 0;
  const size_t begin = text.rfind('\n', at);
  return begin == std::string::npos ? 0 : begin + 1;
}

size_t LineEnd(const std::string& text, size_t begin) {
  const size_t nl = text.find('\n', begin);
  return nl == std::string::npos ? text.size() : nl + 1;
}

std::string RemoveLine(std::string text, std::string_view needle) {
  const size_t begin = LineWith(text, needle);
  text.erase(begin, LineEnd(text, begin) - begin);
  return text;
}

std::string EditLine(std::string text, std::string_view needle, std::string_view from,
                     std::string_view to) {
  const size_t begin = LineWith(text, needle);
  const size_t at = text.find(from, begin);
  EXPECT_LT(at, LineEnd(text, begin)) << from << " not on the line with " << needle;
  text.replace(at, from.size(), to);
  return text;
}

std::string InsertAfterLine(std::string text, std::string_view needle, std::string_view line) {
  const size_t begin = LineWith(text, needle);
  text.insert(LineEnd(text, begin), std::string(line) + "\n");
  return text;
}

// Removes a whole record: from the line holding `first` up to the next blank line.
std::string RemoveRecord(std::string text, std::string_view first) {
  const size_t begin = LineWith(text, first);
  const size_t blank = text.find("\n\n", begin);
  text.erase(begin, (blank == std::string::npos ? text.size() : blank + 2) - begin);
  return text;
}

// The out port of `lid` on `switch_guid` in a dump_fts text, replaced.
std::string EditLft(std::string text, uint64_t switch_guid, std::string_view lid_field,
                    std::string_view from_port, std::string_view to_port) {
  char header[64];
  std::snprintf(header, sizeof(header), "guid 0x%016llx (", (unsigned long long)switch_guid);
  const size_t block = LineWith(text, header);
  const size_t line = text.find("\n" + std::string(lid_field) + " ", block);
  EXPECT_NE(line, std::string::npos);
  const std::string old_entry = std::string(lid_field) + " " + std::string(from_port);
  EXPECT_EQ(text.compare(line + 1, old_entry.size(), old_entry), 0) << old_entry;
  text.replace(line + 1 + lid_field.size() + 1, from_port.size(), to_port);
  return text;
}

TEST(DiffFabrics, IdenticalFabricsAndTablesGiveAnEmptyDiff) {
  const std::string text = ReadSharedFabric(kFatTree);
  const Fabric a = ParseWithHosts(text);
  const Fabric b = ParseWithHosts(text);
  ASSERT_EQ(a.hosts.size(), 16u);
  const ForwardingTables ta = ParseLfts(ReadSharedFabric(kFatTreeLfts));
  const ForwardingTables tb = ParseLfts(ReadSharedFabric(kFatTreeLfts));

  const FabricDiff no_routes = DiffFabrics(a, nullptr, b, nullptr);
  EXPECT_TRUE(no_routes.empty());
  EXPECT_FALSE(no_routes.routes_compared);
  EXPECT_THAT(FormatFabricDiff(no_routes), HasSubstr("No differences between A and B."));
  EXPECT_THAT(FormatFabricDiff(no_routes), HasSubstr("Routes: not compared"));

  const FabricDiff d = DiffFabrics(a, &ta, b, &tb);
  EXPECT_TRUE(d.empty());
  EXPECT_TRUE(d.routes_compared);
  EXPECT_EQ(d.switches_compared, 6u);
  EXPECT_EQ(d.lids_compared, 23u);  // 6 switch LIDs + 17 CA ports
  EXPECT_EQ(d.host_pairs_compared, 16u * 15u);
  EXPECT_EQ(d.host_pairs_changed, 0u);
  EXPECT_THAT(FormatFabricDiff(d), HasSubstr("6 switches x 23 LIDs compared"));
}

TEST(DiffFabrics, RemovedCableIsTheOnlyChange) {
  const std::string text = ReadSharedFabric(kFatTree);
  // leaf04 port 12 <-> spine02 port 8, listed from both ends.
  std::string edited = RemoveLine(text, "[12]\t\"S-0002c90200400100\"[8]");
  edited = RemoveLine(edited, "[8]\t\"S-0002c90200500300\"[12]");
  const Fabric a = ParseWithHosts(text);
  const Fabric b = ParseWithHosts(edited);
  ASSERT_EQ(b.links.size() + 1, a.links.size());

  const FabricDiff d = DiffFabrics(a, nullptr, b, nullptr);
  ASSERT_EQ(d.links_removed.size(), 1u);
  const LinkChange& l = d.links_removed[0];
  EXPECT_EQ(l.a.node_guid, kSpine02);  // the smaller GUID is end a
  EXPECT_EQ(l.a.port, 8);
  EXPECT_EQ(l.a.node_type, NodeType::kSwitch);
  EXPECT_EQ(l.a.node_description, "MF0;spine02:MSX6036/U1");
  EXPECT_EQ(l.b.node_guid, kLeaf04);
  EXPECT_EQ(l.b.port, 12);
  EXPECT_EQ(l.width_lanes, 4);
  EXPECT_EQ(l.speed, LinkSpeed::kQDR);
  EXPECT_DOUBLE_EQ(l.data_rate_gbps, 32.0);
  EXPECT_THAT(d.links_added, IsEmpty());
  EXPECT_THAT(d.links_degraded, IsEmpty());
  EXPECT_THAT(d.nodes_added, IsEmpty());
  EXPECT_THAT(d.nodes_removed, IsEmpty());
  EXPECT_THAT(d.hosts_moved, IsEmpty());

  // The parallel cable leaf04 port 11 <-> spine02 port 7 is a different link and stays.
  const std::string report = FormatFabricDiff(d);
  EXPECT_THAT(report, HasSubstr("Links removed (1):\n  0x0002c90200400100 "
                                "\"MF0;spine02:MSX6036/U1\" port 8 <-> 0x0002c90200500300 "
                                "\"MF0;leaf04:MSX6036/U1\" port 12 (4xQDR 32 Gb/s)\n"));

  // Seen the other way round it is an added link.
  const FabricDiff back = DiffFabrics(b, nullptr, a, nullptr);
  ASSERT_EQ(back.links_added.size(), 1u);
  EXPECT_EQ(back.links_added[0].b.port, 12);
  EXPECT_THAT(back.links_removed, IsEmpty());
}

TEST(DiffFabrics, LinkDegradedFrom4xTo1xOnBothEnds) {
  const std::string text = ReadSharedFabric(kFatTree);
  // node05 HCA port 1 <-> leaf02 port 1.
  std::string edited = EditLine(text, "[1]\t\"H-0002c903000e0b50\"[1]", "4xQDR", "1xQDR");
  edited = EditLine(edited, "\n[1](2c903000e0b51) ", "4xQDR", "1xQDR");
  const Fabric a = ParseWithHosts(text);
  const Fabric b = ParseWithHosts(edited);

  const FabricDiff d = DiffFabrics(a, nullptr, b, nullptr);
  ASSERT_EQ(d.links_degraded.size(), 1u);
  const LinkRateChange& c = d.links_degraded[0];
  EXPECT_EQ(c.a.node_guid, kLeaf02);
  EXPECT_EQ(c.a.port, 1);
  EXPECT_EQ(c.b.node_guid, kNode05Ca);
  EXPECT_EQ(c.b.port, 1);
  EXPECT_EQ(c.b.node_description, "node05 HCA-1");
  EXPECT_EQ(c.width_before, 4);
  EXPECT_EQ(c.width_after, 1);
  EXPECT_EQ(c.speed_before, LinkSpeed::kQDR);
  EXPECT_EQ(c.speed_after, LinkSpeed::kQDR);
  EXPECT_DOUBLE_EQ(c.rate_before_gbps, 32.0);
  EXPECT_DOUBLE_EQ(c.rate_after_gbps, 8.0);
  EXPECT_THAT(d.links_upgraded, IsEmpty());
  EXPECT_THAT(d.links_added, IsEmpty());
  EXPECT_THAT(d.links_removed, IsEmpty());
  EXPECT_THAT(d.hosts_moved, IsEmpty());
  EXPECT_FALSE(d.empty());
  EXPECT_THAT(FormatFabricDiff(d),
              HasSubstr("Links degraded (1):\n  0x0002c90200500100 \"MF0;leaf02:MSX6036/U1\" "
                        "port 1 <-> 0x0002c903000e0b50 \"node05 HCA-1\" port 1: "
                        "4xQDR 32 Gb/s -> 1xQDR 8 Gb/s\n"));

  const FabricDiff back = DiffFabrics(b, nullptr, a, nullptr);
  ASSERT_EQ(back.links_upgraded.size(), 1u);
  EXPECT_DOUBLE_EQ(back.links_upgraded[0].rate_after_gbps, 32.0);
  EXPECT_THAT(back.links_degraded, IsEmpty());
}

TEST(DiffFabrics, HostMovedToAnotherLeaf) {
  const std::string text = ReadSharedFabric(kFatTree);
  std::string edited = RemoveLine(text, "[1]\t\"H-0002c903000e0b50\"[1]");
  edited = InsertAfterLine(edited, "[4]\t\"H-0002c903000e0bc0\"[1]",
                           "[5]\t\"H-0002c903000e0b50\"[1](2c903000e0b51) \t\t# \"node05 "
                           "HCA-1\" lid 13 4xQDR");
  edited = EditLine(edited, "\n[1](2c903000e0b51) ", "\"S-0002c90200500100\"[1]",
                    "\"S-0002c90200500200\"[5]");
  edited = EditLine(edited, "\n[1](2c903000e0b51) ", "leaf02", "leaf03");
  const Fabric a = ParseWithHosts(text);
  const Fabric b = ParseWithHosts(edited);

  const FabricDiff d = DiffFabrics(a, nullptr, b, nullptr);
  ASSERT_EQ(d.hosts_moved.size(), 1u);
  const HostMove& m = d.hosts_moved[0];
  EXPECT_EQ(m.host, "node05");
  ASSERT_EQ(m.ports.size(), 1u);
  EXPECT_EQ(m.ports[0].ca_guid, kNode05Ca);
  EXPECT_EQ(m.ports[0].ca_port, 1);
  EXPECT_EQ(m.ports[0].before.switch_guid, kLeaf02);
  EXPECT_EQ(m.ports[0].before.switch_port, 1);
  EXPECT_EQ(m.ports[0].before.switch_description, "MF0;leaf02:MSX6036/U1");
  EXPECT_EQ(m.ports[0].after.switch_guid, kLeaf03);
  EXPECT_EQ(m.ports[0].after.switch_port, 5);
  // The cable itself: removed at leaf02 port 1, added at leaf03 port 5.
  ASSERT_EQ(d.links_removed.size(), 1u);
  EXPECT_EQ(d.links_removed[0].a.node_guid, kLeaf02);
  EXPECT_EQ(d.links_removed[0].a.port, 1);
  ASSERT_EQ(d.links_added.size(), 1u);
  EXPECT_EQ(d.links_added[0].a.node_guid, kLeaf03);
  EXPECT_EQ(d.links_added[0].a.port, 5);
  EXPECT_EQ(d.links_added[0].b.node_guid, kNode05Ca);
  EXPECT_THAT(d.hosts_added, IsEmpty());
  EXPECT_THAT(d.hosts_removed, IsEmpty());
  EXPECT_THAT(d.nodes_added, IsEmpty());
  EXPECT_THAT(d.links_degraded, IsEmpty());
  EXPECT_THAT(FormatFabricDiff(d),
              HasSubstr("Hosts moved (1):\n  node05: CA 0x0002c903000e0b50 port 1: "
                        "0x0002c90200500100 \"MF0;leaf02:MSX6036/U1\" port 1 -> "
                        "0x0002c90200500200 \"MF0;leaf03:MSX6036/U1\" port 5\n"));

  // Same LFTs on both sides, but leaf02 port 1 and leaf03 port 5 now lead elsewhere: the
  // route walk covers every LID. node05 is excluded from the pairs (it moved); no route
  // between the other 15 hosts changed.
  const ForwardingTables t = ParseLfts(ReadSharedFabric(kFatTreeLfts));
  const FabricDiff r = DiffFabrics(a, &t, b, &t);
  EXPECT_THAT(r.route_changes, IsEmpty());
  EXPECT_EQ(r.host_pairs_compared, 15u * 14u);
  EXPECT_EQ(r.host_pairs_changed, 0u);
}

TEST(DiffFabrics, RemovedHostIsANodeAHostAndALink) {
  const std::string text = ReadSharedFabric(kFatTree);
  std::string edited = RemoveLine(text, "[3]\t\"H-0002c903000e0bf0\"[1]");
  edited = RemoveRecord(edited, "vendid=0x2c9\ndevid=0x1003\nsysimgguid=0x2c903000e0bf0");
  const Fabric a = ParseWithHosts(text);
  const Fabric b = ParseWithHosts(edited);
  ASSERT_EQ(b.nodes.size() + 1, a.nodes.size());

  const FabricDiff d = DiffFabrics(a, nullptr, b, nullptr);
  ASSERT_EQ(d.nodes_removed.size(), 1u);
  EXPECT_EQ(d.nodes_removed[0].guid, kNode15Ca);
  EXPECT_EQ(d.nodes_removed[0].type, NodeType::kCa);
  EXPECT_EQ(d.nodes_removed[0].description, "node15 HCA-1");
  EXPECT_EQ(d.hosts_removed, std::vector<std::string>{"node15"});
  ASSERT_EQ(d.links_removed.size(), 1u);
  EXPECT_EQ(d.links_removed[0].a.node_guid, kLeaf04);
  EXPECT_EQ(d.links_removed[0].a.port, 3);
  EXPECT_THAT(d.nodes_added, IsEmpty());
  EXPECT_THAT(d.hosts_added, IsEmpty());
  EXPECT_THAT(d.hosts_moved, IsEmpty());

  const FabricDiff back = DiffFabrics(b, nullptr, a, nullptr);
  ASSERT_EQ(back.nodes_added.size(), 1u);
  EXPECT_EQ(back.nodes_added[0].guid, kNode15Ca);
  EXPECT_EQ(back.hosts_added, std::vector<std::string>{"node15"});
  const std::string report = FormatFabricDiff(back);
  EXPECT_THAT(report, HasSubstr("Nodes added (1):\n  ca 0x0002c903000e0bf0 \"node15 HCA-1\"\n"));
  EXPECT_THAT(report, HasSubstr("Hosts added (1):\n  node15\n"));
}

TEST(DiffFabrics, LeafLftChangeReroutesOneDestination) {
  const std::string text = ReadSharedFabric(kFatTree);
  const Fabric a = ParseWithHosts(text);
  const Fabric b = ParseWithHosts(text);
  const std::string lfts = ReadSharedFabric(kFatTreeLfts);
  // leaf04 sends LID 1 (node01) up the other parallel cable to spine01: port 9 -> 10.
  const ForwardingTables ta = ParseLfts(lfts);
  const ForwardingTables tb = ParseLfts(EditLft(lfts, kLeaf04, "0x0001", "009", "010"));

  const FabricDiff d = DiffFabrics(a, &ta, b, &tb);
  EXPECT_FALSE(d.empty());
  EXPECT_THAT(d.links_added, IsEmpty());
  EXPECT_THAT(d.links_removed, IsEmpty());
  ASSERT_EQ(d.route_changes.size(), 1u);
  const SwitchRouteChange& c = d.route_changes[0];
  EXPECT_EQ(c.switch_guid, kLeaf04);
  EXPECT_EQ(c.description, "MF0;leaf04:MSX6036/U1");
  EXPECT_EQ(c.entries_changed, 1u);
  EXPECT_EQ(c.lids_compared, 23u);
  ASSERT_EQ(c.examples.size(), 1u);
  EXPECT_EQ(c.examples[0].lid, 1u);
  EXPECT_EQ(c.examples[0].port_before, 9);
  EXPECT_EQ(c.examples[0].port_after, 10);
  EXPECT_EQ(c.examples[0].destination, "node01");
  EXPECT_EQ(d.destinations_changed, 1u);
  ASSERT_EQ(d.destinations.size(), 1u);
  EXPECT_EQ(d.destinations[0].lid, 1u);
  EXPECT_EQ(d.destinations[0].port_guid, 0x0002c903000e0b11u);
  // Sources on leaf04 (node13..node16) now reach node01 by another path.
  EXPECT_EQ(d.host_pairs_changed, 4u);
  const std::string report = FormatFabricDiff(d);
  EXPECT_THAT(report, HasSubstr("1 switches changed entries for 1 destination LIDs; 4 of 240 "
                                "host pairs changed route."));
  EXPECT_THAT(report, HasSubstr("0x0002c90200500300 \"MF0;leaf04:MSX6036/U1\": 1 of 23 "
                                "entries changed (lid 1 node01: 9 -> 10)"));
}

TEST(DiffFabrics, SpineLftChangeReroutesEveryHostBehindIt) {
  const std::string text = ReadSharedFabric(kFatTree);
  const Fabric f = ParseWithHosts(text);
  const std::string lfts = ReadSharedFabric(kFatTreeLfts);
  // spine01 sends LID 0x15 (node13 on leaf04) down the other parallel cable: 7 -> 8. Every
  // other leaf forwards LID 0x15 to spine01 (port 9 in the dump), so the 12 hosts of
  // leaf01..leaf03 take a new path to node13; leaf04's own hosts do not pass the spine.
  ASSERT_THAT(lfts, HasSubstr("0x0015 009 : (Channel Adapter portguid 0x0002c903000e0bd1"));
  const ForwardingTables ta = ParseLfts(lfts);
  const ForwardingTables tb = ParseLfts(EditLft(lfts, kSpine01, "0x0015", "007", "008"));

  const FabricDiff d = DiffFabrics(f, &ta, f, &tb);
  ASSERT_EQ(d.route_changes.size(), 1u);
  EXPECT_EQ(d.route_changes[0].switch_guid, kSpine01);
  EXPECT_EQ(d.destinations_changed, 1u);
  EXPECT_EQ(d.destinations[0].name, "node13");
  EXPECT_EQ(d.host_pairs_changed, 12u);

  // Both edits at once: the counts add up, switches ordered by GUID at equal counts.
  const ForwardingTables both = ParseLfts(
      EditLft(EditLft(lfts, kSpine01, "0x0015", "007", "008"), kLeaf04, "0x0001", "009", "010"));
  const FabricDiff d2 = DiffFabrics(f, &ta, f, &both);
  ASSERT_EQ(d2.route_changes.size(), 2u);
  EXPECT_EQ(d2.route_changes[0].switch_guid, kSpine01);
  EXPECT_EQ(d2.route_changes[1].switch_guid, kLeaf04);
  EXPECT_EQ(d2.destinations_changed, 2u);
  EXPECT_EQ(d2.host_pairs_changed, 16u);
}

TEST(DiffFabrics, LmcChangeComparesOnlyLidsWithTheSameOwner) {
  // The LMC 2 variant of the same fabric: every CA port owns 4 LIDs and the LIDs move.
  const Fabric a = ParseWithHosts(ReadSharedFabric(kFatTree));
  const Fabric b = ParseWithHosts(ReadSharedFabric("ibnetdiscover_fattree_lmc2.txt"));
  const FabricDiff d = DiffFabrics(a, nullptr, b, nullptr);
  // Same nodes, cables and hosts: LIDs are not part of the topology diff.
  EXPECT_TRUE(d.empty()) << FormatFabricDiff(d);
}

TEST(FormatFabricDiff, CapsLongSections) {
  FabricDiff d;
  for (int i = 0; i < 25; ++i) d.hosts_added.push_back("node" + std::to_string(100 + i));
  DiffFormatOptions options;
  options.max_lines_per_section = 20;
  options.label_a = "snapshot 3";
  options.label_b = "snapshot 4";
  const std::string report = FormatFabricDiff(d, options);
  EXPECT_THAT(report, HasSubstr("Changes from snapshot 3 to snapshot 4:\n"));
  EXPECT_THAT(report, HasSubstr("Hosts added (25):\n  node100\n"));
  EXPECT_THAT(report, HasSubstr("  node119\n  ... and 5 more\n"));
  EXPECT_THAT(report, ::testing::Not(HasSubstr("node120")));
}

// A 3-level fat tree the size of bench/'s: 320 leaves x 32 hosts, 10 pods x 32 aggregation
// switches, 256 cores with 4 parallel cables from each aggregation switch (10,240 hosts,
// 896 switches, 30,720 cables), with up/down LFTs over all 11,136 LIDs.
struct BigFabric {
  Fabric fabric;
  ForwardingTables tables;
};

BigFabric MakeBigFabric() {
  constexpr int kPods = 10, kLeavesPerPod = 32, kAggsPerPod = 32, kHostsPerLeaf = 32;
  constexpr int kCores = 256, kParallel = 4;
  BigFabric big;
  Fabric& f = big.fabric;
  uint32_t next_lid = 1;
  auto add = [&](NodeType type, uint64_t guid, const std::string& desc) {
    Node n;
    n.type = type;
    n.guid = guid;
    n.description = desc;
    n.lid = next_lid++;
    int index = -1;
    EXPECT_OK(f.AddNode(n, &index));
    return index;
  };
  std::vector<int> leaf, agg, core, host;
  for (int i = 0; i < kPods * kLeavesPerPod; ++i) {
    leaf.push_back(add(NodeType::kSwitch, 0x100000 + i, "leaf" + std::to_string(i)));
  }
  for (int i = 0; i < kPods * kAggsPerPod; ++i) {
    agg.push_back(add(NodeType::kSwitch, 0x200000 + i, "agg" + std::to_string(i)));
  }
  for (int i = 0; i < kCores; ++i) {
    core.push_back(add(NodeType::kSwitch, 0x300000 + i, "core" + std::to_string(i)));
  }
  for (int h = 0; h < kPods * kLeavesPerPod * kHostsPerLeaf; ++h) {
    const int n = add(NodeType::kCa, 0x4000000 + 0x10 * h, "n" + std::to_string(h) + " mlx5_0");
    Port p;
    p.number = 1;
    p.guid = 0x4000000 + 0x10 * h + 1;
    p.lid = f.nodes[n].lid;
    f.nodes[n].ports.push_back(p);
    host.push_back(n);
  }
  // Ports: leaf 1..32 hosts, 33..64 aggs of its pod; agg 1..32 leaves, 33..64 cores;
  // core 1 + 4*pod + k from agg (core / 8) of each pod.
  for (int l = 0; l < int(leaf.size()); ++l) {
    const int pod = l / kLeavesPerPod;
    for (int h = 0; h < kHostsPerLeaf; ++h) {
      EXPECT_OK(f.Connect({leaf[l], 1 + h}, {host[l * kHostsPerLeaf + h], 1}, 4, LinkSpeed::kEDR));
    }
    for (int g = 0; g < kAggsPerPod; ++g) {
      EXPECT_OK(f.Connect({leaf[l], 33 + g}, {agg[pod * kAggsPerPod + g], 1 + l % kLeavesPerPod}, 4,
                          LinkSpeed::kEDR));
    }
  }
  for (int g = 0; g < int(agg.size()); ++g) {
    const int pod = g / kAggsPerPod, j = g % kAggsPerPod;
    for (int c = 0; c < 8; ++c) {
      for (int k = 0; k < kParallel; ++k) {
        EXPECT_OK(f.Connect({agg[g], 33 + c * kParallel + k},
                            {core[j * 8 + c], 1 + pod * kParallel + k}, 4, LinkSpeed::kEDR));
      }
    }
  }
  EXPECT_OK(AssignHosts(HostRule(), {}, &f));
  // Up/down routes to every host LID, spread over the up ports by destination.
  ForwardingTables& t = big.tables;
  auto table = [&](int node) {
    SwitchForwardingTable* s = t.Add(f.nodes[node].guid);
    s->out_port.assign(next_lid, ForwardingTables::kUnsetPort);
    s->out_port[f.nodes[node].lid] = 0;
    return s;
  };
  for (int l = 0; l < int(leaf.size()); ++l) {
    SwitchForwardingTable* s = table(leaf[l]);
    for (int h = 0; h < int(host.size()); ++h) {
      const uint32_t lid = f.nodes[host[h]].lid;
      s->out_port[lid] = h / kHostsPerLeaf == l ? 1 + h % kHostsPerLeaf : 33 + h % kAggsPerPod;
    }
  }
  for (int g = 0; g < int(agg.size()); ++g) {
    SwitchForwardingTable* s = table(agg[g]);
    for (int h = 0; h < int(host.size()); ++h) {
      const int dest_leaf = h / kHostsPerLeaf;
      s->out_port[f.nodes[host[h]].lid] = dest_leaf / kLeavesPerPod == g / kAggsPerPod
                                              ? 1 + dest_leaf % kLeavesPerPod
                                              : 33 + (h / kAggsPerPod) % (8 * kParallel);
    }
  }
  for (int c = 0; c < kCores; ++c) {
    SwitchForwardingTable* s = table(core[c]);
    for (int h = 0; h < int(host.size()); ++h) {
      const int pod = h / (kHostsPerLeaf * kLeavesPerPod);
      s->out_port[f.nodes[host[h]].lid] = 1 + pod * kParallel + h % kParallel;
    }
  }
  return big;
}

// The time of these diffs on the real 10,240-host dumps is measured by bench/scale_bench
// (BM_DiffFabrics), not here.
TEST(DiffFabrics, LargeFabric) {
  const BigFabric a = MakeBigFabric();
  BigFabric b = MakeBigFabric();
  ASSERT_EQ(a.fabric.hosts.size(), 10240u);
  ASSERT_EQ(a.fabric.links.size(), 30720u);
  ASSERT_EQ(a.tables.switches().size(), 896u);
  // One core switch sends pod 0's first host down another parallel cable.
  const uint32_t lid0 = b.fabric.nodes[b.fabric.FindNodeByGuid(0x4000000)].lid;
  ASSERT_OK(b.tables.SetOutPort(0x300000, lid0, 2));

  DiffOptions no_routes;
  const FabricDiff same = DiffFabrics(a.fabric, nullptr, b.fabric, nullptr, no_routes);
  const FabricDiff d = DiffFabrics(a.fabric, &a.tables, b.fabric, &b.tables);
  EXPECT_TRUE(same.empty());
  ASSERT_EQ(d.route_changes.size(), 1u);
  EXPECT_EQ(d.route_changes[0].entries_changed, 1u);
  EXPECT_EQ(d.destinations_changed, 1u);
  EXPECT_EQ(d.lids_compared, 896u + 10240u);
  // Every leaf sends host 0 to its pod's aggregation switch 0, which in pods 1..9 goes up
  // to core 0: the 9 x 1,024 hosts of those pods changed path; pod 0 never reaches a core.
  EXPECT_EQ(d.host_pairs_changed, 9u * 1024u);

  // Worst case for the route walk: a re-cabled switch port (host 1 unplugged) makes every
  // compared LID a candidate, so all 11,136 LIDs are walked from every leaf.
  BigFabric c = MakeBigFabric();
  const int host1 = c.fabric.FindNodeByGuid(0x4000010);
  Port* unplugged = c.fabric.nodes[host1].FindPort(1);
  const Link& cable = c.fabric.links[unplugged->link];
  Node& leaf0 = c.fabric.nodes[cable.a.node == host1 ? cable.b.node : cable.a.node];
  leaf0.FindPort(2)->link = -1;
  unplugged->link = -1;
  const FabricDiff w = DiffFabrics(a.fabric, &a.tables, c.fabric, &c.tables);
  EXPECT_THAT(w.route_changes, IsEmpty());
  // Host 1 no longer hangs off a switch, so it counts as moved and is no destination of the
  // compared pairs; the routes between all other hosts are untouched.
  EXPECT_EQ(w.hosts_moved.size(), 1u);
  EXPECT_EQ(w.host_pairs_compared, 10239u * 10238u);
  EXPECT_EQ(w.host_pairs_changed, 0u);
}

}  // namespace
}  // namespace toporr::fabric
