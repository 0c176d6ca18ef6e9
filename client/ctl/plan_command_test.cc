// `toporrctl plan --cart` and `plan --traffic` end to end through RunCtl, offline on the bundled
// 16-host fat tree (deploy/demo/fattree-2l-16h.ibnet): its order is libtoporr's MPI_Cart_create
// order for the same hosts and ranks (client/plan/graph_plan.h on the same placement and costs).
// Every plan kind's --launcher files against the order it replies and the files of the other
// options.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/costs/job_costs.h"
#include "client/ctl/dispatch.h"
#include "client/ctl/testing/ctl_run.h"
#include "client/plan/graph_plan.h"
#include "client/plan/launch_files.h"
#include "collectors/fabric_input.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mapping/schedules/algorithms.h"

namespace toporr::client::ctl {
namespace {

using testing::Ctl;
using testing::CtlRun;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kFabric[] = "deploy/demo/fattree-2l-16h.ibnet";

// 16 ranks over 8 hosts, one per leaf in turn, as the MPI tests place them; the hostfile
// lists the hosts in order of first appearance (what libtoporr's layout numbers them by).
class CartPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = ::toporr::testing::MakeTempDir("cart_plan");
    hostfile_ = dir + "/job.hosts";
    ranks_ = dir + "/job.ranks";
    out_ = dir + "/cart.hosts";
    const std::vector<std::string> spread = {"node01", "node05", "node09", "node13",
                                             "node02", "node06", "node10", "node14"};
    std::string hosts_text, ranks_text;
    for (const std::string& h : spread) hosts_text += h + " slots=2\n";
    for (int r = 0; r < 16; ++r) ranks_text += spread[r % 8] + "\n";
    std::ofstream(hostfile_) << hosts_text;
    std::ofstream(ranks_) << ranks_text;
    ASSERT_OK_AND_ASSIGN(hosts_, ParseHostfile(hosts_text, "job.hosts"));
    ASSERT_OK_AND_ASSIGN(placement_, ExplicitPlacement(hosts_, ranks_text, "job.ranks"));
  }

  // The embedding client/plan/graph_plan.h gives the grid on this job.
  mapping::Embedding Expected(const std::vector<int>& dims, const std::vector<bool>& periods) {
    const std::string text = ::toporr::testing::ReadFileOrDie(kFabric);
    collectors::FabricInput in;
    in.content = text;
    absl::StatusOr<fabric::Fabric> fabric = collectors::ParseFabricInput(in);
    EXPECT_OK(fabric.status());
    absl::StatusOr<JobCosts> costs = JobCostsFromFabric(*fabric, hosts_.names);
    EXPECT_OK(costs.status());
    absl::StatusOr<mapping::CommGraph> graph = CartGraph(dims, periods, placement_.size());
    EXPECT_OK(graph.status());
    absl::StatusOr<mapping::Embedding> e = PlanGraph(*graph, placement_, *costs->costs);
    EXPECT_OK(e.status());
    return *e;
  }

  std::vector<std::string> Plan(std::vector<std::string> extra, bool json = true) {
    std::vector<std::string> args = {"plan", "--hostfile", hostfile_, "--ranks",
                                     ranks_, "--fabric",   kFabric};
    if (json) args.insert(args.begin(), "--json");
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  std::string hostfile_, ranks_, out_;
  JobHosts hosts_;
  mapping::Placement placement_;
};

// `plan`'s help names every algorithm of the registry and every collective.
TEST(PlanHelp, NamesEveryAlgorithmOfTheRegistry) {
  const std::string help = Ctl({"help"}).out;
  for (const mapping::AlgorithmInfo& row : mapping::kAlgorithms) {
    EXPECT_THAT(help, ::testing::ContainsRegex("[ ,]" + std::string(row.name) + "[ ,.(]"))
        << row.name;
  }
  for (const mapping::CollectiveInfo& row : mapping::kCollectives) {
    EXPECT_THAT(help, HasSubstr(std::string(row.name))) << row.name;
  }
}

TEST_F(CartPlanTest, JsonGivesTheLibrarysOrderAndItsPredictions) {
  const mapping::Embedding want = Expected({4, 4}, {true, false});
  ASSERT_NE(want.method, mapping::EmbedMethod::kIdentity) << "round-robin hosts are poor";
  CtlRun r = Ctl(Plan({"--cart", "4x4:1x0", "--hostfile-out", out_}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("{\"cart\":{\"dims\":[4,4],\"periods\":[true,false]},"
                                "\"edge_bytes\":4096,\"ranks\":16,\"hosts\":8,"));
  EXPECT_THAT(r.out,
              HasSubstr(absl::StrCat("\"new_order\":[", absl::StrJoin(want.mapping, ","), "]")));
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("\"embedder\":\"",
                                            std::string(mapping::EmbedMethodName(want.method)),
                                            "\",\"reordered\":true")));
  EXPECT_THAT(r.out, HasSubstr("\"before\":{\"mapping\":\"identity\",\"time_ns\":"));
  EXPECT_THAT(r.out, HasSubstr("\"candidates\":[{\"mapping\":\"identity\""));
  // The reordered hostfile launches the new order: line i is new rank i's host.
  std::string lines;
  for (int32_t old_rank : want.mapping) {
    lines += hosts_.names[placement_.ranks[old_rank].host] + "\n";
  }
  EXPECT_EQ(::toporr::testing::ReadFileOrDie(out_), lines);
}

