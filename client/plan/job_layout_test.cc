// libtoporr's MPI-free core: the layout every rank builds from the gathered host names, the
// placement it plans over, the gathered rows as a cost matrix, and the file row source.
// The contract checked here is the one the MPI tests rely on: with the same hosts, ranks
// and costs, libtoporr's plan is exactly `toporrctl plan`'s.
#include "client/plan/job_layout.h"

#include <sys/stat.h>

#include <fstream>

#include "client/costs/cost_file.h"
#include "client/costs/job_costs.h"
#include "client/costs/row_routes.h"
#include "client/costs/row_source.h"
#include "client/plan/launch_files.h"
#include "client/plan/node_topology.h"
#include "client/plan/plan.h"
#include "client/report/decision_report.h"
#include "collectors/hwloc_golden.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

TEST(JobLayoutTest, HostsInOrderOfFirstAppearance) {
  JobLayout l = LayoutFromRankHosts({"b", "a", "b", "c", "a"});
  EXPECT_THAT(l.hosts, ElementsAre("b", "a", "c"));
  EXPECT_THAT(l.rank_host, ElementsAre(0, 1, 0, 2, 1));
}

TEST(JobLayoutTest, UnboundRanksPlaceLikeToporrctlPlan) {
  const std::vector<std::string> ranks = {"n1", "n2", "n1", "n2", "n1"};
  JobLayout l = LayoutFromRankHosts(ranks);
  JobHosts hosts{{"n1", "n2"}, {3, 2}};
  ASSERT_OK_AND_ASSIGN(mapping::Placement want,
                       ExplicitPlacement(hosts, "n1\nn2\nn1\nn2\nn1\n", "ranks"));
  mapping::Placement got = JobPlacement(l, {});
  ASSERT_EQ(got.size(), want.size());
  for (int r = 0; r < got.size(); ++r) {
    EXPECT_EQ(got.ranks[r].host, want.ranks[r].host);
    EXPECT_EQ(got.ranks[r].core, want.ranks[r].core);
    EXPECT_EQ(got.ranks[r].l3, want.ranks[r].l3);
  }
}

TEST(JobLayoutTest, BoundRanksKeepTheirHwlocLocation) {
  JobLayout l = LayoutFromRankHosts({"n1", "n1"});
  mapping::RankLocation bound{0, 1, 2, 3, 17};
  mapping::Placement p = JobPlacement(l, {bound, mapping::RankLocation{}});
  EXPECT_EQ(p.ranks[0].core, 17);
  EXPECT_EQ(p.ranks[0].package, 1);
  EXPECT_EQ(p.ranks[1].core, 1);  // second rank of n1, unbound: slot 1
}

// Bound ranks: libtoporr locates each with hwloc and plans with its host's distances
// (client/mpi/bound_ranks.h, through NodeTopologyOf); `toporrctl plan --node-topology` gives
// its ranks the same topology's cores and costs. Same hosts, ranks and costs: the same plan.
TEST(JobLayoutTest, BoundRanksPlanLikeToporrctlPlanWithTheNodesTopology) {
  // 2 sockets of 4 cores, user latency and bandwidth matrices; 16 ranks dealt round-robin
  // over 2 hosts, each bound to the core of its place on its host (core c = P#c here).
  auto topology = collectors::LoadHwlocGolden("2pack-2numa-2l3-8core-userlat-userbw.xml");
  ASSERT_NE(topology, nullptr);
  ASSERT_OK_AND_ASSIGN(NodeTopology node, NodeTopologyOf(*topology));
  std::vector<std::string> rank_hosts;
  std::string ranks_file;
  std::vector<mapping::RankLocation> bound;
  for (int r = 0; r < 16; ++r) {
    rank_hosts.push_back(r % 2 == 0 ? "n1" : "n2");
    ranks_file += rank_hosts.back() + "\n";
    ASSERT_OK_AND_ASSIGN(collectors::PuLocation pu,
                         topology->LocatePu(r / 2, collectors::PuIndex::kOs));
    bound.push_back(ToRankLocation(pu));
  }
  const std::vector<float> n1 = {0, 1500, 0, 100}, n2 = {1500, 0, 100, 0};
  RowCostMatrix costs(2, {n1.data(), n2.data()});
  PlanRequest request;
  request.collective = mapping::Collective::kAllreduce;
  request.message_bytes = 1 << 20;

  NodeShape shape;
  shape.core_slots = node.core_slots;
  ASSERT_OK_AND_ASSIGN(
      mapping::Placement ctl_placement,
      ExplicitPlacement(JobHosts{{"n1", "n2"}, {8, 8}}, ranks_file, "ranks", shape));
  ASSERT_OK_AND_ASSIGN(PlanResult ctl, Plan(request, ctl_placement, costs, nullptr, node.intra));
  const mapping::Placement job_placement = JobPlacement(LayoutFromRankHosts(rank_hosts), bound);
  ASSERT_OK_AND_ASSIGN(PlanResult job, Plan(request, job_placement, costs, nullptr, node.intra));
  EXPECT_EQ(job.algorithm, ctl.algorithm);
  EXPECT_EQ(job.mapping, ctl.mapping);
  EXPECT_DOUBLE_EQ(job.before.time_ns, ctl.before.time_ns);
  EXPECT_DOUBLE_EQ(job.after.time_ns, ctl.after.time_ns);
  // The distances matter: with the stock intra-host costs the prediction differs.
  ASSERT_OK_AND_ASSIGN(PlanResult stock, Plan(request, job_placement, costs, nullptr));
  EXPECT_NE(stock.before.time_ns, job.before.time_ns);
}

class RowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // 3 hosts: asymmetric latencies, one zero rate (beta 0).
    file_.snapshot_id = 42;
    file_.hosts = {"a", "b", "c"};
    file_.costs.n = 3;
    file_.costs.hops = {0, 1, 3, 1, 0, 3, 3, 3, 0};
    file_.costs.latency_ns = {0, 900, 1300, 910, 0, 1250, 1300, 1240, 0};
    file_.costs.bottleneck_gbps = {0, 200, 100, 200, 0, 0, 100, 100, 0};
    path_ = ::toporr::testing::MakeTempDir("rows") + "/costs.bin";
    ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCostFile(file_));
    std::ofstream(path_, std::ios::binary) << bytes;
  }
  CostFile file_;
  std::string path_;
};

TEST_F(RowsTest, FileRowsInJobOrderMatchTheServedMatrix) {
  std::unique_ptr<RowSource> source = NewFileRowSource(path_);
  EXPECT_EQ(source->kind(), "file");
  const std::vector<std::string> job = {"c", "a", "b"};  // not the file's order
  ASSERT_OK_AND_ASSIGN(HostListTicket ticket, source->Prepare(job));
  EXPECT_EQ(ticket.snapshot_id, 42);
  std::vector<CostRow> rows;
  std::vector<const float*> views;
  for (int h = 0; h < 3; ++h) {
    ASSERT_OK_AND_ASSIGN(CostRow row, source->Row(ticket, job, h, /*with_routes=*/true));
    EXPECT_EQ(row.snapshot_id, 42);
    EXPECT_TRUE(row.routes.offsets.empty()) << "a TOPORRC1 file has no routes";
    rows.push_back(std::move(row));
  }
  for (const CostRow& r : rows) views.push_back(r.values.data());
  RowCostMatrix rows_matrix(3, views);
  // The same matrix as toporrctl reads it (JobCostsFromMatrix), permuted to job order.
  const int perm[3] = {2, 0, 1};
  std::vector<double> lat(9), gbps(9);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      lat[i * 3 + j] = file_.costs.latency_ns[perm[i] * 3 + perm[j]];
      gbps[i * 3 + j] = file_.costs.bottleneck_gbps[perm[i] * 3 + perm[j]];
    }
  }
  ASSERT_OK_AND_ASSIGN(JobCosts served, JobCostsFromMatrix(3, lat, gbps));
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      EXPECT_EQ(rows_matrix.AlphaNs(a, b), served.costs->AlphaNs(a, b)) << a << "," << b;
      EXPECT_EQ(rows_matrix.BetaNs(a, b), served.costs->BetaNs(a, b)) << a << "," << b;
    }
  }
}

