// HostLists over a real FabricState (SQLite file, shared fabric dumps): tokens, errors,
// compact rows equal to MatrixCompact's, re-resolution after the snapshot changes, bounds.
#include "daemon/host_lists.h"

#include "absl/strings/str_cat.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::toporr::testing::ReadSharedFabric;
using ::toporr::testing::StatusIs;

HostLists::Names Names(std::initializer_list<const char*> names) {
  HostLists::Names out;
  for (const char* n : names) *out.Add() = n;
  return out;
}

class HostListsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FabricStateOptions options;
    options.store.path = toporr::testing::MakeTempDir("host_lists") + "/toporr.db";
    ASSERT_OK_AND_ASSIGN(state_, FabricState::Create(options));
    Ingest(InputFormat::kIbnetdiscover, "ibnetdiscover_fattree_default.txt");
  }
  void Ingest(InputFormat f, const std::string& sample) {
    ASSERT_OK(
        state_->Ingest(f, sample, ReadSharedFabric(sample), "", IngestMode{/*allow_shrink=*/true})
            .status());
  }
  std::unique_ptr<FabricState> state_;
};

TEST_F(HostListsTest, TokenIsADigestOfTheNamesInOrder) {
  const std::string t = HostLists::Token(Names({"node01", "node02"}));
  EXPECT_THAT(t, MatchesRegex("[0-9a-f]{32}"));
  EXPECT_EQ(HostLists::Token(Names({"node01", "node02"})), t);
  EXPECT_NE(HostLists::Token(Names({"node02", "node01"})), t);
  EXPECT_NE(HostLists::Token(Names({"ab", "c"})), HostLists::Token(Names({"a", "bc"})));
}

TEST_F(HostListsTest, RegisterRefusesEmptyUnknownAndDuplicateHosts) {
  HostLists lists;
  auto s = state_->Current();
  EXPECT_THAT(lists.Register(Names({}), *s, "uid 0"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty")));
  EXPECT_THAT(lists.Register(Names({"node01", "nodeX", "node02", "nodeY"}), *s, "uid 0"),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("'nodeX'"), HasSubstr("2 of the 4 hosts"))));
  EXPECT_THAT(lists.Register(Names({"node01", "node02", "node01"}), *s, "uid 0"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'node01'"), HasSubstr("columns 0 and 2"))));
  EXPECT_EQ(lists.size(), 0u);
  EXPECT_THAT(lists.Find("0123", *s, false),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("unknown host list 0123 (toporrd restarted? register it again)")));
}

// Every row copied out of the list's compact rows is MatrixCompact's row; the rows are
// built once per snapshot, and again along the routes after an LFT ingest.
TEST_F(HostListsTest, RowsAreTheCompactMatrixRowsPerSnapshot) {
  HostLists lists;
  const HostLists::Names names = Names({"node16", "node01", "node09", "node02", "node13"});
  auto s = state_->Current();
  ASSERT_OK_AND_ASSIGN(std::string token, lists.Register(names, *s, "uid 0"));
  EXPECT_EQ(token, HostLists::Token(names));
  EXPECT_EQ(lists.size(), 1u);
  for (int round = 0; round < 2; ++round) {
    ASSERT_OK_AND_ASSIGN(HostLists::View v, lists.Find(token, *s, /*want_rows=*/true));
    ASSERT_NE(v.rows, nullptr);
    EXPECT_EQ(v.list->snapshot_id, s->info.id);
    EXPECT_EQ(v.list->column_of[s->fabric.FindHost("node09")], 2);
    EXPECT_EQ(v.list->column_of[s->fabric.FindHost("node03")], -1);
    std::string hops, rate_index;
    std::vector<double> rates;
    ASSERT_OK(s->costs->MatrixCompact(v.list->hosts, &hops, &rate_index, &rates));
    ASSERT_OK(v.rows->status);
    EXPECT_EQ(v.rows->rows.rates_gbps, rates);
    const size_t n = names.size();
    std::string row_hops(n, '?'), row_rate(n, '?');
    for (size_t i = 0; i < n; ++i) {
      v.rows->rows.CopyRow(i, row_hops.data(), row_rate.data());
      EXPECT_EQ(row_hops, hops.substr(i * n, n));
      EXPECT_EQ(row_rate, rate_index.substr(i * n, n));
    }
    ASSERT_OK_AND_ASSIGN(HostLists::View again, lists.Find(token, *s, true));
    EXPECT_EQ(again.rows, v.rows) << "built once";
    ASSERT_OK_AND_ASSIGN(HostLists::View plain, lists.Find(token, *s, false));
    EXPECT_EQ(plain.rows, nullptr);
    if (round == 1) break;
    Ingest(InputFormat::kLft, "dump_fts_fattree.txt");
    auto next = state_->Current();
    ASSERT_NE(next->info.id, s->info.id);
    ASSERT_EQ(next->costs->route_kind(), mapping::PairCosts::RouteKind::kForwardingTables);
    s = next;
  }
}

TEST_F(HostListsTest, ListNamingHostsGoneFromTheFabricIsRefused) {
  HostLists lists;
  ASSERT_OK_AND_ASSIGN(std::string token,
                       lists.Register(Names({"node01", "node02"}), *state_->Current(), "uid 0"));
  Ingest(InputFormat::kIbnetdiscover, "ibnetdiscover_edgecases_default.txt");
  EXPECT_THAT(lists.Find(token, *state_->Current(), true),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr(token), HasSubstr("'node01'"),
                             HasSubstr("fabric changed since it was registered"))));
}