TEST_F(CartPlanTest, PeriodsDefaultToNoneAndTextSaysTheOrder) {
  const mapping::Embedding want = Expected({4, 4}, {false, false});
  CtlRun json = Ctl(Plan({"--cart", "4x4"}));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"periods\":[false,false]"));
  EXPECT_THAT(json.out,
              HasSubstr(absl::StrCat("\"new_order\":[", absl::StrJoin(want.mapping, ","), "]")));
  CtlRun text = Ctl(Plan({"--cart", "4x4"}, /*json=*/false));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, StartsWith("cart 4x4 (periods 0x0) over 16 ranks on 8 hosts; costs "
                                   "from fabric"));
  EXPECT_THAT(text.out, HasSubstr("predicted cost (one 4096-byte message per edge): before "));
  EXPECT_THAT(text.out, HasSubstr(absl::StrCat("new rank order (new rank: old rank@host):\n  0: ",
                                               want.mapping[0], "@")));
  EXPECT_THAT(text.out, HasSubstr("candidates: identity "));
}

TEST_F(CartPlanTest, AGridOfFewerNodesThanRanksIsPlannedAndOneOfMoreIsRefused) {
  CtlRun fewer = Ctl(Plan({"--cart", "3x4"}));
  EXPECT_EQ(fewer.exit_code, 0) << fewer.err;
  CtlRun more = Ctl(Plan({"--cart", "4x8"}));
  EXPECT_EQ(more.exit_code, 1);
  EXPECT_THAT(more.err, HasSubstr("plan --cart: a cartesian grid of 32 nodes"));
}

TEST_F(CartPlanTest, SlurmHostfileIsTheNewOrderAfterAComment) {
  const std::string slurm = out_ + ".slurm";
  for (const std::vector<std::string>& what :
       {std::vector<std::string>{"--cart", "4x4:1x0"},
        std::vector<std::string>{"--collective", "allreduce", "--algorithm", "ring", "--size",
                                 "1M"}}) {
    SCOPED_TRACE(what[0]);
    std::vector<std::string> extra = what;
    for (const char* a : {"--hostfile-out", out_.c_str(), "--slurm-hostfile", slurm.c_str()}) {
      extra.push_back(a);
    }
    CtlRun r = Ctl(Plan(extra, /*json=*/false));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("Slurm hostfile written to ", slurm,
                                              " (use: SLURM_HOSTFILE=", slurm,
                                              " srun -n 16 --distribution=arbitrary ...)\n")));
    const std::string text = ::toporr::testing::ReadFileOrDie(slurm);
    EXPECT_THAT(text,
                StartsWith(absl::StrCat("# toporr plan: ", what[0] == "--cart" ? "cart" : "ring",
                                        ", host of each new rank (srun -n 16 "
                                        "--distribution=arbitrary, SLURM_HOSTFILE)\n")));
    EXPECT_EQ(text.substr(text.find('\n') + 1), ::toporr::testing::ReadFileOrDie(out_));
  }
}

