// The exports on a hand-built three-level fat tree: two pods (each two leaves under two
// aggregation switches), one core switch, four hosts, one of them dual-rail.
#include "client/ctl/topology_export.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client::ctl {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class TopologyExportTest : public ::testing::Test {
 protected:
  int Node(const std::string& type, const std::string& guid, const std::string& desc,
           const std::string& host = "") {
    v1::TopologyNode* n = topo_.add_nodes();
    n->set_type(type);
    n->set_guid(guid);
    n->set_description(desc);
    n->set_host(host);
    return topo_.nodes_size() - 1;
  }
  void Link(int a, int ap, int b, int bp, double rate = 100) {
    v1::TopologyLink* l = topo_.add_links();
    l->set_a_node(a);
    l->set_a_port(ap);
    l->set_b_node(b);
    l->set_b_port(bp);
    l->set_rate_gbps(rate);
  }
  void SetUp() override {
    topo_.mutable_snapshot()->set_id(4);
    topo_.mutable_snapshot()->set_source_name("fabric.topo");
    // Node order as the daemon sends it: type, then GUID.
    const int l1 = Node("switch", "0x0000000000000011", "MF0;leaf1:MQM8790/U1");
    const int l2 = Node("switch", "0x0000000000000012", "leaf 2");
    const int l3 = Node("switch", "0x0000000000000013", "");
    const int l4 = Node("switch", "0x0000000000000014", "dup");
    const int a1 = Node("switch", "0x0000000000000021", "dup");
    const int a2 = Node("switch", "0x0000000000000022", "agg2");
    const int core = Node("switch", "0x0000000000000031", "core");
    const int h1 = Node("ca", "0x0000000000000101", "n1 HCA-1", "n1");
    const int h2 = Node("ca", "0x0000000000000102", "n2 HCA-1", "n2");
    const int h3 = Node("ca", "0x0000000000000103", "n3 HCA-1", "n3");
    const int h4a = Node("ca", "0x0000000000000104", "n4 HCA-1", "n4");
    const int h4b = Node("ca", "0x0000000000000105", "n4 HCA-2", "n4");
    for (const char* h : {"n1", "n2", "n3", "n4"}) topo_.add_hosts(h);
    Link(l1, 1, h1, 1);
    Link(l2, 3, h2, 1);
    Link(l3, 1, h3, 1);
    Link(l4, 2, h4a, 1);
    Link(l4, 5, h4b, 1, 200);
    Link(l1, 10, a1, 1);  // pod 1: leaves 1, 2 under a1
    Link(l2, 10, a1, 2);
    Link(l3, 10, a2, 1);  // pod 2: leaves 3, 4 under a2
    Link(l4, 10, a2, 2);
    Link(a1, 20, core, 1);
    Link(a1, 21, core, 2);  // two parallel cables
    Link(a2, 20, core, 3);
  }
  v1::GetTopologyResponse topo_;
};

TEST_F(TopologyExportTest, NamesAreStableAndLevelsCounted) {
  EXPECT_EQ(SwitchNameFromDescription("MF0;spine01:MSX6036/U1"), "spine01");
  EXPECT_EQ(SwitchNameFromDescription("rack 3/leaf"), "rack_3_leaf");
  EXPECT_EQ(SwitchNameFromDescription(""), "");
  TopologyAnalysis a = AnalyzeTopology(topo_);
  ASSERT_EQ(a.switches.size(), 7u);
  EXPECT_EQ(a.switches[0].name, "leaf1");
  EXPECT_EQ(a.switches[1].name, "leaf_2");
  EXPECT_EQ(a.switches[2].name, "ib-0000000000000013");  // empty description
  EXPECT_EQ(a.switches[3].name, "ib-0000000000000014");  // "dup" twice
  EXPECT_EQ(a.switches[4].name, "ib-0000000000000021");
  EXPECT_EQ(a.switches[6].level, 2);
  EXPECT_EQ(a.hosts[3].port, 2) << "first port of the first CA";
}

