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

}  // namespace
}  // namespace toporr::client
