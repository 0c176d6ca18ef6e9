// Levels from real fabrics' costs: the bundled 16-host two-level fat tree (the shared
// ibnetdiscover sample deploy/demo/fattree-2l-16h.ibnet was taken from), a three-level fat
// tree written by collectors/sim/gen_fattree.py, and odd shapes (one host, one leaf, uneven
// leaves, a ring, unreachable hosts).
#include "mapping/levels/levels.h"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "collectors/hosts.h"
#include "collectors/ibnetdiscover.h"
#include "collectors/sim/ibsim_net.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gtest/gtest.h"
#include "mapping/costs/dense_cost_matrix.h"
#include "mapping/costs/host_costs.h"
#include "mapping/testing/test_fabrics.h"

namespace toporr::mapping {
namespace {

using ::testing::ElementsAre;

// The costs of some hosts of a larger matrix (a job on part of the fabric).
class SubsetCosts final : public HostCostMatrix {
 public:
  SubsetCosts(const HostCostMatrix& all, std::vector<int> hosts) : all_(all), hosts_(hosts) {}
  int num_hosts() const override { return static_cast<int>(hosts_.size()); }
  double AlphaNs(int a, int b) const override { return all_.AlphaNs(hosts_[a], hosts_[b]); }
  double BetaNs(int a, int b) const override { return all_.BetaNs(hosts_[a], hosts_[b]); }

