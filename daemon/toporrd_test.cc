// End-to-end: a real toporrd on a temporary SQLite file and socket, driven by the real
// toporrctl binary, over real gRPC.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "common/test_data.h"
#include "daemon/testing/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::toporr::testing::DaemonProcess;
using ::toporr::testing::RunProcess;
using ::toporr::testing::RunResult;

class ToporrdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Under /tmp (not $TEST_TMPDIR) so that an unprivileged uid can reach the socket and the
    // socket path stays short.
    char tmpl[] = "/tmp/toporrd-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    chmod(dir_.c_str(), 0755);
    db_ = dir_ + "/toporr.db";
    sock_ = dir_ + "/toporrd.sock";
    fattree_ = WriteSample("ibnetdiscover_fattree_default.txt", "fattree.topo");
    edge_ = WriteSample("ibnetdiscover_edgecases_default.txt", "edgecases.topo");
  }
  void TearDown() override { RunProcess({"/bin/rm", "-rf", dir_}); }

  // The tool's exact output (without the `#@` provenance lines) as a file to ingest.
  std::string WriteSample(const std::string& sample, const std::string& name) {
    std::string path = dir_ + "/" + name;
    FILE* f = fopen(path.c_str(), "w");
    std::string text = toporr::testing::ReadSharedFabric(sample);
    fwrite(text.data(), 1, text.size(), f);
    fclose(f);
    return path;
  }

  std::string IntegrityCheck() {
    RunResult r = RunProcess({"/usr/bin/sqlite3", db_, "PRAGMA integrity_check;"});
    return r.out;
  }

  std::string dir_, db_, sock_, fattree_, edge_;
};

TEST_F(ToporrdTest, IngestQueryRestartSameAnswers) {
  DaemonProcess d(db_, sock_);
  ASSERT_TRUE(d.Start()) << d.log();

  RunResult r = d.Ctl({"snapshot"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no fabric has been ingested"));

  r = d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("snapshot 1 created from fattree.topo: 16 hosts, 6 switches"));

  r = d.Ctl({"--json", "cost", "node01", "node02"});
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
    r = d.Ctl(q);
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
  r = d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("unchanged"));

  ASSERT_EQ(d.Stop(), 0) << d.log();
  EXPECT_THAT(d.log(), HasSubstr("shutting down"));
  EXPECT_NE(access(sock_.c_str(), F_OK), 0) << "socket file left behind";

  DaemonProcess d2(db_, sock_);
  ASSERT_TRUE(d2.Start()) << d2.log();
  EXPECT_THAT(d2.log(), HasSubstr("serving snapshot 1"));
  for (size_t i = 0; i < queries.size(); ++i) {
    r = d2.Ctl(queries[i]);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, before[i]) << "answer changed across restart for " << queries[i][1];
  }
  r = d2.Ctl({"--json", "snapshots"});
  EXPECT_THAT(r.out, HasSubstr("\"id\":1,"));
  EXPECT_THAT(r.out, Not(HasSubstr("\"id\":2,")));
}