TEST_F(CartPlanTest, CollectivePlansGiveTheLeafSortedBaselineAndPlanFromIt) {
  // Ranks r on spread[r % 8]: leaves in order of their first host, each host's ranks
  // together (node01: 0 8, node02: 4 12 under leaf 1, ...).
  const std::string leaf_sorted = "[0,8,4,12,1,9,5,13,2,10,6,14,3,11,7,15]";
  CtlRun r = Ctl(Plan({"--collective", "allreduce", "--algorithm", "ring", "--size", "1M"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"from\":\"launch\""));
  EXPECT_THAT(r.out, HasSubstr("\"leaf_sorted\":{\"algorithm\":\"ring\",\"effective_algorithm\":"
                               "\"ring\",\"mapping\":\"leaf-sorted\",\"time_ns\":"));
  EXPECT_THAT(r.out, HasSubstr("\"leaf_sorted_order\":" + leaf_sorted));
  EXPECT_THAT(r.out, HasSubstr("\"speedup_vs_leaf_sorted\":"));
  CtlRun text = Ctl(Plan({"--collective", "bcast", "--size", "16M", "--mpi-library", "openmpi"},
                         /*json=*/false));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("leaf-sorted order (the free baseline: hosts grouped by leaf "
                                  "switch): mpi_library ("));
  EXPECT_THAT(text.out, HasSubstr("; toporr vs leaf-sorted "));
  // --from leaf-sorted: the launch is that order, so its own leaf-sorted order is itself, and
  // the files written are of that launch.
  const std::string from_out = out_ + ".from";
  CtlRun from = Ctl(Plan({"--collective", "allreduce", "--algorithm", "ring", "--size", "1M",
                          "--from", "leaf-sorted", "--hostfile-out", from_out}));
  ASSERT_EQ(from.exit_code, 0) << from.err;
  EXPECT_THAT(from.out, HasSubstr("\"from\":\"leaf-sorted\""));
  EXPECT_THAT(from.out, HasSubstr("\"leaf_sorted_order\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]"));
  const std::string hosts = ::toporr::testing::ReadFileOrDie(from_out);
  EXPECT_EQ(std::count(hosts.begin(), hosts.end(), '\n'), 16);
  CtlRun bad = Ctl(Plan({"--collective", "bcast", "--size", "1M", "--from", "sorted"}));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--from must be launch or leaf-sorted"));
  CtlRun cart = Ctl(Plan({"--cart", "4x4", "--from", "leaf-sorted"}));
  EXPECT_EQ(cart.exit_code, 2);
  EXPECT_THAT(cart.err, HasSubstr("--from leaf-sorted is for --collective"));
}

// The time_ns of the "before" candidate of a plan's JSON.
double BeforeTimeNs(const std::string& json) {
  const size_t before = json.find("\"before\":");
  const size_t at = json.find("\"time_ns\":", before);
  if (before == std::string::npos || at == std::string::npos) return -1;
  return std::strtod(json.c_str() + at + 10, nullptr);
}

TEST_F(CartPlanTest, CostModelFileChangesThePredictionsAndBadOnesAreRefused) {
  // A toporrd.conf: its other keys are not the plan's business.
  const std::string model = out_ + ".model";
  std::ofstream(model) << "db_path = /srv/toporr.db\ncost_model = tcp\n"
                          "cost_model_host_rate_scale = 0.01\n"
                          "cost_model_switch_rate_scale = 0.01\n";
  const std::vector<std::string> ring = {"--collective", "allreduce", "--algorithm",
                                         "ring",         "--size",    "1M"};
  CtlRun preset = Ctl(Plan(ring));
  ASSERT_EQ(preset.exit_code, 0) << preset.err;
  std::vector<std::string> with_model = ring;
  with_model.insert(with_model.end(), {"--cost-model", model});
  CtlRun fitted = Ctl(Plan(with_model));
  ASSERT_EQ(fitted.exit_code, 0) << fitted.err;
  // Every rate a hundredth: the ring's bandwidth term, which dominates at 1 MiB, 100 times.
  EXPECT_GT(BeforeTimeNs(fitted.out), 50 * BeforeTimeNs(preset.out));
  EXPECT_LT(BeforeTimeNs(fitted.out), 150 * BeforeTimeNs(preset.out));

  std::ofstream(model) << "cost_model = tcp\n\ncost_model_host_rate_scale = 0\n";
  CtlRun bad = Ctl(Plan(with_model));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr(".model:3: cost_model_host_rate_scale: '0' is out of range"));
  CtlRun daemon = Ctl({"plan", "--hostfile", hostfile_, "--collective", "bcast", "--size", "1M",
                       "--cost-model", model});
  EXPECT_EQ(daemon.exit_code, 2);
  EXPECT_THAT(daemon.err, HasSubstr("--cost-model needs --fabric"));
}

