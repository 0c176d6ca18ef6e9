// End-to-end: toporrd's server on a temporary SQLite file and socket (in this process, or the
// toporrd binary where the test is about the process), driven by the real toporrctl binary
// and gRPC stubs, over real gRPC.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "daemon/testing/server_fixture.h"
#include "daemon/testing/subprocess.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "mapping/costs/host_costs.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::toporr::testing::DaemonProcess;
using ::toporr::testing::RunProcess;
using ::toporr::testing::RunResult;
using ::toporr::testing::StatusIs;

// Most tests run the daemon's Server in this process (ServerFixture); those of what only the
// toporrd binary does (crash points, SIGHUP, the shipped build) run it as a process on the
// same directory.
class ToporrdTest : public toporr::testing::ServerFixture {
 protected:
  void SetUp() override {
    ServerFixture::SetUp();
    fattree_ = WriteSample("ibnetdiscover_fattree_default.txt", "fattree.topo");
    edge_ = WriteSample("ibnetdiscover_edgecases_default.txt", "edgecases.topo");
  }

  // The tool's exact output (without the `#@` provenance lines) as a file to ingest.
  std::string WriteSample(const std::string& sample, const std::string& name) {
    return WriteFile(name, toporr::testing::ReadSharedFabric(sample));
  }

  // The fat tree with every `from` replaced by `to`, as the file `name`.
  std::string FattreeWith(const std::string& name, const std::string& from, const std::string& to) {
    std::string text = toporr::testing::ReadSharedFabric("ibnetdiscover_fattree_default.txt");
    EXPECT_NE(text.find(from), std::string::npos) << from;
    for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
      text.replace(at, from.size(), to);
    }
    return WriteFile(name, text);
  }

  std::string IntegrityCheck() {
    RunResult r = RunProcess({"/usr/bin/sqlite3", db_path(), "PRAGMA integrity_check;"});
    return r.out;
  }

  std::string fattree_, edge_;
};

