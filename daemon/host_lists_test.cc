// HostLists over a real FabricState (SQLite file, shared fabric dumps): tokens, errors,
// compact rows equal to MatrixCompact's, re-resolution after the snapshot changes, bounds.
#include "daemon/host_lists.h"

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
  EXPECT_THAT(lists.Register(Names({}), *s),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty")));
  EXPECT_THAT(lists.Register(Names({"node01", "nodeX", "node02", "nodeY"}), *s),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("'nodeX'"), HasSubstr("2 of the 4 hosts"))));
  EXPECT_THAT(lists.Register(Names({"node01", "node02", "node01"}), *s),
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
  ASSERT_OK_AND_ASSIGN(std::string token, lists.Register(names, *s));
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
                       lists.Register(Names({"node01", "node02"}), *state_->Current()));
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
  ASSERT_OK_AND_ASSIGN(std::string a, lists.Register(Names({"node01", "node02"}), *s));
  ASSERT_OK_AND_ASSIGN(std::string b, lists.Register(Names({"node03", "node04"}), *s));
  ASSERT_OK_AND_ASSIGN(HostLists::View a_rows, lists.Find(a, *s, true));
  ASSERT_OK_AND_ASSIGN(HostLists::View b_rows, lists.Find(b, *s, true));  // drops a's rows
  ASSERT_OK_AND_ASSIGN(HostLists::View b_again, lists.Find(b, *s, true));
  EXPECT_EQ(b_again.rows, b_rows.rows);
  ASSERT_OK_AND_ASSIGN(HostLists::View a_again, lists.Find(a, *s, true));
  EXPECT_NE(a_again.rows, a_rows.rows) << "rebuilt";
  EXPECT_EQ(a_again.rows->rows.hops, a_rows.rows->rows.hops);
  // a was used last: a third list evicts b.
  ASSERT_OK(lists.Register(Names({"node05"}), *s).status());
  EXPECT_EQ(lists.size(), 2u);
  EXPECT_OK(lists.Find(a, *s, false).status());
  EXPECT_THAT(lists.Find(b, *s, false),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(b)));
}

}  // namespace
}  // namespace toporr::daemon
