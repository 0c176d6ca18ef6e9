#include "client/plan/launch_files.h"

#include <string>
#include <vector>

#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(ParseHostfile, OpenMpiSlurmAndRepeatedLines) {
  ASSERT_OK_AND_ASSIGN(JobHosts h, ParseHostfile("# job\nnode01 slots=4 max_slots=8\n"
                                                 "node02.cluster.local:2\nnode03\nnode03\n",
                                                 "hf"));
  EXPECT_EQ(h.names, (std::vector<std::string>{"node01", "node02", "node03"}));
  EXPECT_EQ(h.slots, (std::vector<int>{4, 2, 2}));
  EXPECT_EQ(h.total_slots(), 8);
  EXPECT_THAT(ParseHostfile("node01 slots=x\n", "hf"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("hf:1: bad `slots=x`")));
  EXPECT_THAT(ParseHostfile("\nnode01 cpus=3\n", "hf"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("hf:2: unexpected `cpus=3`")));
  EXPECT_THAT(ParseHostfile("# nothing\n", "hf"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no hosts")));
}

TEST(InitialPlacement, MapByCoreAndNode) {
  JobHosts h{{"a", "b"}, {2, 3}};
  ASSERT_OK_AND_ASSIGN(mapping::Placement core, InitialPlacement(h, MapBy::kCore, 0));
  ASSERT_EQ(core.size(), 5);
  EXPECT_EQ(core.ranks[1].host, 0);
  EXPECT_EQ(core.ranks[2].host, 1);
  EXPECT_EQ(core.ranks[4].core, 2);
  ASSERT_OK_AND_ASSIGN(mapping::Placement node, InitialPlacement(h, MapBy::kNode, 0));
  std::vector<int> hosts;
  for (const auto& r : node.ranks) hosts.push_back(r.host);
  EXPECT_EQ(hosts, (std::vector<int>{0, 1, 0, 1, 1}));
  EXPECT_THAT(InitialPlacement(h, MapBy::kCore, 6),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("5 slots")));
  ASSERT_OK_AND_ASSIGN(mapping::Placement expl, ExplicitPlacement(h, "b\na\nb\n", "ranks"));
  EXPECT_EQ(expl.ranks[0].host, 1);
  EXPECT_EQ(expl.ranks[2].core, 1);
  EXPECT_THAT(ExplicitPlacement(h, "a\nc\n", "ranks"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ranks:2: host `c`")));
}

TEST(ParseRankHosts, OneHostPerRankInOrder) {
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> ranks,
                       ParseRankHosts("# ranks\nn2.cluster\n\nn1\nn2 # third\n", "map"));
  EXPECT_EQ(ranks, (std::vector<std::string>{"n2", "n1", "n2"}));
  EXPECT_THAT(ParseRankHosts("# none\n", "map"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("map: no ranks")));
}

// Three ranks on two hosts (a: slots 0-1, b: slot 0), new order 2, 0, 1.
TEST(LaunchOutputs, RankfileAndHostfilesReproduceTheOrder) {
  JobHosts h{{"a", "b"}, {2, 1}};
  ASSERT_OK_AND_ASSIGN(mapping::Placement p, InitialPlacement(h, MapBy::kCore, 0));
  const std::vector<int32_t> order = {2, 0, 1};
  EXPECT_EQ(Rankfile(order, "ring", p, h),
            "# toporr plan: ring, new rank -> slot\n"
            "rank 0=b slot=0\nrank 1=a slot=0\nrank 2=a slot=1\n");
  EXPECT_EQ(ReorderedHostfile(order, p, h), "b\na\na\n");
  EXPECT_EQ(SlurmHostfile(order, "ring", p, h),
            "# toporr plan: ring, host of each new rank (srun -n 3 --distribution=arbitrary, "
            "SLURM_HOSTFILE)\nb\na\na\n");
}

// Three hosts of two ranks each (a: 0-1, b: 2-3, c: 4-5, --map-by core).
TEST(TorchrunNodeRanks, HostsTakeNodeRanksInTheOrderOfTheirFirstNewRank) {
  JobHosts h{{"a", "b", "c"}, {2, 2, 2}};
  ASSERT_OK_AND_ASSIGN(mapping::Placement p, InitialPlacement(h, MapBy::kCore, 0));
  ASSERT_OK_AND_ASSIGN(TorchrunLaunch exact, TorchrunNodeRanks({5, 4, 0, 1, 3, 2}, "ring", p, h));
  EXPECT_EQ(exact.text,
            "# toporr plan: ring, node rank of each host (torchrun --nnodes 3 --nproc_per_node 2 "
            "--node_rank N)\nc 0\na 1\nb 2\n");
  EXPECT_EQ(exact.node_hosts, (std::vector<std::string>{"c", "a", "b"}));
  EXPECT_EQ(exact.nproc_per_node, 2);
  EXPECT_TRUE(exact.exact);
  // b's ranks are apart: torchrun keeps the hosts' order by first new rank, no more.
  ASSERT_OK_AND_ASSIGN(TorchrunLaunch split, TorchrunNodeRanks({2, 0, 1, 3, 4, 5}, "cart", p, h));
  EXPECT_EQ(split.node_hosts, (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_THAT(split.text, HasSubstr("\nb 0\na 1\nc 2\n"));
  EXPECT_FALSE(split.exact);
  // The launch order is exact; a round-robin launch is not.
  ASSERT_OK_AND_ASSIGN(TorchrunLaunch launch, TorchrunNodeRanks({0, 1, 2, 3, 4, 5}, "x", p, h));
  EXPECT_TRUE(launch.exact);
  ASSERT_OK_AND_ASSIGN(mapping::Placement rr, InitialPlacement(h, MapBy::kNode, 0));
  ASSERT_OK_AND_ASSIGN(TorchrunLaunch dealt, TorchrunNodeRanks({0, 1, 2, 3, 4, 5}, "x", rr, h));
  EXPECT_EQ(dealt.node_hosts, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_FALSE(dealt.exact);
}

TEST(TorchrunNodeRanks, UnevenHostsAreRefusedWithTheirCounts) {
  JobHosts h{{"a", "b", "c", "d", "e", "f"}, {4, 4, 2, 4, 4, 4}};
  ASSERT_OK_AND_ASSIGN(mapping::Placement p, InitialPlacement(h, MapBy::kCore, 0));
  std::vector<int32_t> order(p.size());
  for (int i = 0; i < p.size(); ++i) order[i] = i;
  EXPECT_THAT(TorchrunNodeRanks(order, "ring", p, h),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("(--nproc_per_node), but the job's hosts have different "
                                 "numbers: 4 ranks on a, b, d and 2 more; 2 ranks on c")));
  // Hosts the job leaves empty (--np) are not in it; a host filled in part is.
  ASSERT_OK_AND_ASSIGN(mapping::Placement two, InitialPlacement(h, MapBy::kCore, 8));
  ASSERT_OK_AND_ASSIGN(int per_node, TorchrunProcsPerNode(two, h));
  EXPECT_EQ(per_node, 4);
  ASSERT_OK_AND_ASSIGN(mapping::Placement part, InitialPlacement(h, MapBy::kCore, 9));
  EXPECT_THAT(TorchrunProcsPerNode(part, h), StatusIs(absl::StatusCode::kInvalidArgument,
                                                      HasSubstr("4 ranks on a, b; 1 rank on c")));
}

}  // namespace
}  // namespace toporr::client