TEST_F(CartPlanTest, UsageErrorsExitTwo) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--cart", "4x4", "--collective", "allreduce", "--size", "1M"}, "exclude each other"},
      {{"--cart", "4x4", "--size", "1M"}, "--size is for --collective, not --cart"},
      {{"--cart", "4x4", "--algorithm", "ring"}, "--algorithm is for --collective"},
      {{"--cart", "4x4", "--root", "1"}, "--root is for --collective"},
      {{"--cart", "4x"}, "dimensions must be numbers >= 1"},
      {{"--cart", "0x4"}, "dimensions must be numbers >= 1"},
      {{"--cart", "4x4:1"}, "2 dimensions but 1 periods"},
      {{"--cart", "4x4:1x2"}, "periods must be 0 or 1"},
      {{}, "--collective, --cart or --traffic is required"},
      {{"--traffic", "p.prof", "--collective", "bcast"}, "--traffic excludes --collective"},
      {{"--traffic", "p.prof", "--cart", "4x4"}, "--traffic excludes --collective and --cart"},
      {{"--traffic", "p.prof", "--size", "1M"}, "--size is for --collective, not --traffic"},
      {{"--traffic", "p.prof", "--mpi-library", "lam"}, "lam"},
      {{"--collective", "bcast", "--size", "1M", "--machinefile", "m"},
       "--machinefile is for --cart and --traffic"},
      {{"--cart", "4x4", "--launcher", "srun"}, "--launcher and --launch-file go together"},
      {{"--cart", "4x4", "--launch-file", "f"}, "--launcher and --launch-file go together"},
      {{"--cart", "4x4", "--launcher", "deepspeed", "--launch-file", "f"},
       "--launcher must be torchrun, srun, mpirun or mpiexec"},
      {{"--collective", "bcast", "--size", "1M", "--mpi-library", "mpich", "--launcher", "mpirun",
        "--launch-file", "f"},
       "for --mpi-library mpich use --launcher mpiexec"},
      {{"--traffic", "p.prof", "--mpi-library", "openmpi", "--launcher", "mpiexec", "--launch-file",
        "f"},
       "for --mpi-library openmpi use --launcher mpirun"},
      {{"--cart", "4x4", "--mpi-library", "mpich", "--launcher", "mpiexec", "--launch-file", "f"},
       "--mpi-library is for --collective, not --cart"},
  };
  for (const auto& [extra, message] : bad) {
    SCOPED_TRACE(::testing::PrintToString(extra));
    CtlRun r = Ctl(Plan(extra));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, HasSubstr(message));
    EXPECT_THAT(r.err, HasSubstr("usage: toporrctl"));
    EXPECT_EQ(r.out, "");
  }
}

// A profile of pairs: rank r sends 10 MiB to r ^ 1, and a little to r + 2. Launched as
// CartPlanTest places ranks (r on spread[r % 8]), every pair is split over two leaves.
std::string PairsProfile(int ranks) {
  std::string text = absl::StrCat("toporr-profile 1 ranks ", ranks, "\n");
  for (int r = 0; r < ranks; ++r) {
    absl::StrAppend(&text, "p2p ", r, " ", r ^ 1, " 10485760 10\n");
    if (r + 2 < ranks) absl::StrAppend(&text, "p2p ", r, " ", r + 2, " 64 1\n");
  }
  absl::StrAppend(&text, "comm 0 ", ranks, " 0-", ranks - 1, "\ncoll 0 allreduce 4 32\nend\n");
  return text;
}

TEST_F(CartPlanTest, TrafficPlanPutsTheProfilesPairsTogetherAndWritesEveryLauncher) {
  const std::string profile = out_ + ".prof", machines = out_ + ".machines";
  std::ofstream(profile) << PairsProfile(16);
  CtlRun r = Ctl(Plan({"--traffic", profile, "--hostfile-out", out_, "--machinefile", machines}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith(absl::StrCat("{\"traffic\":{\"profile\":\"", profile,
                                             "\",\"p2p_bytes\":", 16 * 10485760 + 14 * 64,
                                             ",\"rma_bytes\":0,\"collective_bytes\":")));
  EXPECT_THAT(r.out, HasSubstr("\"reordered\":true"));
  // New ranks 2k and 2k + 1 (a pair of the profile) share a host in the new order.
  const std::vector<std::string> lines =
      absl::StrSplit(::toporr::testing::ReadFileOrDie(out_), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 16u);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(lines[2 * k], lines[2 * k + 1]) << k;
  // The MPICH machinefile: the same hosts, one "host:count" per run of ranks.
  std::string runs;
  for (int k = 0; k < 8; ++k) {
    if (k == 0 || lines[2 * k] != lines[2 * k - 1]) {
      absl::StrAppend(&runs, lines[2 * k], ":2\n");
    } else {
      runs.replace(runs.size() - 2, 1, "4");
    }
  }
  EXPECT_EQ(::toporr::testing::ReadFileOrDie(machines),
            absl::StrCat("# toporr plan: traffic, hosts of the new ranks in order (mpiexec -f "
                         "FILE -n 16)\n",
                         runs));
  CtlRun text = Ctl(Plan({"--traffic", profile}, /*json=*/false));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, StartsWith(absl::StrCat("traffic of ", profile,
                                                " over 16 ranks on 8 hosts; costs from fabric")));
  EXPECT_THAT(text.out, HasSubstr("predicted cost (the profile's traffic sent at once, sharing "
                                  "links): before "));
}