TEST_F(HostListsTest, LeastRecentlyUsedListsAndRowsGoFirst) {
  HostListsOptions options;
  options.max_lists = 2;
  options.max_row_bytes = 1;  // only the rows built last are kept
  HostLists lists(options);
  auto s = state_->Current();
  ASSERT_OK_AND_ASSIGN(std::string a, lists.Register(Names({"node01", "node02"}), *s, "uid 0"));
  ASSERT_OK_AND_ASSIGN(std::string b, lists.Register(Names({"node03", "node04"}), *s, "uid 0"));
  ASSERT_OK_AND_ASSIGN(HostLists::View a_rows, lists.Find(a, *s, true));
  ASSERT_OK_AND_ASSIGN(HostLists::View b_rows, lists.Find(b, *s, true));  // drops a's rows
  ASSERT_OK_AND_ASSIGN(HostLists::View b_again, lists.Find(b, *s, true));
  EXPECT_EQ(b_again.rows, b_rows.rows);
  ASSERT_OK_AND_ASSIGN(HostLists::View a_again, lists.Find(a, *s, true));
  EXPECT_NE(a_again.rows, a_rows.rows) << "rebuilt";
  EXPECT_EQ(a_again.rows->rows.hops, a_rows.rows->rows.hops);
  // a was used last: a third list evicts b.
  ASSERT_OK(lists.Register(Names({"node05"}), *s, "uid 0").status());
  EXPECT_EQ(lists.size(), 2u);
  EXPECT_OK(lists.Find(a, *s, false).status());
  EXPECT_THAT(lists.Find(b, *s, false),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(b)));
}

// One list of one host, "node01".."node16".
HostLists::Names Node(int i) {
  HostLists::Names out;
  *out.Add() = absl::StrCat(i < 10 ? "node0" : "node", i);
  return out;
}

// The per-peer bound on an injected clock: a flood ends in refusals, never in another peer's
// list going; a peer's own idle list makes room; the peer holding the most gives way first
// at the overall bound; a list held by two peers stays while one holds it.
class HostListsFairnessTest : public HostListsTest {
 protected:
  HostListsOptions Options(size_t max_lists, size_t per_peer) {
    HostListsOptions options;
    options.max_lists = max_lists;
    options.max_lists_per_peer = per_peer;
    options.min_hold = absl::Seconds(60);
    options.now = [this] { return now_; };
    return options;
  }
  absl::Time now_ = absl::FromUnixSeconds(1000000);
};

