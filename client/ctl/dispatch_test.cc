// Dispatch without a daemon: usage errors exit 2 with the usage text, before any RPC; an
// unreachable daemon exits 1.
#include "client/ctl/dispatch.h"

#include <string>
#include <vector>

#include "client/ctl/testing/ctl_run.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client::ctl {
namespace {

using testing::Ctl;
using testing::CtlRun;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(DispatchTest, UsageErrorsExitTwoWithTheUsage) {
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"--bogus"},
      {"frobnicate"},
      {"--timeout", "0", "hosts"},
      {"--target", "127.0.0.1:1,,127.0.0.1:2", "hosts"},
      {"--target", "127.0.0.1:1,mgmt02", "hosts"},
      {"hosts", "extra"},
      {"cost", "a"},
      {"path"},
      {"matrix"},
      {"row"},
      {"row", "a", "b"},
      {"ingest", "file.topo"},
      {"ingest", "--format", "nope", "file.topo"},
      {"ingest", "--format", "ibnetdiscover"},
      {"diff"},
      {"diff", "x"},
      {"discover", "now"},
      {"plan", "--collective", "allreduce", "--size", "1M"},
      {"plan", "--hostfile", "h", "--collective", "allreduce", "--size", "1Q"},
      {"plan", "--hostfile", "h", "--collective", "teleport", "--size", "1M"},
      {"plan", "--hostfile", "h", "--collective", "allreduce", "--size", "1M", "--radix", "1"},
      {"plan", "--hostfile", "h", "--collective", "allreduce", "--size", "1M", "--np", "x"},
      {"plan", "--hostfile"},
      {"plan", "--wat", "1"},
      {"plan", "--hostfile", "h", "--collective", "allreduce", "--size", "1M", "--mpi-library",
       "lam"},
      {"plan", "--hostfile", "h", "--collective", "allreduce", "--size", "1M", "--algorithm",
       "ring", "--mpi-library", "mpich"},
  };
  for (const auto& args : bad) {
    CtlRun r = Ctl(args);
    SCOPED_TRACE(::testing::PrintToString(args));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, StartsWith("toporrctl: "));
    EXPECT_THAT(r.err, HasSubstr("usage: toporrctl"));
    EXPECT_EQ(r.out, "");
  }
}

TEST(DispatchTest, MessagesNameTheProblem) {
  EXPECT_THAT(Ctl({"frobnicate"}).err, HasSubstr("unknown command 'frobnicate'"));
  EXPECT_THAT(Ctl({"hosts", "x"}).err, HasSubstr("hosts takes no arguments"));
  EXPECT_THAT(Ctl({"ingest", "f"}).err, HasSubstr("--format is required"));
  EXPECT_THAT(Ctl({"plan", "--np"}).err, HasSubstr("--np needs a value"));
  EXPECT_THAT(Ctl({"plan", "--hostfile", "h", "--collective", "bcast", "--size", "1",
                   "--mpi-library", "lam"})
                  .err,
              HasSubstr("unknown MPI library rules `lam` (openmpi, mpich, smpi-ompi)"));
}

TEST(DispatchTest, HelpListsEveryCommand) {
  for (const char* help : {"help", "--help", "-h"}) {
    CtlRun r = Ctl({help});
    EXPECT_EQ(r.exit_code, 0);
    for (const char* command : {"ingest", "discover", "diff", "hosts", "cost", "row", "matrix",
                                "path", "snapshot", "snapshots", "health", "stats", "plan"}) {
      EXPECT_THAT(r.out, HasSubstr(std::string("\n  ") + command + " ")) << command;
    }
  }
}

// `export` names its formats in its help entry and in its refusal of an unknown one; the
// refusals of a format's arguments come before any RPC (exit 2), an accepted format reaches
// for the daemon (exit 1).
TEST(DispatchTest, ExportNamesEveryFormat) {
  EXPECT_THAT(
      Ctl({"help"}).out,
      HasSubstr("\n  export --format costs --output FILE (HOST... | --hosts H1,H2)\n"
                "      the job's cost matrix for libtoporr's TOPORR_COSTS (no daemon needed)\n"
                "  export --format slurm-topology|slurm-topology-yaml|slurm-block|k8s-labels|\n"
                "         k8s-labels-legacy|kueue-topology|mpich-coordinates|dot|json [--output\n"
                "         FILE] [HOST... | --hosts H1,H2]\n"
                "      Slurm topology.conf (tree plugin), Slurm topology.yaml (25.05+: tree and\n"
                "      block), topology.conf of the block plugin (a block per leaf switch), a\n"
                "      kubectl script setting topograph 1.0's fabric.topograph.run/tier-{0,1,2}\n"
                "      node labels, the same in topograph's legacy\n"
                "      network.topology.nvidia.com/{leaf,spine,core} labels, Kueue's Topology\n"
                "      object over those labels (topology-aware scheduling), MPICH's\n"
                "      MPIR_CVAR_COORDINATES_FILE (hosts in rank order), a Graphviz picture with\n"
                "      link rates, the snapshot as JSON\n"));
  const std::string formats =
      "export: --format is costs, slurm-topology, slurm-topology-yaml, slurm-block, "
      "k8s-labels, k8s-labels-legacy, kueue-topology, mpich-coordinates, dot or json\n";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"export"}, {"export", "--format", "svg"}, {"export", "--format", "JSON"}}) {
    CtlRun r = Ctl(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, HasSubstr(formats));
  }
  CtlRun r = Ctl({"export", "--format", "json", "node01"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("export: --format json is the whole snapshot (no hosts)\n"));
  r = Ctl({"export", "--format", "costs", "node01"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("export: --output FILE is required\n"));
  r = Ctl({"export", "--format", "costs", "--output", "/nonexistent/c"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("export: name the job's hosts (HOST... or --hosts H1,H2)\n"));
  for (const std::string format :
       {"costs", "slurm-topology", "slurm-topology-yaml", "slurm-block", "k8s-labels",
        "k8s-labels-legacy", "kueue-topology", "mpich-coordinates", "dot", "json"}) {
    std::vector<std::string> args = {"export", "--format", format, "--output", "/nonexistent/out"};
    if (format != "json") args.insert(args.end(), {"--hosts", "node01"});
    r = Ctl(args);
    EXPECT_EQ(r.exit_code, 1) << format << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("cannot reach toporrd")) << format;
  }
}

TEST(DispatchTest, UnreachableDaemonExitsOne) {
  CtlRun r = Ctl({"hosts"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot reach toporrd at /nonexistent/toporrd.sock"));
  EXPECT_THAT(r.err, Not(HasSubstr("usage:")));
}

TEST(DispatchTest, UnreadableInputFileExitsOne) {
  CtlRun r = Ctl({"ingest", "--format", "ibnetdiscover", "/nonexistent/fabric.topo"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/fabric.topo: cannot open"));
}

}  // namespace
}  // namespace toporr::client::ctl