// The number after `"key":` in a JSON text; NaN when there is none.
double JsonNumber(const std::string& json, const std::string& key) {
  const size_t at = json.find(absl::StrCat("\"", key, "\":"));
  if (at == std::string::npos) return std::nan("");
  return std::strtod(json.c_str() + at + key.size() + 3, nullptr);
}

TEST_F(CartPlanTest, TrafficPlanSaysTheTimeInsideMpiAndBoundsTheRunTime) {
  const std::string profile = out_ + ".prof";
  std::string text = PairsProfile(16);
  // Every rank spent 60 % of its run inside MPI, rank 3 90 %.
  std::string times;
  for (int r = 0; r < 16; ++r)
    absl::StrAppend(&times, "time ", r, " 1000000 ", r == 3 ? 900000 : 600000, "\n");
  text.insert(text.find('\n') + 1, times);
  std::ofstream(profile) << text;
  CtlRun r = Ctl(Plan({"--traffic", profile}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"mpi_time_share\":{\"mean\":"));
  EXPECT_NEAR(JsonNumber(r.out, "mean"), 0.61875, 1e-9);
  EXPECT_NEAR(JsonNumber(r.out, "min"), 0.6, 1e-9);
  EXPECT_NEAR(JsonNumber(r.out, "max"), 0.9, 1e-9);
  const double speedup = JsonNumber(r.out, "speedup");
  const double bound = JsonNumber(r.out, "run_time_speedup_bound");
  EXPECT_GT(speedup, 1.1);
  EXPECT_NEAR(bound, 1 / (1 - 0.61875 + 0.61875 / speedup), 1e-9);
  CtlRun t = Ctl(Plan({"--traffic", profile}, /*json=*/false));
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_THAT(t.out, HasSubstr("time inside MPI: 62 % of the run (mean over 16 ranks, 60-90 %)\n"));
  EXPECT_THAT(t.out, HasSubstr("run time: at most "));
  // Without time records neither line.
  std::ofstream(profile) << PairsProfile(16);
  CtlRun untimed = Ctl(Plan({"--traffic", profile}, /*json=*/false));
  EXPECT_THAT(untimed.out, Not(HasSubstr("time inside MPI")));
  EXPECT_THAT(untimed.out, Not(HasSubstr("run time:")));
}

TEST_F(CartPlanTest, TrafficPlanKeepsAnOrderNothingBeats) {
  // Pairs r, r + 8 already share a host in this placement.
  const std::string profile = out_ + ".prof";
  std::string text = "toporr-profile 1 ranks 16\n";
  for (int r = 0; r < 16; ++r) absl::StrAppend(&text, "p2p ", r, " ", (r + 8) % 16, " 1048576 1\n");
  std::ofstream(profile) << text << "end\n";
  CtlRun r = Ctl(Plan({"--traffic", profile}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"embedder\":\"identity\",\"reordered\":false"));
  EXPECT_THAT(r.out, HasSubstr("\"new_order\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]"));
}