TEST_F(ToporrdTest, IngestQueryRestartSameAnswers) {
  ASSERT_OK(StartServer());

  RunResult r = Ctl({"snapshot"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no fabric has been ingested"));

  r = Ctl({"ingest", "--format", "ibnetdiscover", fattree_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("snapshot 1 created from fattree.topo: 16 hosts, 6 switches"));

  r = Ctl({"--json", "cost", "node01", "node02"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"hops\":1,"));
  EXPECT_THAT(r.out, HasSubstr("\"bottleneck_gbps\":32,"));
  EXPECT_THAT(r.out, HasSubstr("\"snapshot_id\":1"));

  const std::vector<std::vector<std::string>> queries = {
      {"--json", "hosts"},
      {"--json", "cost", "node01", "node09"},
      {"--json", "path", "node01", "node09"},
      {"--json", "row", "node16", "--hosts", "node01,node13,node16"},
      {"--json", "matrix", "node01", "node05", "node16"},
      {"hosts"},
      {"path", "node03", "node14"},
  };
  std::vector<std::string> before;
  for (const auto& q : queries) {
    r = Ctl(q);
    ASSERT_EQ(r.exit_code, 0) << q[1] << ": " << r.err;
    before.push_back(r.out);
  }
  EXPECT_THAT(before[1], HasSubstr("\"hops\":3,"));
  // leaf01 -> a spine -> leaf03, with ports.
  EXPECT_THAT(before[2], HasSubstr("leaf01"));
  EXPECT_THAT(before[2], HasSubstr("spine0"));
  EXPECT_THAT(before[2], HasSubstr("leaf03"));
  EXPECT_THAT(before[2], HasSubstr("\"in_port\":1"));
  EXPECT_THAT(before[3], HasSubstr("{\"host\":\"node13\",\"hops\":1,"));
  EXPECT_THAT(before[3], HasSubstr("{\"host\":\"node16\",\"hops\":0,"));
  EXPECT_THAT(before[4], HasSubstr("\"hops\":[0,3,3,3,0,3,3,3,0]"));
  EXPECT_THAT(before[5], HasSubstr("16 hosts in snapshot 1"));

  // Same content again: no new snapshot.
  r = Ctl({"ingest", "--format", "ibnetdiscover", fattree_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("unchanged"));

  StopServer();
  EXPECT_THAT(ServerLog(), HasSubstr("stopped"));
  EXPECT_NE(access(socket_path().c_str(), F_OK), 0) << "socket file left behind";

  const size_t logged = ServerLog().size();
  ASSERT_OK(StartServer());
  EXPECT_THAT(ServerLog().substr(logged), HasSubstr("serving snapshot 1"));
  for (size_t i = 0; i < queries.size(); ++i) {
    r = Ctl(queries[i]);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, before[i]) << "answer changed across restart for " << queries[i][1];
  }
  r = Ctl({"--json", "snapshots"});
  EXPECT_THAT(r.out, HasSubstr("\"id\":1,"));
  EXPECT_THAT(r.out, Not(HasSubstr("\"id\":2,")));
}

TEST_F(ToporrdTest, BadInputIsRefusedAndCurrentSnapshotKept) {
  ASSERT_OK(StartServer());
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);

  std::string truncated =
      WriteSample("ibnetdiscover_real_nvidia_topograph_truncated_bad.txt", "truncated.topo");
  RunResult r = Ctl({"ingest", "--format", "ibnetdiscover", truncated});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("truncated.topo:"));

  std::string list = WriteSample("ibnetdiscover_fattree_list_l.txt", "list.topo");
  r = Ctl({"ingest", "--format", "ibnetdiscover", list});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("list.topo"));

  r = Ctl({"ingest", "--format", "ibnetdiscover", dir() + "/missing.topo"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("missing.topo: cannot open"));

  r = Ctl({"ingest", "--format", "opa", fattree_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown input format"));

  r = Ctl({"--json", "snapshot"});
  EXPECT_THAT(r.out, HasSubstr("\"id\":1,"));
  r = Ctl({"cost", "node01", "nosuchhost"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("host 'nosuchhost' is not in snapshot 1"));
  r = Ctl({"row", "node01", "--hosts", "node02,ghost"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("'ghost'"));
}

TEST_F(ToporrdTest, NewSnapshotReplacesCurrentAndIsListed) {
  ASSERT_OK(StartServer());
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  // Another fabric loses every host of the current one: only with --allow-shrink.
  RunResult r = Ctl({"ingest", "--format", "ibnetdiscover", edge_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("would remove 16 of the 16 hosts of snapshot 1 (6 hosts left"));
  r = Ctl({"ingest", "--format", "ibnetdiscover", "--allow-shrink", edge_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("snapshot 2 created"));
  r = Ctl({"hosts"});
  EXPECT_THAT(r.out, HasSubstr("hostF"));
  EXPECT_THAT(r.out, Not(HasSubstr("node01")));
  r = Ctl({"snapshots"});
  EXPECT_THAT(r.out, HasSubstr("2*"));
  EXPECT_THAT(r.out, HasSubstr("fattree.topo"));
}

// `toporrctl export --format costs` writes libtoporr's TOPORR_COSTS file: the daemon's matrix
// over the named hosts with its snapshot id; unknown hosts are refused and nothing is written.
TEST_F(ToporrdTest, ExportCostsFileCarriesMatrixAndSnapshot) {
  ASSERT_OK(StartServer());
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  const std::string out = dir() + "/costs.bin";
  RunResult r = Ctl({"--json", "export", "--format", "costs", "--output", out, "--hosts",
                     "node01,node02,node05"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"snapshot_id\":1"));
  EXPECT_THAT(r.out, HasSubstr("\"hosts\":3"));
  EXPECT_THAT(r.out, HasSubstr("\"routes\":false"));
  EXPECT_THAT(r.err, HasSubstr("warning: no routes in " + out + ": snapshot 1 has no forwarding"));
  RunResult head = RunProcess({"/usr/bin/head", "-c", "8", out});
  EXPECT_EQ(head.out, "TOPORRC1");
  // With the forwarding tables the routes go into the file (TOPORRC2) for libtoporr.
  ASSERT_EQ(
      Ctl({"ingest", "--format", "lft", WriteSample("dump_fts_fattree.txt", "ft.lfts")}).exit_code,
      0);
  r = Ctl({"export", "--format", "costs", "--output", out, "node01", "node02", "node05"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("wrote costs and routes of 3 hosts (snapshot 2"));
  EXPECT_EQ(r.err, "");
  head = RunProcess({"/usr/bin/head", "-c", "8", out});
  EXPECT_EQ(head.out, "TOPORRC2");
  r = Ctl({"export", "--format", "costs", "--output", dir() + "/bad.bin", "node01", "ghost"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("ghost"));
  EXPECT_NE(access((dir() + "/bad.bin").c_str(), F_OK), 0);
  r = Ctl({"export", "--format", "pdf", "--output", out, "node01"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("costs, slurm-topology, slurm-topology-yaml"));
}

// SIGKILL the daemon in the middle of an ingest at each named point of the store's
// transaction: the database stays consistent and serves the previous snapshot (or the new
// one once the commit happened).
TEST_F(ToporrdTest, SigkillDuringIngestKeepsDatabaseConsistent) {
  {
    DaemonProcess d(db_path(), socket_path());
    ASSERT_TRUE(d.Start()) << d.log();
    ASSERT_EQ(d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  }
  // The ingest's connection breaks when the daemon dies; toporrctl waits for the restarted
  // daemon and says whether the ingest was committed.
  auto ingest_across_restart = [&](const std::string& point, RunResult* r) {
    DaemonProcess d(db_path(), socket_path(), {}, {{"TOPORR_TEST_CRASH_POINT", point}});
    d.set_binary("daemon/toporrd_test_hooks");
    ASSERT_TRUE(d.Start()) << d.log();
    std::thread ctl([&] {
      *r = d.Ctl({"ingest", "--format", "ibnetdiscover", "--allow-shrink", edge_});
    });
    EXPECT_EQ(d.WaitExit(20), 128 + SIGKILL);
    EXPECT_EQ(IntegrityCheck(), "ok\n");
    DaemonProcess after(db_path(), socket_path());
    const bool started = after.Start();
    ctl.join();
    ASSERT_TRUE(started) << after.log();
    EXPECT_THAT(after.log(), HasSubstr("verified: "));
  };
  for (const std::string point : {"after_begin", "after_nodes", "after_links", "before_commit"}) {
    SCOPED_TRACE(point);
    RunResult r;
    ingest_across_restart(point, &r);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_THAT(r.err, HasSubstr("the connection to toporrd broke during the ingest"));
    EXPECT_THAT(r.err, HasSubstr("it was NOT committed (edgecases.topo: no stored snapshot"));
    DaemonProcess after(db_path(), socket_path());
    ASSERT_TRUE(after.Start()) << after.log();
    r = after.Ctl({"--json", "snapshot"});
    EXPECT_THAT(r.out, HasSubstr("\"id\":1,"));
    EXPECT_EQ(after.Ctl({"--json", "cost", "node01", "node09"}).exit_code, 0);
  }
  {
    RunResult r;
    ingest_across_restart("after_commit", &r);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("it was committed: snapshot 2 holds this content"));
    EXPECT_THAT(r.out, HasSubstr("snapshot 2 holds this content (ibnetdiscover edgecases.topo)"));
    DaemonProcess after(db_path(), socket_path());
    ASSERT_TRUE(after.Start()) << after.log();
    r = after.Ctl({"--json", "hosts"});
    EXPECT_THAT(r.out, HasSubstr("hostF"));
    // --verify asks without changing anything.
    r = after.Ctl({"ingest", "--verify", "--format", "ibnetdiscover", edge_});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("snapshot 2 holds this content"));
    r = after.Ctl({"ingest", "--verify", "--format", "ibnetdiscover", fattree_});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("snapshot 1 holds this content"));
    r = after.Ctl({"ingest", "--verify", "--format", "ibnetdiscover",
                   FattreeWith("other.topo", "node13 HCA-1", "node99 HCA-1")});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_THAT(r.err, HasSubstr("other.topo: no stored snapshot holds this content"));
    EXPECT_THAT(after.Ctl({"--json", "snapshot"}).out, HasSubstr("\"id\":2,"));
  }
}

// The shipped toporrd has no test hooks; the crash points live in
// //daemon:toporrd_test_hooks only.
TEST_F(ToporrdTest, ShippedDaemonIgnoresTestCrashPoints) {
  DaemonProcess d(db_path(), socket_path(), {}, {{"TOPORR_TEST_CRASH_POINT", "after_begin"}});
  ASSERT_TRUE(d.Start()) << d.log();
  RunResult r = d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(d.running());
  EXPECT_EQ(d.Stop(), 0) << d.log();
}

TEST_F(ToporrdTest, ForwardingTablesTracesAndDiff) {
  ASSERT_OK(StartServer());
  const std::string lfts = WriteSample("dump_fts_fattree.txt", "fattree.lfts");
  RunResult r = Ctl({"ingest", "--format", "lft", lfts});
  EXPECT_EQ(r.exit_code, 1) << "routes without a topology are refused";
  EXPECT_THAT(r.err, HasSubstr("need a topology first"));

  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  r = Ctl({"--json", "cost", "node01", "node09"});
  EXPECT_THAT(r.out, HasSubstr("\"route_kind\":\"SHORTEST_PATH\""));

  r = Ctl({"ingest", "--format", "lft", lfts});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("snapshot 2 created"));
  EXPECT_THAT(r.out, HasSubstr("forwarding tables of 6 switches"));
  r = Ctl({"--json", "path", "node01", "node09"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"route_kind\":\"FORWARDING_TABLES\""));
  EXPECT_THAT(r.out, HasSubstr("\"hops\":3,"));

  // The real ibtracert traces of the same simulated fabric agree with the LFT walk.
  for (const char* sample : {"ibtracert_fattree_interleaf.txt", "ibtracert_fattree_intraleaf.txt",
                             "ibtracert_fattree_by_guid_G.txt"}) {
    r = Ctl({"ingest", "--format", "ibtracert", WriteSample(sample, sample)});
    EXPECT_EQ(r.exit_code, 0) << sample << ": " << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr(": 0 disagree"));
  }
  // An LFT dump of another fabric does not fit: refused, snapshot 2 stays.
  r = Ctl({"ingest", "--format", "lft", WriteSample("dump_fts_edgecases.txt", "edge.lfts")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("does not fit snapshot 2"));

  r = Ctl({"diff", "1", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Ctl({"--json", "diff", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"to_snapshot\":2"));
  EXPECT_THAT(r.out, HasSubstr("\"links_added\":0"));
  EXPECT_THAT(r.out, HasSubstr("\"routes_compared\":false"));

  // A new topology (edge cases fabric): the old routes do not fit and are dropped.
  r = Ctl({"ingest", "--format", "ibnetdiscover", "--allow-shrink", edge_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("do not fit the new fabric"));
  r = Ctl({"--json", "diff", "2", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("\"links_removed\":0,")));
  EXPECT_THAT(r.out, HasSubstr("\"hosts_added\":6"));
  r = Ctl({"diff", "7"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("snapshot 7 not found"));
}

TEST_F(ToporrdTest, OmniPathTopologyXml) {
  ASSERT_OK(StartServer());
  const std::string xml =
      WriteSample("opa_topology_opaxlattopology_detailed.xml", "opa-detailed.xml");
  RunResult r = Ctl({"ingest", "--format", "opareport-xml", xml});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("17 hosts"));
  EXPECT_THAT(r.out, HasSubstr("753 links"));
  r = Ctl({"--json", "snapshot"});
  EXPECT_THAT(r.out, HasSubstr("\"source_kind\":\"opareport-xml\""));
}

TEST_F(ToporrdTest, PlanFromDaemonCostsAndOfflineFromDump) {
  ASSERT_OK(StartServer());
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  const std::string hostfile = dir() + "/hosts";
  FILE* f = fopen(hostfile.c_str(), "w");
  fputs("node01 slots=4\nnode05 slots=4\nnode09 slots=4\nnode13 slots=4\n", f);
  fclose(f);
  RunResult r = Ctl({"--json", "plan", "--hostfile", hostfile, "--map-by", "node", "--collective",
                     "allreduce", "--algorithm", "rabenseifner", "--size", "1M"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"cost_source\":\"toporrd snapshot 1"));
  EXPECT_THAT(r.out, HasSubstr("\"reordered\":true"));

  const std::string rankfile = dir() + "/rankfile";
  r = RunProcess({toporr::testing::RunfilePath("client/ctl/toporrctl"), "plan", "--hostfile",
                  hostfile, "--map-by", "node", "--collective", "allreduce", "--algorithm", "ring",
                  "--size", "1M", "--fabric", fattree_, "--rankfile", rankfile});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("routes modelled"));
  EXPECT_THAT(r.out, HasSubstr("speedup"));
  EXPECT_THAT(toporr::testing::ReadFileOrDie(rankfile), HasSubstr("rank 15=node13 slot=3"));

  // Node-local topology from an hwloc XML (2 packages, 4 NUMA nodes with a SLIT matrix).
  r = RunProcess({toporr::testing::RunfilePath("client/ctl/toporrctl"), "--json", "plan",
                  "--hostfile", hostfile, "--map-by", "node", "--collective", "allreduce",
                  "--algorithm", "rabenseifner", "--size", "1M", "--fabric", fattree_,
                  "--node-topology",
                  toporr::testing::RunfilePath(
                      "collectors/testdata/hwloc/2pack-4numa-4l3-16core-smt2-slit.xml")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"reordered\":true"));
  r = Ctl({"plan", "--hostfile", hostfile, "--collective", "allreduce", "--size", "1M",
           "--node-topology", dir() + "/missing.xml"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("missing.xml"));

  r = Ctl({"plan", "--hostfile", hostfile, "--collective", "allreduce", "--size", "1Q"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("bad size"));
}

TEST_F(ToporrdTest, AdminRpcsNeedPrivilegeReadsDoNot) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run a client as an unprivileged uid";
  const std::string conf = ::toporr::testing::MakeTempDir("admin") + "/toporrd.conf";
  { std::ofstream(conf) << "admin_group = toporr-no-such-group\n"; }
  DaemonProcess d(db_path(), socket_path(), {"--config=" + conf});
  ASSERT_TRUE(d.Start()) << d.log();
  ASSERT_EQ(d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  chmod(edge_.c_str(), 0644);
  auto as_nobody = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {"/usr/bin/setpriv",
                                     "--reuid=65534",
                                     "--regid=65534",
                                     "--clear-groups",
                                     toporr::testing::RunfilePath("client/ctl/toporrctl"),
                                     "--socket",
                                     socket_path()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv);
  };
  RunResult r = as_nobody({"ingest", "--format", "ibnetdiscover", edge_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("membership of group 'toporr-no-such-group'"));
  // The log names the caller by its credentials, not by gRPC's "fd:N".
  EXPECT_THAT(d.log(), HasSubstr("from uid 65534 gid 65534 pid "));
  // After a SIGHUP that changes the admin group, refusals name the group in force.
  { std::ofstream(conf) << "admin_group = toporr-other-group\n"; }
  kill(d.pid(), SIGHUP);
  for (int i = 0; i < 50 && d.log().find("admin group toporr-other-group") == std::string::npos;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  r = as_nobody({"ingest", "--format", "ibnetdiscover", edge_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("membership of group 'toporr-other-group'"));
  r = as_nobody({"--json", "cost", "node01", "node02"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"hops\":1,"));
}

// The Topology service over the daemon's socket, its answers as absl::StatusOr.
class TopologyClient {
 public:
  explicit TopologyClient(const std::string& socket)
      : stub_(v1::Topology::NewStub(
            grpc::CreateChannel("unix:" + socket, grpc::InsecureChannelCredentials()))) {}

  template <typename Req, typename Resp>
  absl::StatusOr<Resp> Call(grpc::Status (v1::Topology::Stub::*method)(grpc::ClientContext*,
                                                                       const Req&, Resp*),
                            const Req& request) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    Resp response;
    const grpc::Status st = (stub_.get()->*method)(&ctx, request, &response);
    if (!st.ok()) {
      return absl::Status(static_cast<absl::StatusCode>(st.error_code()), st.error_message());
    }
    return response;
  }

  absl::StatusOr<v1::RegisterHostListResponse> Register(const std::vector<std::string>& hosts) {
    v1::RegisterHostListRequest req;
    for (const auto& h : hosts) req.add_hosts(h);
    return Call(&v1::Topology::Stub::RegisterHostList, req);
  }
  absl::StatusOr<v1::GetCostRowResponse> Row(const std::string& host, const std::string& token,
                                             bool compact, bool with_routes = false) {
    v1::GetCostRowRequest req;
    req.set_host(host);
    req.set_host_list(token);
    req.set_compact(compact);
    req.set_with_routes(with_routes);
    return Call(&v1::Topology::Stub::GetCostRow, req);
  }
  absl::StatusOr<v1::GetCostMatrixResponse> Matrix(const std::vector<std::string>& hosts,
                                                   bool compact, bool with_routes = false) {
    v1::GetCostMatrixRequest req;
    for (const auto& h : hosts) req.add_hosts(h);
    req.set_compact(compact);
    req.set_with_routes(with_routes);
    return Call(&v1::Topology::Stub::GetCostMatrix, req);
  }
  std::map<std::string, int64_t> Counts() {
    auto stats = Call(&v1::Topology::Stub::GetStats, v1::GetStatsRequest());
    EXPECT_OK(stats);
    if (!stats.ok()) return {};
    return {stats->requests().begin(), stats->requests().end()};
  }

 private:
  std::unique_ptr<v1::Topology::Stub> stub_;
};

// Every host's compact row by token is, byte for byte, that host's row of the compact
// GetCostMatrix over the same list, and decodes to the row of the plain matrix; the plain
// row by token is the plain matrix's row.
void ExpectRowsAreMatrixRows(TopologyClient& c, const std::vector<std::string>& hosts,
                             const std::string& token, int64_t snapshot, v1::RouteKind kind) {
  ASSERT_OK_AND_ASSIGN(v1::GetCostMatrixResponse compact, c.Matrix(hosts, true));
  ASSERT_OK_AND_ASSIGN(v1::GetCostMatrixResponse plain, c.Matrix(hosts, false));
  ASSERT_TRUE(compact.has_compact()) << compact.compact_fallback();
  const v1::CompactCosts& m = compact.compact();
  const size_t n = hosts.size();
  mapping::CostModelOptions model;
  model.nic_latency_ns = m.nic_latency_ns();
  model.switch_latency_ns = m.switch_latency_ns();
  model.link_latency_ns = m.link_latency_ns();
  for (size_t i = 0; i < n; ++i) {
    ASSERT_OK_AND_ASSIGN(v1::GetCostRowResponse row, c.Row(hosts[i], token, true));
    EXPECT_EQ(row.snapshot_id(), snapshot);
    EXPECT_EQ(row.route_kind(), kind);
    EXPECT_EQ(row.host(), hosts[i]);
    EXPECT_EQ(row.hosts_size(), 0) << "the client knows its list";
    EXPECT_EQ(row.host_column(), static_cast<int>(i));
    EXPECT_EQ(row.costs().hops_size(), 0);
    ASSERT_TRUE(row.has_compact()) << row.compact_fallback();
    const v1::CompactCosts& r = row.compact();
    EXPECT_EQ(r.hops(), m.hops().substr(i * n, n)) << hosts[i];
    EXPECT_EQ(r.rate_index(), m.rate_index().substr(i * n, n)) << hosts[i];
    EXPECT_THAT(r.rates_gbps(), ::testing::ElementsAreArray(m.rates_gbps()));
    EXPECT_EQ(r.nic_latency_ns(), m.nic_latency_ns());
    EXPECT_EQ(r.switch_latency_ns(), m.switch_latency_ns());
    EXPECT_EQ(r.link_latency_ns(), m.link_latency_ns());
    for (size_t j = 0; j < n; ++j) {
      const auto h = static_cast<uint8_t>(r.hops()[j]);
      const auto x = static_cast<uint8_t>(r.rate_index()[j]);
      const mapping::HostPairCost want =
          j == i ? mapping::HostPairCost{}
                 : mapping::DecodeCompactPair(h, x < r.rates_gbps_size() ? r.rates_gbps(x) : -1,
                                              model);
      const size_t k = i * n + j;
      EXPECT_EQ(want.hops, plain.costs().hops(k)) << i << "," << j;
      EXPECT_EQ(static_cast<float>(want.bottleneck_gbps), plain.costs().bottleneck_gbps(k));
      EXPECT_EQ(static_cast<float>(want.latency_ns), plain.costs().latency_ns(k));
    }
    ASSERT_OK_AND_ASSIGN(v1::GetCostRowResponse arrays, c.Row(hosts[i], token, false));
    EXPECT_FALSE(arrays.has_compact());
    EXPECT_EQ(arrays.hosts_size(), 0);
    ASSERT_EQ(arrays.costs().hops_size(), static_cast<int>(n));
    for (size_t j = 0; j < n; ++j) {
      const size_t k = i * n + j;
      EXPECT_EQ(arrays.costs().hops(j), plain.costs().hops(k));
      EXPECT_EQ(arrays.costs().bottleneck_gbps(j), plain.costs().bottleneck_gbps(k));
      EXPECT_EQ(arrays.costs().latency_ns(j), plain.costs().latency_ns(k));
    }
  }
}

TEST_F(ToporrdTest, HostListRowsByTokenAreMatrixRows) {
  ASSERT_OK(StartServer());
  auto c = std::make_unique<TopologyClient>(socket_path());
  const std::vector<std::string> hosts = {"node16", "node01", "node09", "node02", "node13",
                                          "node05", "node12", "node07", "node03", "node14"};
  EXPECT_THAT(c->Register(hosts), StatusIs(absl::StatusCode::kFailedPrecondition,
                                           HasSubstr("no fabric has been ingested")));
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);

  ASSERT_OK_AND_ASSIGN(v1::RegisterHostListResponse reg, c->Register(hosts));
  EXPECT_THAT(reg.host_list(), MatchesRegex("[0-9a-f]{32}"));
  EXPECT_EQ(reg.snapshot_id(), 1);
  EXPECT_EQ(reg.num_hosts(), static_cast<int>(hosts.size()));
  ASSERT_OK_AND_ASSIGN(v1::RegisterHostListResponse again, c->Register(hosts));
  EXPECT_EQ(again.host_list(), reg.host_list()) << "the same list, the same token";
  ExpectRowsAreMatrixRows(*c, hosts, reg.host_list(), 1, v1::SHORTEST_PATH);

  // Along the forwarding tables: a new snapshot, the same token, the list resolved again.
  const std::string lfts = WriteSample("dump_fts_fattree.txt", "fattree.lfts");
  ASSERT_EQ(Ctl({"ingest", "--format", "lft", lfts}).exit_code, 0);
  ExpectRowsAreMatrixRows(*c, hosts, reg.host_list(), 2, v1::FORWARDING_TABLES);

  // A host outside the list still gets its row, as arrays (compact rows are the list's).
  ASSERT_OK_AND_ASSIGN(v1::GetCostRowResponse outside, c->Row("node04", reg.host_list(), true));
  EXPECT_EQ(outside.host_column(), -1);
  EXPECT_EQ(outside.costs().hops_size(), static_cast<int>(hosts.size()));
  EXPECT_THAT(outside.compact_fallback(), HasSubstr("not one of the host list's hosts"));

  // The token outlives the daemon; the registration does not.
  c.reset();  // an open connection holds the daemon's shutdown for its 5 s grace period
  StopServer();
  ASSERT_OK(StartServer());
  TopologyClient c2(socket_path());
  EXPECT_THAT(c2.Row("node01", reg.host_list(), true),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("unknown host list " + reg.host_list() +
                                 " (toporrd restarted? register it again)")));
  ASSERT_OK_AND_ASSIGN(v1::RegisterHostListResponse after, c2.Register(hosts));
  EXPECT_EQ(after.host_list(), reg.host_list());
  EXPECT_OK(c2.Row("node01", reg.host_list(), true));
}

// Routes travel with rows and matrices once the snapshot has forwarding tables: a route has
// hops + 1 directed links, a row's routes are the matrix's row, every link has a rate, and
// two hosts' routes to each other use different link ids (the cable's two directions).
TEST_F(ToporrdTest, RowsAndMatricesCarryTheForwardingTablesRoutes) {
  ASSERT_OK(StartServer());
  TopologyClient c(socket_path());
  const std::vector<std::string> hosts = {"node01", "node02", "node09", "node16"};
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  ASSERT_OK_AND_ASSIGN(v1::RegisterHostListResponse reg, c.Register(hosts));
  ASSERT_OK_AND_ASSIGN(v1::GetCostRowResponse none, c.Row("node01", reg.host_list(), false, true));
  EXPECT_EQ(none.routes().offsets_size(), 0);
  EXPECT_THAT(none.routes_missing(), HasSubstr("has no forwarding tables"));

  ASSERT_EQ(
      Ctl({"ingest", "--format", "lft", WriteSample("dump_fts_fattree.txt", "ft.lfts")}).exit_code,
      0);
  ASSERT_OK_AND_ASSIGN(v1::GetCostMatrixResponse m, c.Matrix(hosts, false, true));
  const size_t n = hosts.size();
  const v1::RouteTable& rt = m.routes();
  EXPECT_EQ(m.routes_missing(), "");
  ASSERT_EQ(rt.offsets_size(), static_cast<int>(n * n + 1));
  std::map<uint32_t, float> rate;
  for (int k = 0; k < rt.link_ids_size(); ++k) rate[rt.link_ids(k)] = rt.link_gbps(k);
  auto route = [](const v1::RouteTable& t, size_t k) {
    return std::vector<uint32_t>(t.links().begin() + t.offsets(k),
                                 t.links().begin() + t.offsets(k + 1));
  };
  for (size_t i = 0; i < n; ++i) {
    ASSERT_OK_AND_ASSIGN(v1::GetCostRowResponse row, c.Row(hosts[i], reg.host_list(), false, true));
    ASSERT_EQ(row.routes().offsets_size(), static_cast<int>(n + 1)) << row.routes_missing();
    for (size_t j = 0; j < n; ++j) {
      const size_t k = i * n + j;
      const std::vector<uint32_t> links = route(rt, k);
      EXPECT_EQ(links.size(), static_cast<size_t>(m.costs().hops(k) + (i == j ? 0 : 1)))
          << hosts[i] << " -> " << hosts[j];
      EXPECT_EQ(route(row.routes(), j), links) << hosts[i] << " -> " << hosts[j];
      for (uint32_t l : links) {
        ASSERT_TRUE(rate.count(l)) << "link " << l << " has no rate";
        EXPECT_GT(rate[l], 0);
      }
      if (i != j) {
        EXPECT_NE(route(rt, k).front(), route(rt, j * n + i).back());
      }
    }
  }
  // The matrix size limit with routes.
  std::vector<std::string> many(1025, "node01");  // kMaxRouteMatrixHosts + 1
  EXPECT_THAT(c.Matrix(many, false, true),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("with routes; at most")));
}

TEST_F(ToporrdTest, HostListErrorsAndStatsCountEveryCall) {
  ASSERT_OK(StartServer());
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  TopologyClient c(socket_path());
  ASSERT_OK_AND_ASSIGN(v1::RegisterHostListResponse reg, c.Register({"node01", "node02"}));

  // Each call moves its own counter by exactly one (and GetStats' by one per GetStats),
  // whatever its status.
  std::map<std::string, int64_t> before = c.Counts();
  EXPECT_EQ(before["RegisterHostList"], 1);
  auto expect_one_more = [&](const std::string& method) {
    std::map<std::string, int64_t> now = c.Counts();
    std::map<std::string, int64_t> want = before;
    ++want[method];
    ++want["GetStats"];
    EXPECT_EQ(now, want) << "after " << method;
    before = now;
  };
  EXPECT_THAT(c.Register({"node01", "nodeX", "nodeY"}),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("'nodeX'"), HasSubstr("2 of the 3 hosts"))));
  expect_one_more("RegisterHostList");
  EXPECT_THAT(c.Register({"node01", "node02", "node01"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("listed twice")));
  expect_one_more("RegisterHostList");
  EXPECT_THAT(c.Register({}), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty")));
  expect_one_more("RegisterHostList");
  EXPECT_THAT(c.Row("node01", "00112233445566778899aabbccddeeff", true),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("unknown host list 00112233445566778899aabbccddeeff")));
  expect_one_more("GetCostRow");
  EXPECT_THAT(c.Row("nodeX", reg.host_list(), true),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("'nodeX'")));
  expect_one_more("GetCostRow");
  v1::GetCostRowRequest both;
  both.set_host("node01");
  both.add_hosts("node02");
  both.set_host_list(reg.host_list());
  EXPECT_THAT(c.Call(&v1::Topology::Stub::GetCostRow, both),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not both")));
  expect_one_more("GetCostRow");
  EXPECT_OK(c.Row("node02", reg.host_list(), true));
  expect_one_more("GetCostRow");
  v1::GetCostRowRequest named;  // compact rows are for registered lists: arrays, and why
  named.set_host("node01");
  named.add_hosts("node02");
  named.set_compact(true);
  ASSERT_OK_AND_ASSIGN(v1::GetCostRowResponse arrays,
                       c.Call(&v1::Topology::Stub::GetCostRow, named));
  EXPECT_EQ(arrays.costs().hops_size(), 1);
  EXPECT_EQ(arrays.host_column(), -1);
  EXPECT_THAT(arrays.compact_fallback(), HasSubstr("registered host lists"));
  expect_one_more("GetCostRow");
  EXPECT_OK(c.Call(&v1::Topology::Stub::GetSnapshot, v1::GetSnapshotRequest()));
  expect_one_more("GetSnapshot");
  // toporrctl's calls count too (another connection, the admin server).
  RunResult r = Ctl({"--json", "stats"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"snapshot_id\":1"));
  EXPECT_THAT(r.out, HasSubstr("\"host_lists\":1"));
  EXPECT_THAT(r.out, HasSubstr("\"GetCostRow\":5"));
  EXPECT_EQ(c.Counts()["GetStats"], before["GetStats"] + 2) << "toporrctl's and ours";
  r = Ctl({"stats"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("GetCostRow"));
  EXPECT_THAT(r.out, HasSubstr("1 registered host list"));
}

// Forwarding tables that cannot route every host of a new topology (here
// its host ports have no LIDs) are dropped with a warning, and costs come from shortest paths;
// a matrix is never served with unknown entries: a pair without a route is an error.
TEST_F(ToporrdTest, RoutesThatNoLongerFitAreDroppedAndHolesAreErrors) {
  ASSERT_OK(StartServer());
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  ASSERT_EQ(
      Ctl({"ingest", "--format", "lft", WriteSample("dump_fts_fattree.txt", "ft.lfts")}).exit_code,
      0);
  std::string text = toporr::testing::ReadSharedFabric("ibnetdiscover_fattree_default.txt");
  // The host ports lose their LIDs, as the switches and the CAs print them.
  text = std::regex_replace(text, std::regex("HCA-1\" lid [0-9]+"), "HCA-1\" lid 0");
  text = std::regex_replace(text, std::regex("# lid [0-9]+ lmc"), "# lid 0 lmc");
  RunResult r = Ctl({"ingest", "--format", "ibnetdiscover", WriteFile("nolid.topo", text)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("do not fit the new fabric"));
  EXPECT_THAT(r.err, HasSubstr("has no cabled port with a LID"));
  r = Ctl({"--json", "snapshot"});
  EXPECT_THAT(r.out, HasSubstr("\"forwarding_tables\":0"));
  r = Ctl({"--json", "matrix", "node01", "node02", "node09"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"hops\":[0,1,3,1,0,3,3,3,0]"));
  EXPECT_EQ(Ctl({"cost", "node01", "node09"}).exit_code, 0);
  EXPECT_EQ(Ctl({"path", "node01", "node09"}).exit_code, 0);

  // Two leaves and nothing between them: shortest paths have no route between the hosts.
  const std::string split =
      WriteFile("split.topo",
                "vendid=0x2c9\ndevid=0xc738\nswitchguid=0xa0(a0)\n"
                "Switch\t2 \"S-00000000000000a0\"\t\t# \"swA\" enhanced port 0 lid 1 lmc 0\n"
                "[1]\t\"H-0000000000000010\"[1](11) \t\t# \"hostA mlx5_0\" lid 2 4xHDR\n\n"
                "vendid=0x2c9\ndevid=0xc738\nswitchguid=0xb0(b0)\n"
                "Switch\t2 \"S-00000000000000b0\"\t\t# \"swB\" enhanced port 0 lid 3 lmc 0\n"
                "[1]\t\"H-0000000000000020\"[1](21) \t\t# \"hostB mlx5_0\" lid 4 4xHDR\n\n"
                "vendid=0x2c9\ndevid=0x101b\ncaguid=0x10\n"
                "Ca\t1 \"H-0000000000000010\"\t\t# \"hostA mlx5_0\"\n"
                "[1](11) \t\"S-00000000000000a0\"[1]\t\t# lid 2 lmc 0 \"swA\" lid 1 4xHDR\n\n"
                "vendid=0x2c9\ndevid=0x101b\ncaguid=0x20\n"
                "Ca\t1 \"H-0000000000000020\"\t\t# \"hostB mlx5_0\"\n"
                "[1](21) \t\"S-00000000000000b0\"[1]\t\t# lid 4 lmc 0 \"swB\" lid 3 4xHDR\n");
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", "--allow-shrink", split}).exit_code, 0);
  for (const std::vector<std::string>& q :
       {std::vector<std::string>{"matrix", "hostA", "hostB"},
        {"row", "hostA"},
        {"export", "--format", "costs", "--output", dir() + "/c.bin", "hostA", "hostB"}}) {
    r = Ctl(q);
    EXPECT_EQ(r.exit_code, 1) << q[0] << ": " << r.out;
    EXPECT_THAT(r.err, HasSubstr("no route between 'hostA' and 'hostB' in snapshot 4")) << q[0];
  }
  TopologyClient c(socket_path());
  ASSERT_OK_AND_ASSIGN(auto reg, c.Register({"hostA", "hostB"}));
  EXPECT_THAT(c.Row("hostA", reg.host_list(), true),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no route")));
  EXPECT_THAT(c.Matrix({"hostA", "hostB"}, false),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no route")));
}

// End to end: dumps whose descriptions are not printable UTF-8 are
// refused at their line and the snapshot stays; request names that are not UTF-8 get
// INVALID_ARGUMENT naming the field; huge lines and names give short refusals naming the
// file and line; nothing toporrctl prints holds a raw escape sequence.
TEST_F(ToporrdTest, HostileTextIsRefusedAndErrorsStayBounded) {
  ASSERT_OK(StartServer());
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  for (const std::string& bad :
       {std::string("node13\xff HCA-1"), std::string("node13\x1b[2J HCA-1"),
        std::string("node13\x01 HCA-1")}) {
    RunResult r =
        Ctl({"ingest", "--format", "ibnetdiscover", FattreeWith("bad.topo", "node13 HCA-1", bad)});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_THAT(r.err, MatchesRegex("(.|\n)*bad.topo:[0-9]+: (.|\n)*not printable UTF-8(.|\n)*"));
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
  }
  RunResult r = Ctl({"hosts"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("16 hosts in snapshot 1"));

  // A 20 KB line and a 5 KB number.
  for (const std::string& junk : {std::string(20000, 'A'), "lid " + std::string(5000, '9')}) {
    r = Ctl({"ingest", "--format", "ibnetdiscover",
             FattreeWith("long.topo", "\n[12]\t", "\n" + junk + "\n[12]\t")});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_THAT(r.err, HasSubstr("long.topo:"));
    EXPECT_THAT(r.err, Not(HasSubstr("metadata")));
    EXPECT_LT(r.err.size(), 1500u);
  }
  // A 100 KB host name.
  r = Ctl({"cost", std::string(100000, 'h'), "node01"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("...(100000 bytes)' is not in snapshot 1"));
  EXPECT_LT(r.err.size(), 1000u);
  // Names that are not UTF-8 or hold escapes.
  TopologyClient c(socket_path());
  EXPECT_THAT(c.Matrix({"node01", "node\xff"}, false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("host name 'node\\xff': byte 0xff at column 5")));
  r = Ctl({"cost", "node\x1b]0;x\x07", "node01"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("'node\\x1b]0;x\\x07'"));
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
  // The log has one line per refused ingest, escaped.
  EXPECT_THAT(ServerLog(), HasSubstr("ingest ibnetdiscover bad.topo refused: bad.topo:"));
  EXPECT_EQ(ServerLog().find('\x1b'), std::string::npos);
}

// A topology that loses all hosts, or more than max_host_loss_percent of
// them, does not replace the served one without --allow-shrink; the refusal names the counts,
// is logged and counted. Class 8: an empty --hosts is a usage error, never "every host".
TEST_F(ToporrdTest, ShrinkingFabricsNeedAllowShrink) {
  ASSERT_OK(StartServer());
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  const std::string ports = toporr::testing::ReadSharedFabric("ibnetdiscover_fattree_ports_p.txt");
  auto without = [&](const std::string& name, std::vector<std::string> hosts) {
    std::string kept;
    for (size_t at = 0; at < ports.size();) {
      const size_t end = ports.find('\n', at) + 1;
      const std::string line = ports.substr(at, end - at);
      bool drop = false;
      for (const auto& h : hosts) drop |= line.find("'" + h + " ") != std::string::npos;
      if (!drop) kept += line;
      at = end;
    }
    return WriteFile(name, kept);
  };
  // One host of 16 (6 %) may go.
  RunResult r = Ctl({"ingest", "--format", "ibnetdiscover", without("minus1.p", {"node15"})});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("snapshot 2 created from minus1.p: 15 hosts"));
  // A truncated ports report, four more hosts gone, no hosts at all: refused.
  r = Ctl(
      {"ingest", "--format", "ibnetdiscover",
       WriteFile("truncated.p", ports.substr(0, ports.rfind('\n', ports.find("'node05 ")) + 1))});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("truncated.p: refused: it would remove"));
  r = Ctl({"ingest", "--format", "ibnetdiscover",
           without("minus5.p", {"node15", "node01", "node02", "node03", "node04"})});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("would remove 4 of the 15 hosts of snapshot 2 (11 hosts left; at "
                               "most 10 % may go"));
  EXPECT_THAT(r.err, HasSubstr("--allow-shrink"));
  const std::string lone =
      WriteFile("switch-only.topo",
                "vendid=0x2c9\ndevid=0xc738\nswitchguid=0xa0(a0)\n"
                "Switch\t2 \"S-00000000000000a0\"\t\t# \"swA\" enhanced port 0 lid 1 lmc 0\n");
  r = Ctl({"ingest", "--format", "ibnetdiscover", lone});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("would remove 15 of the 15 hosts of snapshot 2 (0 hosts left"));
  r = Ctl({"--json", "snapshot"});
  EXPECT_THAT(r.out, HasSubstr("\"id\":2,"));
  EXPECT_THAT(r.out, HasSubstr("\"hosts\":15,"));
  r = Ctl({"stats", "--prometheus"});
  EXPECT_THAT(r.out, HasSubstr("toporr_ingest_shrink_refusals_total 3"));
  EXPECT_THAT(ServerLog(), HasSubstr("minus5.p refused: minus5.p: refused: it would remove 4"));
  // The admin confirms.
  r = Ctl({"ingest", "--format", "ibnetdiscover", "--allow-shrink",
           without("minus5.p", {"node15", "node01", "node02", "node03", "node04"})});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("snapshot 3 created from minus5.p: 11 hosts"));

  for (const std::string& empty : {std::string(""), std::string(","), std::string("node05,")}) {
    r = Ctl({"row", "node05", "--hosts", empty});
    EXPECT_EQ(r.exit_code, 2) << "--hosts '" << empty << "': " << r.out;
    EXPECT_THAT(r.err, HasSubstr(empty.empty() ? "--hosts needs a value (it is empty)"
                                               : "has an empty host name"));
  }
  r = Ctl({"diff", "99999999999999999999"});
  EXPECT_EQ(r.exit_code, 2);
}

// A tmpfs of `bytes` mounted at `dir` (created) while the object lives: a disk the test can
// fill. Unmounted (detached, should a process still hold it) and removed after. Needs root.
class TinyDisk {
 public:
  TinyDisk(std::string dir, int64_t bytes) : dir_(std::move(dir)) {
    mkdir(dir_.c_str(), 0755);
    const std::string options = "size=" + std::to_string(bytes) + ",mode=0755";
    if (mount("tmpfs", dir_.c_str(), "tmpfs", 0, options.c_str()) != 0) {
      error_ = std::strerror(errno);
    }
  }
  ~TinyDisk() {
    if (error_.empty()) umount2(dir_.c_str(), MNT_DETACH);
    rmdir(dir_.c_str());
  }
  const std::string& error() const { return error_; }  // empty: mounted
  const std::string& dir() const { return dir_; }

  // Grows a filler file until `leave` bytes are free (0: until the disk is full).
  bool FillLeaving(int64_t leave) {
    const int fd = open((dir_ + "/filler").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0) return false;
    const std::string block(4096, '\0');
    bool ok = true;
    while (Free() > leave) {
      const size_t n = std::min<int64_t>(block.size(), Free() - leave);
      if (write(fd, block.data(), n) < 0) {
        ok = leave == 0 && errno == ENOSPC;
        break;
      }
    }
    close(fd);
    return ok && Free() <= leave;
  }
  int64_t Free() const {
    struct statvfs st;
    if (statvfs(dir_.c_str(), &st) != 0) return -1;
    return static_cast<int64_t>(st.f_bavail) * static_cast<int64_t>(st.f_bsize);
  }

 private:
  std::string dir_;
  std::string error_;
};

// A full disk under the database: toporrctl shows the daemon's reason and exits 1 without
// uploading again, whether SQLite cannot commit (the daemon answers UNAVAILABLE) or the
// upload does not fit beside the database (RESOURCE_EXHAUSTED); neither is taken for an
// unreachable daemon whose connection broke, nor uploaded a second time to ask whether it
// was committed.
TEST_F(ToporrdTest, IngestRefusedForAFullDiskIsShownOnceAndNotSentAgain) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a tmpfs";
  TinyDisk disk(dir() + "/disk", 1 << 20);
  if (!disk.error().empty()) GTEST_SKIP() << "cannot mount a tmpfs: " << disk.error();
  ASSERT_OK(StartServer("db_path = " + disk.dir() + "/toporr.db\n"));
  ASSERT_EQ(Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  const std::string next = FattreeWith("next.topo", "node01", "nodeAA");
  struct stat st;
  ASSERT_EQ(stat(next.c_str(), &st), 0);
  const int64_t upload_pages = (st.st_size + 4095) / 4096;

  // Room for the upload and one page: the new snapshot cannot be committed.
  ASSERT_TRUE(disk.FillLeaving((upload_pages + 1) * 4096));
  RunResult r = Ctl({"ingest", "--format", "ibnetdiscover", next});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("toporr.db: database or disk is full"));
  EXPECT_THAT(r.err, Not(HasSubstr("cannot reach")));
  EXPECT_THAT(r.err, Not(HasSubstr("broke")));
  // No room for the upload itself.
  ASSERT_TRUE(disk.FillLeaving(0));
  r = Ctl({"ingest", "--format", "ibnetdiscover", next});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, AllOf(HasSubstr("cannot write the ingest spool file"),
                           HasSubstr("No space left on device")));
  EXPECT_THAT(r.err, Not(HasSubstr("cannot reach")));

  // One upload per ingest, each logged once as refused; nothing asked again (verify_only).
  r = Ctl({"stats", "--prometheus"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string uploads = "toporr_rpc_requests_total{method=\"IngestStream\",code=\"";
  EXPECT_THAT(r.out, HasSubstr(uploads + "OK\"} 1\n"));
  EXPECT_THAT(r.out, HasSubstr(uploads + "UNAVAILABLE\"} 1\n"));
  EXPECT_THAT(r.out, HasSubstr(uploads + "RESOURCE_EXHAUSTED\"} 1\n"));
  const auto matches = [](const std::string& text, const std::string& pattern) {
    const std::regex re(pattern);
    return std::distance(std::sregex_iterator(text.begin(), text.end(), re),
                         std::sregex_iterator());
  };
  EXPECT_EQ(matches(r.out, "toporr_rpc_requests_total\\{method=\"IngestStream\""), 3) << r.out;
  EXPECT_THAT(r.out,
              HasSubstr("toporr_ingests_total{format=\"ibnetdiscover\",result=\"refused\"} 2\n"));
  const std::string log = ServerLog();
  EXPECT_EQ(matches(log, "ingest ibnetdiscover next\\.topo refused: "), 2) << log;
  EXPECT_THAT(log, Not(HasSubstr("verified")));
  StopServer();  // before the disk under its database goes
}

}  // namespace
}  // namespace toporr