TEST_F(TopologyExportTest, SlurmTree) {
  auto conf = SlurmTopologyConf(topo_, {});
  ASSERT_TRUE(conf.ok()) << conf.status();
  EXPECT_THAT(*conf, HasSubstr("SwitchName=leaf1 Nodes=n1\n"));
  EXPECT_THAT(*conf, HasSubstr("SwitchName=ib-0000000000000014 Nodes=n4\n"));
  EXPECT_THAT(*conf,
              HasSubstr("SwitchName=agg2 Switches=ib-0000000000000013,ib-0000000000000014\n"));
  EXPECT_THAT(*conf, HasSubstr("SwitchName=core Switches=ib-0000000000000021,agg2\n"));
  // A job on n1 and n2: one pod only.
  conf = SlurmTopologyConf(topo_, {"n2", "n1"});
  ASSERT_TRUE(conf.ok());
  EXPECT_THAT(*conf, Not(HasSubstr("agg2")));
  EXPECT_THAT(*conf, HasSubstr("SwitchName=core Switches=ib-0000000000000021\n"));
  EXPECT_EQ(SlurmTopologyConf(topo_, {"nx"}).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(TopologyExportTest, SlurmBlocksArePerLeafPodByPod) {
  auto conf = SlurmBlockConf(topo_, {});
  ASSERT_TRUE(conf.ok()) << conf.status();
  EXPECT_THAT(*conf, HasSubstr("\nBlockName=leaf1 Nodes=n1\n"
                               "BlockName=leaf_2 Nodes=n2\n"
                               "BlockName=ib-0000000000000013 Nodes=n3\n"
                               "BlockName=ib-0000000000000014 Nodes=n4\n"
                               "BlockSizes=1,2,4\n"));
  // n1 alone in its pod, n3 and n4 in the other: an aggregate of two blocks would split the
  // second pod, so only one block and all three are kept.
  conf = SlurmBlockConf(topo_, {"n4", "n1", "n3"});
  ASSERT_TRUE(conf.ok()) << conf.status();
  EXPECT_THAT(*conf, HasSubstr("\nBlockName=leaf1 Nodes=n1\n"
                               "BlockName=ib-0000000000000013 Nodes=n3\n"
                               "BlockName=ib-0000000000000014 Nodes=n4\n"
                               "BlockSizes=1,4\n"));
  EXPECT_EQ(SlurmBlockConf(topo_, {"nx"}).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(TopologyExportTest, SlurmYamlHasTreeAndBlock) {
  auto yaml = SlurmTopologyYaml(topo_, {});
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_THAT(*yaml, HasSubstr("- topology: \"fabric-tree\"\n"
                               "  cluster_default: true\n"
                               "  tree:\n"
                               "    switches:\n"
                               "      - switch: \"leaf1\"\n"
                               "        nodes: \"n1\"\n"));
  EXPECT_THAT(*yaml, HasSubstr("      - switch: \"core\"\n"
                               "        children: \"ib-0000000000000021,agg2\"\n"));
  EXPECT_THAT(*yaml, HasSubstr("- topology: \"fabric-block\"\n"
                               "  cluster_default: false\n"
                               "  block:\n"
                               "    block_sizes:\n"
                               "      - 1\n"
                               "      - 2\n"
                               "      - 4\n"
                               "    blocks:\n"
                               "      - block: \"leaf1\"\n"
                               "        nodes: \"n1\"\n"));
}

TEST_F(TopologyExportTest, KubernetesLabelValuesAsTopographHashesThem) {
  EXPECT_EQ(KubernetesLabelValue("leaf01"), "leaf01");
  EXPECT_EQ(KubernetesLabelValue(std::string(63, 'a')), std::string(63, 'a'));
  EXPECT_EQ(KubernetesLabelValue(std::string(64, 'a')), "xdb007849f35ebbe5");  // FNV-64a
  EXPECT_EQ(KubernetesLabelValue("_leaf"), "x6b429a85427dc32a");
}

TEST_F(TopologyExportTest, KubernetesLabelsInTopographsTiers) {
  auto script = KubernetesLabels(topo_, {});
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(*script, HasSubstr("format (1.0)"));
  EXPECT_THAT(*script, HasSubstr("\nlabel n1 "
                                 "fabric.topograph.run/tier-0=leaf1 "
                                 "fabric.topograph.run/tier-1=ib-0000000000000021 "
                                 "fabric.topograph.run/tier-2=core \"$@\"\n"));
  EXPECT_THAT(*script, Not(HasSubstr("network.topology.nvidia.com")));
  auto kueue = KueueTopology(topo_, {});
  ASSERT_TRUE(kueue.ok()) << kueue.status();
  EXPECT_THAT(*kueue, HasSubstr("apiVersion: kueue.x-k8s.io/v1beta2\n"
                                "kind: Topology\n"
                                "metadata:\n"
                                "  name: toporr\n"
                                "spec:\n"
                                "  levels:\n"
                                "  - nodeLabel: fabric.topograph.run/tier-2\n"
                                "  - nodeLabel: fabric.topograph.run/tier-1\n"
                                "  - nodeLabel: fabric.topograph.run/tier-0\n"
                                "  - nodeLabel: kubernetes.io/hostname\n"));
  // Without the core switch the fabric has two tiers: Kueue's levels have no tier-2.
  topo_.mutable_links()->DeleteSubrange(9, 3);
  kueue = KueueTopology(topo_, {"n3"});
  ASSERT_TRUE(kueue.ok()) << kueue.status();
  EXPECT_THAT(*kueue, Not(HasSubstr("tier-2")));
  EXPECT_THAT(*kueue, HasSubstr("  levels:\n  - nodeLabel: fabric.topograph.run/tier-1\n"));
  EXPECT_FALSE(KueueTopology(topo_, {"nosuchhost"}).ok());
}

TEST_F(TopologyExportTest, KubernetesLegacyLabelsPerHost) {
  auto script = KubernetesLegacyLabels(topo_, {});
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_EQ(script->rfind("#!/bin/sh\n", 0), 0u);
  EXPECT_THAT(*script, Not(HasSubstr("set -e")));  // one failed node does not stop the rest
  EXPECT_THAT(*script, HasSubstr("\nlabel n1 "
                                 "network.topology.nvidia.com/leaf=leaf1 "
                                 "network.topology.nvidia.com/spine=ib-0000000000000021 "
                                 "network.topology.nvidia.com/core=core \"$@\"\n"));
  EXPECT_THAT(*script, HasSubstr("label n4 "
                                 "network.topology.nvidia.com/leaf=ib-0000000000000014 "
                                 "network.topology.nvidia.com/spine=agg2 "
                                 "network.topology.nvidia.com/core=core"));
  // Without the core switch the fabric has two levels: the core label is removed.
  topo_.mutable_links()->DeleteSubrange(9, 3);
  script = KubernetesLegacyLabels(topo_, {"n3"});
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(*script, HasSubstr("label n3 "
                                 "network.topology.nvidia.com/leaf=ib-0000000000000013 "
                                 "network.topology.nvidia.com/spine=agg2 "
                                 "network.topology.nvidia.com/core- \"$@\"\n"));
  EXPECT_THAT(*script, Not(HasSubstr("label n1 ")));
  EXPECT_THAT(*script, HasSubstr("labelled $labelled of 1 nodes"));
}

TEST_F(TopologyExportTest, MpichCoordinatesGroupPods) {
  auto coords = MpichCoordinates(topo_, {"n4", "n1", "n2", "n3", "n1"});
  ASSERT_TRUE(coords.ok()) << coords.status();
  EXPECT_EQ(*coords,
            "# rank: group id, switch id, port number (toporr snapshot 4)\n"
            "0: 1 3 2\n"
            "1: 0 0 1\n"
            "2: 0 1 3\n"
            "3: 1 2 1\n"
            "4: 0 0 1\n");
}

TEST_F(TopologyExportTest, DotMergesParallelCables) {
  auto dot = FabricDot(topo_, {});
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_THAT(*dot, HasSubstr("s4 -> s6 [label=\"2x 100G\", penwidth=2];"));
  EXPECT_THAT(*dot, HasSubstr("label=\"100G+200G\""));  // n4's two rails to one leaf
  auto job = FabricDot(topo_, {"n3"});
  ASSERT_TRUE(job.ok());
  EXPECT_THAT(*job, Not(HasSubstr("\"n1\"")));
  EXPECT_THAT(*job, HasSubstr("\"n3\""));
}

TEST_F(TopologyExportTest, JsonHasEverything) {
  std::string json = TopologyJson(topo_);
  EXPECT_THAT(json, HasSubstr("\"name\":\"core\""));
  EXPECT_THAT(json, HasSubstr("\"level\":2"));
  EXPECT_THAT(json, HasSubstr("\"switch\":\"leaf_2\",\"switch_port\":3"));
}

}  // namespace
}  // namespace toporr::client::ctl