TEST_F(ToporrdTest, BadInputIsRefusedAndCurrentSnapshotKept) {
  DaemonProcess d(db_, sock_);
  ASSERT_TRUE(d.Start()) << d.log();
  ASSERT_EQ(d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);

  std::string truncated =
      WriteSample("ibnetdiscover_real_nvidia_topograph_truncated_bad.txt", "truncated.topo");
  RunResult r = d.Ctl({"ingest", "--format", "ibnetdiscover", truncated});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("truncated.topo:"));

  std::string list = WriteSample("ibnetdiscover_fattree_list_l.txt", "list.topo");
  r = d.Ctl({"ingest", "--format", "ibnetdiscover", list});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("list.topo"));

  r = d.Ctl({"ingest", "--format", "ibnetdiscover", dir_ + "/missing.topo"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("missing.topo: cannot open"));

  r = d.Ctl({"ingest", "--format", "opa", fattree_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown input format"));

  r = d.Ctl({"--json", "snapshot"});
  EXPECT_THAT(r.out, HasSubstr("\"id\":1,"));
  r = d.Ctl({"cost", "node01", "nosuchhost"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("host 'nosuchhost' is not in snapshot 1"));
  r = d.Ctl({"row", "node01", "--hosts", "node02,ghost"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("'ghost'"));
}

TEST_F(ToporrdTest, NewSnapshotReplacesCurrentAndIsListed) {
  DaemonProcess d(db_, sock_);
  ASSERT_TRUE(d.Start()) << d.log();
  ASSERT_EQ(d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  RunResult r = d.Ctl({"ingest", "--format", "ibnetdiscover", edge_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("snapshot 2 created"));
  r = d.Ctl({"hosts"});
  EXPECT_THAT(r.out, HasSubstr("hostF"));
  EXPECT_THAT(r.out, Not(HasSubstr("node01")));
  r = d.Ctl({"snapshots"});
  EXPECT_THAT(r.out, HasSubstr("2*"));
  EXPECT_THAT(r.out, HasSubstr("fattree.topo"));
}

// `toporrctl export --format costs` writes libtoporr's TOPORR_COSTS file: the daemon's matrix
// over the named hosts with its snapshot id; unknown hosts are refused and nothing is written.
TEST_F(ToporrdTest, ExportCostsFileCarriesMatrixAndSnapshot) {
  DaemonProcess d(db_, sock_);
  ASSERT_TRUE(d.Start()) << d.log();
  ASSERT_EQ(d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  const std::string out = dir_ + "/costs.bin";
  RunResult r = d.Ctl({"--json", "export", "--format", "costs", "--output", out, "--hosts",
                       "node01,node02,node05"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"snapshot_id\":1"));
  EXPECT_THAT(r.out, HasSubstr("\"hosts\":3"));
  RunResult head = RunProcess({"/usr/bin/head", "-c", "8", out});
  EXPECT_EQ(head.out, "TOPORRC1");
  r = d.Ctl({"export", "--format", "costs", "--output", dir_ + "/bad.bin", "node01", "ghost"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("ghost"));
  EXPECT_NE(access((dir_ + "/bad.bin").c_str(), F_OK), 0);
  r = d.Ctl({"export", "--format", "dot", "--output", out, "node01"});
  EXPECT_EQ(r.exit_code, 2);
}

// SIGKILL the daemon in the middle of an ingest at each named point of the store's
// transaction: the database stays consistent and serves the previous snapshot (or the new
// one once the commit happened).
TEST_F(ToporrdTest, SigkillDuringIngestKeepsDatabaseConsistent) {
  {
    DaemonProcess d(db_, sock_);
    ASSERT_TRUE(d.Start()) << d.log();
    ASSERT_EQ(d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  }
  for (const std::string point : {"after_begin", "after_nodes", "after_links", "before_commit"}) {
    SCOPED_TRACE(point);
    DaemonProcess d(db_, sock_, {}, {{"TOPORR_TEST_CRASH_POINT", point}});
    ASSERT_TRUE(d.Start()) << d.log();
    RunResult r = d.Ctl({"ingest", "--format", "ibnetdiscover", edge_});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(d.WaitExit(20), 128 + SIGKILL);
    EXPECT_EQ(IntegrityCheck(), "ok\n");
    DaemonProcess after(db_, sock_);
    ASSERT_TRUE(after.Start()) << after.log();
    r = after.Ctl({"--json", "snapshot"});
    EXPECT_THAT(r.out, HasSubstr("\"id\":1,"));
    EXPECT_EQ(after.Ctl({"--json", "cost", "node01", "node09"}).exit_code, 0);
  }
  {
    DaemonProcess d(db_, sock_, {}, {{"TOPORR_TEST_CRASH_POINT", "after_commit"}});
    ASSERT_TRUE(d.Start()) << d.log();
    d.Ctl({"ingest", "--format", "ibnetdiscover", edge_});
    EXPECT_EQ(d.WaitExit(20), 128 + SIGKILL);
    EXPECT_EQ(IntegrityCheck(), "ok\n");
    DaemonProcess after(db_, sock_);
    ASSERT_TRUE(after.Start()) << after.log();
    RunResult r = after.Ctl({"--json", "hosts"});
    EXPECT_THAT(r.out, HasSubstr("hostF"));
  }
}

TEST_F(ToporrdTest, ForwardingTablesTracesAndDiff) {
  DaemonProcess d(db_, sock_);
  ASSERT_TRUE(d.Start()) << d.log();
  const std::string lfts = WriteSample("dump_fts_fattree.txt", "fattree.lfts");
  RunResult r = d.Ctl({"ingest", "--format", "lft", lfts});
  EXPECT_EQ(r.exit_code, 1) << "routes without a topology are refused";
  EXPECT_THAT(r.err, HasSubstr("need a topology first"));

  ASSERT_EQ(d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  r = d.Ctl({"--json", "cost", "node01", "node09"});
  EXPECT_THAT(r.out, HasSubstr("\"route_kind\":\"SHORTEST_PATH\""));

  r = d.Ctl({"ingest", "--format", "lft", lfts});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("snapshot 2 created"));
  EXPECT_THAT(r.out, HasSubstr("forwarding tables of 6 switches"));
  r = d.Ctl({"--json", "path", "node01", "node09"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"route_kind\":\"FORWARDING_TABLES\""));
  EXPECT_THAT(r.out, HasSubstr("\"hops\":3,"));

  // The real ibtracert traces of the same simulated fabric agree with the LFT walk.
  for (const char* sample : {"ibtracert_fattree_interleaf.txt", "ibtracert_fattree_intraleaf.txt",
                             "ibtracert_fattree_by_guid_G.txt"}) {
    r = d.Ctl({"ingest", "--format", "ibtracert", WriteSample(sample, sample)});
    EXPECT_EQ(r.exit_code, 0) << sample << ": " << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr(": 0 disagree"));
  }
  // An LFT dump of another fabric does not fit: refused, snapshot 2 stays.
  r = d.Ctl({"ingest", "--format", "lft", WriteSample("dump_fts_edgecases.txt", "edge.lfts")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("does not fit snapshot 2"));

  r = d.Ctl({"diff", "1", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = d.Ctl({"--json", "diff", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"to_snapshot\":2"));
  EXPECT_THAT(r.out, HasSubstr("\"links_added\":0"));
  EXPECT_THAT(r.out, HasSubstr("\"routes_compared\":false"));

  // A new topology (edge cases fabric): the old routes do not fit and are dropped.
  r = d.Ctl({"ingest", "--format", "ibnetdiscover", edge_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("do not fit the new fabric"));
  r = d.Ctl({"--json", "diff", "2", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("\"links_removed\":0,")));
  EXPECT_THAT(r.out, HasSubstr("\"hosts_added\":6"));
  r = d.Ctl({"diff", "7"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("snapshot 7 not found"));
}

TEST_F(ToporrdTest, OmniPathTopologyXml) {
  DaemonProcess d(db_, sock_);
  ASSERT_TRUE(d.Start()) << d.log();
  const std::string xml =
      WriteSample("opa_topology_opaxlattopology_detailed.xml", "opa-detailed.xml");
  RunResult r = d.Ctl({"ingest", "--format", "opareport-xml", xml});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("17 hosts"));
  EXPECT_THAT(r.out, HasSubstr("753 links"));
  r = d.Ctl({"--json", "snapshot"});
  EXPECT_THAT(r.out, HasSubstr("\"source_kind\":\"opareport-xml\""));
}

TEST_F(ToporrdTest, PlanFromDaemonCostsAndOfflineFromDump) {
  DaemonProcess d(db_, sock_);
  ASSERT_TRUE(d.Start()) << d.log();
  ASSERT_EQ(d.Ctl({"ingest", "--format", "ibnetdiscover", fattree_}).exit_code, 0);
  const std::string hostfile = dir_ + "/hosts";
  FILE* f = fopen(hostfile.c_str(), "w");
  fputs("node01 slots=4\nnode05 slots=4\nnode09 slots=4\nnode13 slots=4\n", f);
  fclose(f);
  RunResult r = d.Ctl({"--json", "plan", "--hostfile", hostfile, "--map-by", "node", "--collective",
                       "allreduce", "--algorithm", "rabenseifner", "--size", "1M"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"cost_source\":\"toporrd snapshot 1"));
  EXPECT_THAT(r.out, HasSubstr("\"reordered\":true"));

  const std::string rankfile = dir_ + "/rankfile";
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
  r = d.Ctl({"plan", "--hostfile", hostfile, "--collective", "allreduce", "--size", "1M",
             "--node-topology", dir_ + "/missing.xml"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("missing.xml"));

  r = d.Ctl({"plan", "--hostfile", hostfile, "--collective", "allreduce", "--size", "1Q"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("bad size"));
}

TEST_F(ToporrdTest, AdminRpcsNeedPrivilegeReadsDoNot) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run a client as an unprivileged uid";
  DaemonProcess d(db_, sock_, {"--admin_group", "toporr-no-such-group"});
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
                                     sock_};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv);
  };
  RunResult r = as_nobody({"ingest", "--format", "ibnetdiscover", edge_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("admin RPCs need uid 0 or membership of group"));
  r = as_nobody({"--json", "cost", "node01", "node02"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"hops\":1,"));
}

}  // namespace
}  // namespace toporr