TEST_F(CartPlanTest, TrafficPlanRefusesBadProfilesNamingFileAndLine) {
  const std::string profile = out_ + ".prof";
  const std::string good = PairsProfile(16);
  const struct {
    std::string text;
    std::string message;
  } bad[] = {
      {PairsProfile(8), "a profile of 8 ranks, but the job has 16"},
      {good.substr(0, good.size() - 4), "truncated"},
      {"toporr-profile 2 ranks 16\nend\n", ":1: version 2"},
      {"toporr-profile 1 ranks 16\np2p 0 16 8 1\nend\n", ":2:"},
      {"", ":1:"},
  };
  for (const auto& [text, message] : bad) {
    SCOPED_TRACE(message);
    std::ofstream(profile) << text;
    CtlRun r = Ctl(Plan({"--traffic", profile}));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_THAT(r.err, HasSubstr(profile));
    EXPECT_THAT(r.err, HasSubstr(message));
    EXPECT_EQ(r.out, "");
  }
  CtlRun missing = Ctl(Plan({"--traffic", profile + ".absent"}));
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_THAT(missing.err, HasSubstr(profile + ".absent"));
}

// The old rank of each new rank in a plan's JSON ("new_order").
std::vector<int32_t> NewOrder(const std::string& json) {
  const size_t at = json.find("\"new_order\":[");
  if (at == std::string::npos) return {};
  const size_t begin = at + 13;
  std::vector<int32_t> order;
  for (absl::string_view n :
       absl::StrSplit(absl::string_view(json).substr(begin, json.find(']', begin) - begin), ',')) {
    int32_t rank = 0;
    if (absl::SimpleAtoi(n, &rank)) order.push_back(rank);
  }
  return order;
}

// The plans of every kind, each with the option that writes the file --launcher srun or
// mpirun (and mpiexec, where the plan takes --machinefile) must equal.
struct PlanKind {
  std::string name;  // the plan's header comment names it
  std::vector<std::string> args;
  bool takes_machinefile = true;
};

class LauncherTest : public CartPlanTest {
 protected:
  void SetUp() override {
    CartPlanTest::SetUp();
    profile_ = out_ + ".prof";
    std::ofstream(profile_) << PairsProfile(16);
    kinds_ = {
        {"ring",
         {"--collective", "allreduce", "--algorithm", "ring", "--size", "1M"},
         /*takes_machinefile=*/false},
        {"cart", {"--cart", "4x4:1x0"}},
        {"traffic", {"--traffic", profile_}},
    };
  }

  // `kind` planned with --launcher `launcher` and the files `extra` asks for, as JSON.
  CtlRun PlanWithLauncher(const PlanKind& kind, const std::string& launcher,
                          const std::string& file, std::vector<std::string> extra = {},
                          bool json = true) {
    std::vector<std::string> args = kind.args;
    args.insert(args.end(), {"--launcher", launcher, "--launch-file", file});
    args.insert(args.end(), extra.begin(), extra.end());
    return Ctl(Plan(args, json));
  }

  std::string HostOf(int32_t old_rank) const {
    return hosts_.names[placement_.ranks[old_rank].host];
  }

  std::string profile_;
  std::vector<PlanKind> kinds_;
};

TEST_F(LauncherTest, SrunAndMpiLaunchersWriteWhatTheirOwnOptionsWrite) {
  const std::string launch = out_ + ".launch", slurm = out_ + ".slurm",
                    rankfile = out_ + ".rankfile", machines = out_ + ".machines";
  for (const PlanKind& kind : kinds_) {
    SCOPED_TRACE(kind.name);
    CtlRun srun = PlanWithLauncher(kind, "srun", launch, {"--slurm-hostfile", slurm});
    ASSERT_EQ(srun.exit_code, 0) << srun.err;
    EXPECT_EQ(::toporr::testing::ReadFileOrDie(launch), ::toporr::testing::ReadFileOrDie(slurm));
    EXPECT_THAT(srun.out, HasSubstr(absl::StrCat("\"launcher\":\"srun\",\"launch_file\":\"", launch,
                                                 "\",\"launcher_exact\":true")));
    EXPECT_THAT(srun.out, Not(HasSubstr("\"torchrun\":")));

    CtlRun mpirun = PlanWithLauncher(kind, "mpirun", launch, {"--rankfile", rankfile});
    ASSERT_EQ(mpirun.exit_code, 0) << mpirun.err;
    EXPECT_EQ(::toporr::testing::ReadFileOrDie(launch), ::toporr::testing::ReadFileOrDie(rankfile));
    EXPECT_THAT(::toporr::testing::ReadFileOrDie(launch),
                StartsWith(absl::StrCat("# toporr plan: ", kind.name, ", new rank -> slot\n")));

    std::vector<std::string> extra;
    if (kind.takes_machinefile) extra = {"--machinefile", machines};
    CtlRun mpiexec = PlanWithLauncher(kind, "mpiexec", launch, extra);
    ASSERT_EQ(mpiexec.exit_code, 0) << mpiexec.err;
    const std::string machinefile = ::toporr::testing::ReadFileOrDie(launch);
    EXPECT_EQ(machinefile, MpichMachinefile(NewOrder(mpiexec.out), kind.name, placement_, hosts_));
    if (kind.takes_machinefile) {
      EXPECT_EQ(machinefile, ::toporr::testing::ReadFileOrDie(machines));
    }

    // The text says how each launcher reads its file.
    const std::string note =
        kind.name == "cart" ? " and MPI_Cart_create with reorder = 0)\n" : ")\n";
    CtlRun text = PlanWithLauncher(kind, "srun", launch, {}, /*json=*/false);
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_THAT(text.out,
                HasSubstr(absl::StrCat("srun launch file written to ", launch,
                                       " (use: SLURM_HOSTFILE=", launch,
                                       " srun -n 16 --distribution=arbitrary ...", note)));
    text = PlanWithLauncher(kind, "mpirun", launch, {}, /*json=*/false);
    EXPECT_THAT(text.out,
                HasSubstr(absl::StrCat("Open MPI rankfile written to ", launch,
                                       " (use: mpirun --rankfile ", launch, " -np 16 ...", note)));
    text = PlanWithLauncher(kind, "mpiexec", launch, {}, /*json=*/false);
    EXPECT_THAT(text.out,
                HasSubstr(absl::StrCat("MPICH machinefile written to ", launch,
                                       " (use: mpiexec -f ", launch, " -n 16 ...", note)));
  }
}