 private:
  const HostCostMatrix& all_;
  std::vector<int> hosts_;
};

// Sizes of the groups of `level`, in group order.
std::vector<int> GroupSizes(const HostLevel& level) {
  std::vector<int> sizes(level.num_groups, 0);
  for (int32_t g : level.group) ++sizes[g];
  return sizes;
}

std::unique_ptr<HostCosts> FatTree2l16h(fabric::Fabric* fabric) {
  auto f = collectors::ParseIbnetdiscover(
      toporr::testing::ReadSharedFabric("ibnetdiscover_fattree_default.txt"), {"fattree"});
  EXPECT_OK(f);
  EXPECT_OK(collectors::AssignHosts(collectors::HostRule(), {}, &*f));
  *fabric = *std::move(f);
  auto costs = HostCosts::Create(*fabric);
  EXPECT_OK(costs);
  return *std::move(costs);
}

TEST(LevelsTest, TwoLevelFatTreeHasHostLeafTop) {
  fabric::Fabric f;
  auto costs = FatTree2l16h(&f);
  ASSERT_EQ(costs->num_hosts(), 16);
  ASSERT_OK_AND_ASSIGN(HostLevels levels, DetectLevels(*costs));
  EXPECT_THAT(levels.names(), ElementsAre("host", "leaf", "top"));
  const HostLevel& leaf = levels.levels[1];
  EXPECT_THAT(GroupSizes(leaf), ElementsAre(4, 4, 4, 4));
  EXPECT_TRUE(leaf.exact);
  for (int h = 0; h < 16; ++h) {  // node01..04 on leaf01, ...: the fabric's hosts are sorted
    const int n = std::stoi(f.hosts[h].name.substr(4)) - 1;
    EXPECT_EQ(leaf.group[h], n / 4) << f.hosts[h].name;
  }
  EXPECT_EQ(levels.levels[0].num_groups, 16);
  EXPECT_EQ(levels.levels[2].num_groups, 1);
  EXPECT_TRUE(levels.levels[2].exact);
  EXPECT_LT(leaf.alpha_ns, levels.levels[2].alpha_ns);  // 1 switch, then 3
}

// gen_fattree.py --levels 3 --hosts 32 --hosts-per-leaf 4 --leaves-per-pod 2, read with the
// ibsim .net reader and built into a Fabric (the ground truth ibsim would simulate).
fabric::Fabric GeneratedFatTree3l32h() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string script =
      srcdir != nullptr && workspace != nullptr
          ? std::string(srcdir) + "/" + workspace + "/collectors/sim/gen_fattree.py"
          : "collectors/sim/gen_fattree.py";
  const std::string net = toporr::testing::MakeTempDir("levels") + "/fattree-3l-32h.net";
  const std::string cmd = "/usr/bin/python3 " + script +
                          " --hosts 32 --levels 3 --hosts-per-leaf 4 --leaves-per-pod 2 --out " +
                          net + " 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  auto parsed = collectors::sim::ParseIbsimNet(toporr::testing::ReadFileOrDie(net), net);
  EXPECT_OK(parsed);
  testing::FabricBuilder b;
  std::vector<int> index;
  for (const collectors::sim::IbsimNode& n : parsed->nodes) {
    if (n.type == fabric::NodeType::kSwitch) {
      index.push_back(b.AddSwitch(n.id, n.num_ports));
    } else {
      index.push_back(b.AddHostCa(n.description.substr(0, n.description.find(' ')), n.num_ports));
    }
  }
  for (const collectors::sim::IbsimLink& l : parsed->links) {
    b.Connect(index[l.node_a], l.port_a, index[l.node_b], l.port_b, l.speed, l.width_lanes);
  }
  return b.Finish();
}

TEST(LevelsTest, ThreeLevelFatTreeHasHostLeafPodTop) {
  const fabric::Fabric f = GeneratedFatTree3l32h();
  ASSERT_EQ(f.hosts.size(), 32u);
  ASSERT_OK_AND_ASSIGN(auto costs, HostCosts::Create(f));
  ASSERT_OK_AND_ASSIGN(HostLevels levels, DetectLevels(*costs));
  EXPECT_THAT(levels.names(), ElementsAre("host", "leaf", "pod", "top"));
  EXPECT_THAT(GroupSizes(levels.levels[1]), ElementsAre(4, 4, 4, 4, 4, 4, 4, 4));
  EXPECT_THAT(GroupSizes(levels.levels[2]), ElementsAre(8, 8, 8, 8));
  for (int h = 0; h < 32; ++h) {  // node00001.. fill leaves of 4, pods of 2 leaves
    const int n = std::stoi(f.hosts[h].name.substr(4)) - 1;
    EXPECT_EQ(levels.levels[1].group[h], n / 4);
    EXPECT_EQ(levels.levels[2].group[h], n / 8);
  }
  for (const HostLevel& l : levels.levels) EXPECT_TRUE(l.exact) << l.name;
  // A job on two leaves of different pods: no pair at the pod class, so no pod level.
  SubsetCosts job(*costs, {0, 1, 16, 17});
  ASSERT_OK_AND_ASSIGN(HostLevels small, DetectLevels(job));
  EXPECT_THAT(small.names(), ElementsAre("host", "leaf", "top"));
  EXPECT_THAT(small.levels[1].group, ElementsAre(0, 0, 1, 1));
}

TEST(LevelsTest, OddShapes) {
  fabric::Fabric f;
  auto costs = FatTree2l16h(&f);
  auto host = [&](const std::string& name) { return f.FindHost(name); };
  {  // one host: its ranks are the whole job
    SubsetCosts one(*costs, {host("node07")});
    ASSERT_OK_AND_ASSIGN(HostLevels levels, DetectLevels(one));
    EXPECT_THAT(levels.names(), ElementsAre("host"));
    EXPECT_EQ(levels.levels[0].num_groups, 1);
  }
  {  // every host on one leaf: the leaf is the top
    SubsetCosts leaf(*costs, {host("node05"), host("node06"), host("node08")});
    ASSERT_OK_AND_ASSIGN(HostLevels levels, DetectLevels(leaf));
    EXPECT_THAT(levels.names(), ElementsAre("host", "top"));
    EXPECT_TRUE(levels.levels[1].exact);
  }
  {  // uneven leaves: 3, 1 and 2 hosts, interleaved in the host list
    SubsetCosts uneven(*costs, {host("node01"), host("node09"), host("node02"), host("node05"),
                                host("node10"), host("node03")});
    ASSERT_OK_AND_ASSIGN(HostLevels levels, DetectLevels(uneven));
    EXPECT_THAT(levels.names(), ElementsAre("host", "leaf", "top"));
    EXPECT_THAT(levels.levels[1].group, ElementsAre(0, 1, 0, 2, 1, 0));
    EXPECT_THAT(GroupSizes(levels.levels[1]), ElementsAre(3, 2, 1));
  }
  {  // one host per leaf: no leaf level
    SubsetCosts spread(*costs, {host("node01"), host("node05"), host("node09")});
    ASSERT_OK_AND_ASSIGN(HostLevels levels, DetectLevels(spread));
    EXPECT_THAT(levels.names(), ElementsAre("host", "top"));
  }
}

std::unique_ptr<DenseCostMatrix> Dense(int n, const std::function<double(int, int)>& alpha,
                                       double beta) {
  std::vector<double> a(n * n, 0), b(n * n, 0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      a[i * n + j] = alpha(i, j);
      b[i * n + j] = beta;
    }
  }
  auto m = DenseCostMatrix::Create(n, a, b);
  EXPECT_OK(m);
  return *std::move(m);
}