// With a TOPORRC2 file each leader's row carries its routes in job order; packed and
// unpacked as libtoporr gathers them on rank 0, they are the file's routes, permuted.
TEST_F(RowsTest, FileRoutesInJobOrderReachRankZeroUnchanged) {
  // a, b on one switch, c on another: directed links 0..5 = a/b/c up/down, 6/7 between.
  const std::vector<std::vector<uint32_t>> file_routes = {
      {}, {0, 3}, {0, 6, 5}, {2, 1}, {}, {2, 6, 5}, {4, 7, 1}, {4, 7, 3}, {}};
  file_.routes.link_gbps = {200, 200, 200, 200, 100, 100, 100, 100};
  file_.routes.offsets = {0};
  for (const auto& r : file_routes) {
    file_.routes.links.insert(file_.routes.links.end(), r.begin(), r.end());
    file_.routes.offsets.push_back(file_.routes.links.size());
  }
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCostFile(file_));
  std::ofstream(path_, std::ios::binary | std::ios::trunc) << bytes;
  std::unique_ptr<RowSource> source = NewFileRowSource(path_);
  const std::vector<std::string> job = {"c", "a", "b"};
  const int perm[3] = {2, 0, 1};
  ASSERT_OK_AND_ASSIGN(HostListTicket ticket, source->Prepare(job));
  std::vector<uint32_t> words;
  for (int h : {2, 0, 1}) {  // leaders in any order
    ASSERT_OK_AND_ASSIGN(CostRow row, source->Row(ticket, job, h, /*with_routes=*/true));
    ASSERT_EQ(row.routes.offsets.size(), 4u);
    PackRouteRow(h, row.routes, &words);
  }
  std::string why;
  ASSERT_OK_AND_ASSIGN(auto routes, UnpackRoutes(words, 3, &why));
  ASSERT_NE(routes, nullptr) << why;
  // Equal up to renaming the links: compare rates along each route and the sharing of
  // c's cable up by c -> a and c -> b.
  std::vector<int32_t> r, other;
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      routes->Route(a, b, &r);
      const auto& want = file_routes[perm[a] * 3 + perm[b]];
      ASSERT_EQ(r.size(), want.size()) << a << "," << b;
      for (size_t k = 0; k < r.size(); ++k) {
        EXPECT_EQ(routes->link_gbps(r[k]), file_.routes.link_gbps[want[k]]);
      }
    }
  }
  routes->Route(0, 1, &r);
  routes->Route(0, 2, &other);
  EXPECT_EQ(r[0], other[0]);
  EXPECT_EQ(r[1], other[1]);  // both cross the c -> (a, b) switch link
  EXPECT_NE(r[2], other[2]);
  // Without asking, no routes.
  ASSERT_OK_AND_ASSIGN(CostRow plain, source->Row(ticket, job, 0, /*with_routes=*/false));
  EXPECT_TRUE(plain.routes.offsets.empty());
}

TEST_F(RowsTest, UnknownHostAndMissingFileAreNamed) {
  std::unique_ptr<RowSource> source = NewFileRowSource(path_);
  EXPECT_THAT(source->Prepare({"a", "zz"}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("host zz of the job")));
  EXPECT_THAT(NewFileRowSource(path_ + ".absent")->Prepare({"a"}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("cannot open")));
}

TEST(DecisionReportTest, OneJsonLineWithNullsForWhatIsUnknown) {
  Decision d;
  d.collective = "allreduce";
  d.algorithm = "auto";
  d.chosen_algorithm = "ring";
  d.bytes = 1024;
  d.size = 2;
  d.hosts = 2;
  d.source = "fallback";
  d.fallback_reason = "toporrd at unix:/x: \"down\"";
  d.new_order = {0, 1};
  const std::string line = DecisionJsonLine(d);
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_THAT(line, HasSubstr("\"fallback_reason\":\"toporrd at unix:/x: \\\"down\\\"\""));
  EXPECT_THAT(line, HasSubstr("\"snapshot_id\":null"));
  EXPECT_THAT(line, HasSubstr("\"predicted_before_ns\":null"));
  EXPECT_THAT(line, HasSubstr("\"new_order\":[0,1]"));
  const std::string dir = ::toporr::testing::MakeTempDir("report");
  EXPECT_OK(AppendReportLine(dir + "/r.jsonl", line));
  EXPECT_OK(AppendReportLine(dir + "/r.jsonl", line));
  EXPECT_EQ(::toporr::testing::ReadFileOrDie(dir + "/r.jsonl"), line + line);
  EXPECT_THAT(AppendReportLine(dir + "/absent/r.jsonl", line),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("absent/r.jsonl")));
  // A FIFO nobody reads: refused at once (not a regular file), not a blocked job.
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(AppendReportLine(fifo, line),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("fifo")));
}

}  // namespace
}  // namespace toporr::client