TEST_F(LauncherTest, TorchrunNodeRanksFollowTheNewOrderHostByHost) {
  const std::string launch = out_ + ".torchrun";
  for (const PlanKind& kind : kinds_) {
    SCOPED_TRACE(kind.name);
    CtlRun r = PlanWithLauncher(kind, "torchrun", launch);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<int32_t> order = NewOrder(r.out);
    ASSERT_EQ(order.size(), 16u);
    // Node ranks: hosts in the order of their first new rank. Exact when every host's new
    // ranks are consecutive, i.e. new rank i on the host of node rank i / 2.
    std::vector<std::string> nodes;
    for (int32_t old_rank : order) {
      if (std::find(nodes.begin(), nodes.end(), HostOf(old_rank)) == nodes.end()) {
        nodes.push_back(HostOf(old_rank));
      }
    }
    ASSERT_EQ(nodes.size(), 8u);
    bool exact = true;
    for (size_t i = 0; i < order.size(); ++i) exact = exact && HostOf(order[i]) == nodes[i / 2];
    std::string lines;
    for (size_t node = 0; node < nodes.size(); ++node) {
      absl::StrAppend(&lines, nodes[node], " ", node, "\n");
    }
    EXPECT_EQ(::toporr::testing::ReadFileOrDie(launch),
              absl::StrCat("# toporr plan: ", kind.name,
                           ", node rank of each host (torchrun --nnodes 8 --nproc_per_node 2 "
                           "--node_rank N)\n",
                           lines));
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat(
                           "\"launcher\":\"torchrun\",\"launch_file\":\"", launch,
                           "\",\"launcher_exact\":", exact ? "true" : "false",
                           ",\"torchrun\":{\"nnodes\":8,\"nproc_per_node\":2,\"master_addr\":\"",
                           nodes[0], "\",\"master_port\":29500,\"node_rank_hosts\":[\"",
                           absl::StrJoin(nodes, "\",\""), "\"]}")));
    CtlRun text = PlanWithLauncher(kind, "torchrun", launch, {}, /*json=*/false);
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_THAT(text.out, HasSubstr(absl::StrCat("torchrun node ranks written to ", launch,
                                                 "; each host runs (static rendezvous on ",
                                                 nodes[0], "):\n")));
    for (size_t node = 0; node < nodes.size(); ++node) {
      EXPECT_THAT(text.out, HasSubstr(absl::StrCat("  ", nodes[node],
                                                   ": torchrun --nnodes 8 --nproc_per_node 2 "
                                                   "--node_rank ",
                                                   node, " --master_addr ", nodes[0],
                                                   " --master_port 29500 ...\n")));
    }
    EXPECT_EQ(text.out.find("only host by host") != std::string::npos, !exact);
  }
}