TEST(LevelsTest, ARingIsNotTransitiveAndChainsIntoOneGroup) {
  // Six hosts on a ring, cost by ring distance: neighbours are the closest class, and they
  // chain the whole ring into one group that holds pairs three hops apart.
  auto ring = Dense(
      6,
      [](int i, int j) {
        const int d = std::abs(i - j);
        return 1000.0 * std::min(d, 6 - d);
      },
      0.04);
  ASSERT_OK_AND_ASSIGN(HostLevels levels, DetectLevels(*ring));
  EXPECT_THAT(levels.names(), ElementsAre("host", "top"));
  EXPECT_FALSE(levels.levels[1].exact);
  EXPECT_DOUBLE_EQ(levels.levels[1].alpha_ns, 1000.0);
}

TEST(LevelsTest, ToleranceJoinsNoiseAndNotRealClasses) {
  // Two leaves of two hosts; the intra-leaf latencies differ by 0.01 %, the inter-leaf ones
  // are 40 % farther.
  auto m = Dense(
      4,
      [](int i, int j) {
        if (i / 2 != j / 2) return 1400.0;
        return i + j == 1 ? 1000.0 : 1000.1;
      },
      0.04);
  ASSERT_OK_AND_ASSIGN(HostLevels levels, DetectLevels(*m));
  EXPECT_THAT(levels.names(), ElementsAre("host", "leaf", "top"));
  LevelOptions strict;
  strict.tolerance = 0;
  ASSERT_OK_AND_ASSIGN(HostLevels split, DetectLevels(*m, strict));
  // Without tolerance the noise is a class of its own: one leaf first, then the other.
  EXPECT_THAT(split.names(), ElementsAre("host", "leaf", "pod", "top"));
  EXPECT_EQ(split.levels[1].num_groups, 3);
  EXPECT_EQ(split.levels[2].num_groups, 2);
  EXPECT_THAT(DetectLevels(*m, LevelOptions{0, 0.1}).status().code(),
              absl::StatusCode::kInvalidArgument);
}

// Two islands that cannot reach each other: the top joins them, inexactly.
class Islands final : public HostCostMatrix {
 public:
  int num_hosts() const override { return 4; }
  double AlphaNs(int a, int b) const override {
    if (a == b) return 0;
    return a / 2 == b / 2 ? 1000 : std::numeric_limits<double>::infinity();
  }
  double BetaNs(int a, int b) const override { return AlphaNs(a, b) > 0 ? 0.04 : 0; }
};

TEST(LevelsTest, UnreachableHostsMeetOnlyAtTheTop) {
  Islands m;
  ASSERT_OK_AND_ASSIGN(HostLevels levels, DetectLevels(m));
  EXPECT_THAT(levels.names(), ElementsAre("host", "leaf", "top"));
  EXPECT_THAT(levels.levels[1].group, ElementsAre(0, 0, 1, 1));
  EXPECT_FALSE(levels.levels[2].exact);
  EXPECT_TRUE(std::isinf(levels.levels[2].alpha_ns));
}

}  // namespace
}  // namespace toporr::mapping
