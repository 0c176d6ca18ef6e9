// DiscoverySweeper on a real SQLite file with each way of reaching the collector: the helper
// (a fake one on a Unix socket) and a child process (a script standing in for
// toporr-discover), and which of the two toporrd picks when none is configured.
#include "daemon/discovery.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>

#include "collectors/sweep_protocol.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "daemon/remote_sweep.h"
#include "daemon/testing/fake_sweep_helper.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::toporr::testing::FakeSweepHelper;
using ::toporr::testing::ReadSharedFabric;
using ::toporr::testing::StatusIs;

class DiscoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    work_ = toporr::testing::MakeTempDir("discovery");
    FabricStateOptions options;
    options.store.path = work_ + "/toporr.db";
    ASSERT_OK_AND_ASSIGN(state_, FabricState::Create(options));
    char tmpl[] = "/tmp/toporr-discovery.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    socket_dir_ = tmpl;
    socket_ = socket_dir_ + "/helper.sock";
  }
  void TearDown() override { rmdir(socket_dir_.c_str()); }

  // The shared 2-level fat tree as a helper would send it: topology and LFTs.
  static collectors::SweepResult FatTree() {
    collectors::SweepResult result;
    result.topology = ReadSharedFabric("ibnetdiscover_fattree_default.txt");
    result.forwarding_tables = ReadSharedFabric("dump_fts_fattree.txt");
    return result;
  }

  std::string work_, socket_dir_, socket_;
  std::unique_ptr<FabricState> state_;
};

TEST_F(DiscoveryTest, DefaultsToTheHelperUnlessRoot) {
  EXPECT_THAT(DefaultSweepCommand(998), ElementsAre("unix:/run/toporr-discover.sock"));
  EXPECT_THAT(DefaultSweepCommand(0), ElementsAre(EndsWith("toporr-discover")));
  DiscoverySweeper sweeper({}, state_.get());
  EXPECT_EQ(sweeper.command(), DefaultSweepCommand(geteuid()));
}

TEST_F(DiscoveryTest, SweepsThroughTheHelper) {
  ASSERT_OK_AND_ASSIGN(auto helper, FakeSweepHelper::Start(socket_));
  helper->set_reply(collectors::FormatSweepReply(FatTree()));
  DiscoveryOptions options;
  options.command = {"unix:" + socket_};
  options.probe_pause_us = 321;
  DiscoverySweeper sweeper(options, state_.get());
  ASSERT_OK_AND_ASSIGN(IngestOutcome first, sweeper.SweepNow());
  EXPECT_TRUE(first.created);
  EXPECT_GT(first.snapshot.num_hosts, 0);
  EXPECT_EQ(first.snapshot.source_name, "toporr-discover");
  ASSERT_NE(state_->Current(), nullptr);
  // The LFTs came along: costs follow forwarding tables.
  EXPECT_GT(first.snapshot.num_forwarding_tables, 0);
  EXPECT_NE(state_->Current()->tables, nullptr);
  ASSERT_OK_AND_ASSIGN(IngestOutcome second, sweeper.SweepNow());
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.snapshot.id, first.snapshot.id);
  EXPECT_THAT(helper->requests(), ElementsAre("toporr-sweep 1 probe-pause-us=321",
                                              "toporr-sweep 1 probe-pause-us=321"));
}

TEST_F(DiscoveryTest, HelperFailuresAreUnavailableAndChangeNothing) {
  DiscoveryOptions options;
  options.command = {"unix:" + socket_};
  DiscoverySweeper sweeper(options, state_.get());
  EXPECT_THAT(sweeper.SweepNow(), StatusIs(absl::StatusCode::kUnavailable,
                                           HasSubstr("fabric sweep failed: discovery helper "
                                                     "unix:" +
                                                     socket_ + ": cannot connect")));
  ASSERT_OK_AND_ASSIGN(auto helper, FakeSweepHelper::Start(socket_));
  helper->set_reply(collectors::FormatSweepFailure("umad port: no permission"));
  EXPECT_THAT(sweeper.SweepNow(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("umad port: no permission")));
  helper->set_reply("toporr-sweep 1 ok topology=5 forwarding-tables=0\nab");
  EXPECT_THAT(sweeper.SweepNow(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("announces 5 bytes")));
  EXPECT_EQ(state_->Current(), nullptr);

  options.command = {"unix:" + socket_, "--ca", "mlx5_0"};
  DiscoverySweeper with_args(options, state_.get());
  EXPECT_THAT(with_args.SweepNow(), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("unix:PATH takes no arguments")));
}

TEST_F(DiscoveryTest, SweepsThroughAChildProcess) {
  // Stands in for toporr-discover: copies the samples to the files toporrd names.
  const std::string topology = work_ + "/topology.txt";
  const std::string tables = work_ + "/tables.txt";
  { std::ofstream(topology) << FatTree().topology; }
  { std::ofstream(tables) << FatTree().forwarding_tables; }
  const std::string script = work_ + "/collector.sh";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\n"
           "[ \"$1 $3 $5 $7\" = '--format --output --lfts --probe-pause-us' ] || exit 9\n"
           "[ \"$8\" = 55 ] || exit 8\n"
           "cp '"
        << topology << "' \"$4\" && cp '" << tables << "' \"$6\"\n";
  }
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  DiscoveryOptions options;
  options.command = {script};
  options.probe_pause_us = 55;
  DiscoverySweeper sweeper(options, state_.get());
  ASSERT_OK_AND_ASSIGN(IngestOutcome out, sweeper.SweepNow());
  EXPECT_TRUE(out.created);
  EXPECT_GT(out.snapshot.num_hosts, 0);

  options.command = {"/bin/false"};
  DiscoverySweeper failing(options, state_.get());
  EXPECT_THAT(failing.SweepNow(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("/bin/false --format")));
}

}  // namespace
}  // namespace toporr::daemon