TEST_F(HostListsFairnessTest, FloodFromOnePeerIsRefusedAndLeavesOtherPeersLists) {
  HostLists lists(Options(/*max_lists=*/8, /*per_peer=*/3));
  auto s = state_->Current();
  ASSERT_OK_AND_ASSIGN(std::string job, lists.Register(Node(1), *s, "uid 0"));
  for (int i = 2; i <= 4; ++i) ASSERT_OK(lists.Register(Node(i), *s, "uid 1000").status());
  for (int i = 5; i <= 16; ++i) {
    EXPECT_THAT(lists.Register(Node(i), *s, "uid 1000"),
                StatusIs(absl::StatusCode::kResourceExhausted,
                         AllOf(HasSubstr("uid 1000 already holds 3 host lists"),
                               HasSubstr("max_host_lists_per_peer = 3"))));
  }
  EXPECT_EQ(lists.refused_peer_quota(), 12);
  EXPECT_EQ(lists.held_by("uid 1000"), 3u);
  EXPECT_EQ(lists.size(), 4u);
  EXPECT_OK(lists.Find(job, *s, true).status());
  // A list the flooder holds already is no new registration.
  EXPECT_OK(lists.Register(Node(2), *s, "uid 1000").status());
  EXPECT_EQ(lists.refused_peer_quota(), 12);
}

TEST_F(HostListsFairnessTest, APeersIdleListMakesRoomForItsNextOne) {
  HostLists lists(Options(8, 2));
  auto s = state_->Current();
  ASSERT_OK_AND_ASSIGN(std::string a, lists.Register(Node(1), *s, "uid 1000"));
  ASSERT_OK_AND_ASSIGN(std::string b, lists.Register(Node(2), *s, "uid 1000"));
  now_ += absl::Seconds(30);
  ASSERT_OK(lists.Find(a, *s, false).status());  // a job's leaders use a
  now_ += absl::Seconds(31);                     // b idle for 61 s, a for 31 s
  ASSERT_OK(lists.Register(Node(3), *s, "uid 1000").status());
  EXPECT_THAT(lists.Find(b, *s, false),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("register it again")));
  EXPECT_OK(lists.Find(a, *s, false).status());
  // Now a and c are both in use: the next one is refused.
  EXPECT_THAT(lists.Register(Node(4), *s, "uid 1000"),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("idle")));
  EXPECT_EQ(lists.held_by("uid 1000"), 2u);
}

TEST_F(HostListsFairnessTest, AtTheOverallBoundTheLargestHolderGivesWay) {
  HostLists lists(Options(/*max_lists=*/4, /*per_peer=*/3));
  auto s = state_->Current();
  // uid 0's list is the least recently used of all, but uid 1000 holds the most.
  ASSERT_OK_AND_ASSIGN(std::string job, lists.Register(Node(1), *s, "uid 0"));
  std::vector<std::string> flood;
  for (int i = 2; i <= 4; ++i) {
    ASSERT_OK_AND_ASSIGN(std::string t, lists.Register(Node(i), *s, "uid 1000"));
    flood.push_back(t);
  }
  ASSERT_OK_AND_ASSIGN(std::string other, lists.Register(Node(5), *s, "ipv4:10.0.0.7"));
  EXPECT_EQ(lists.size(), 4u);
  EXPECT_OK(lists.Find(job, *s, false).status());
  EXPECT_OK(lists.Find(other, *s, false).status());
  EXPECT_THAT(lists.Find(flood[0], *s, false),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("register it again")));
  EXPECT_EQ(lists.held_by("uid 1000"), 2u);
}

TEST_F(HostListsFairnessTest, AListTwoPeersHoldStaysWhileOneHoldsIt) {
  HostLists lists(Options(8, 1));
  auto s = state_->Current();
  ASSERT_OK_AND_ASSIGN(std::string shared, lists.Register(Node(1), *s, "uid 1000"));
  ASSERT_OK(lists.Register(Node(1), *s, "uid 0").status());
  EXPECT_EQ(lists.held_by("uid 1000"), 1u);
  EXPECT_EQ(lists.held_by("uid 0"), 1u);
  now_ += absl::Seconds(61);
  ASSERT_OK(lists.Register(Node(2), *s, "uid 1000").status());  // lets its share go
  EXPECT_EQ(lists.held_by("uid 1000"), 1u);
  EXPECT_OK(lists.Find(shared, *s, false).status());
  EXPECT_EQ(lists.size(), 2u);
}

}  // namespace
}  // namespace toporr::daemon