TEST_F(LauncherTest, TorchrunSaysWhenItFollowsTheOrderOnlyHostByHost) {
  // Pairs r, r + 8 already share a host, so the round-robin launch order is kept: no host's
  // ranks are consecutive in it.
  std::string text = "toporr-profile 1 ranks 16\n";
  for (int r = 0; r < 16; ++r) absl::StrAppend(&text, "p2p ", r, " ", (r + 8) % 16, " 1048576 1\n");
  std::ofstream(profile_) << text << "end\n";
  const std::string launch = out_ + ".torchrun";
  CtlRun r = PlanWithLauncher(kinds_[2], "torchrun", launch);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"new_order\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]"));
  EXPECT_THAT(r.out, HasSubstr("\"launcher_exact\":false"));
  EXPECT_THAT(::toporr::testing::ReadFileOrDie(launch),
              HasSubstr("\nnode01 0\nnode05 1\nnode09 2\nnode13 3\nnode02 4\nnode06 5\n"
                        "node10 6\nnode14 7\n"));
  CtlRun t = PlanWithLauncher(kinds_[2], "torchrun", launch, {}, /*json=*/false);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_THAT(t.out, HasSubstr("torchrun follows the new order only host by host: some hosts' "
                               "ranks are not consecutive in it"));
}

TEST_F(LauncherTest, TorchrunRefusesHostsWithDifferentNumbersOfRanks) {
  const std::string uneven = out_ + ".uneven", launch = out_ + ".torchrun";
  std::ofstream(uneven) << "node01 slots=2\nnode05 slots=2\nnode09 slots=2\nnode13 slots=1\n";
  for (const PlanKind& kind : kinds_) {
    SCOPED_TRACE(kind.name);
    std::vector<std::string> args = {"plan", "--hostfile", uneven, "--fabric", kFabric};
    args.insert(args.end(), kind.args.begin(), kind.args.end());
    args.insert(args.end(), {"--launcher", "torchrun", "--launch-file", launch});
    CtlRun r = Ctl(args);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_THAT(r.err, HasSubstr("plan --launcher torchrun: torchrun starts the same number of "
                                 "ranks on every host (--nproc_per_node), but the job's hosts "
                                 "have different numbers: 2 ranks on node01, node05, node09; "
                                 "1 rank on node13"));
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(std::ifstream(launch).good());
  }
  // The other launchers take any number of ranks per host.
  std::vector<std::string> args = {"plan", "--hostfile", uneven, "--fabric",      kFabric, "--cart",
                                   "7",    "--launcher", "srun", "--launch-file", launch};
  CtlRun srun = Ctl(args);
  EXPECT_EQ(srun.exit_code, 0) << srun.err;
}

TEST_F(LauncherTest, FromLeafSortedWritesTheFilesOfThatLaunch) {
  const std::string launch = out_ + ".launch", slurm = out_ + ".slurm", hosts = out_ + ".hosts";
  const std::vector<std::string> from = {"--from", "leaf-sorted"};
  std::vector<std::string> extra = {"--slurm-hostfile", slurm};
  extra.insert(extra.end(), from.begin(), from.end());
  CtlRun srun = PlanWithLauncher(kinds_[0], "srun", launch, extra);
  ASSERT_EQ(srun.exit_code, 0) << srun.err;
  EXPECT_THAT(srun.out, HasSubstr("\"from\":\"leaf-sorted\""));
  EXPECT_EQ(::toporr::testing::ReadFileOrDie(launch), ::toporr::testing::ReadFileOrDie(slurm));
  // torchrun's node ranks: the hosts of the reordered hostfile (new rank i's host on line i) in
  // the order of their first line.
  extra = {"--hostfile-out", hosts};
  extra.insert(extra.end(), from.begin(), from.end());
  CtlRun torchrun = PlanWithLauncher(kinds_[0], "torchrun", launch, extra);
  ASSERT_EQ(torchrun.exit_code, 0) << torchrun.err;
  std::vector<std::string> nodes;
  for (absl::string_view host :
       absl::StrSplit(::toporr::testing::ReadFileOrDie(hosts), '\n', absl::SkipEmpty())) {
    if (std::find(nodes.begin(), nodes.end(), host) == nodes.end()) nodes.emplace_back(host);
  }
  std::string lines;
  for (size_t node = 0; node < nodes.size(); ++node) {
    absl::StrAppend(&lines, nodes[node], " ", node, "\n");
  }
  const std::string file = ::toporr::testing::ReadFileOrDie(launch);
  EXPECT_EQ(file.substr(file.find('\n') + 1), lines);
}

}  // namespace
}  // namespace toporr::client::ctl
