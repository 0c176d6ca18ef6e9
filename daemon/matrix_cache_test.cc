#include "daemon/matrix_cache.h"

#include "gtest/gtest.h"

namespace toporr::daemon {
namespace {

v1::GetCostMatrixRequest Req(std::initializer_list<const char*> hosts, bool compact = true) {
  v1::GetCostMatrixRequest r;
  for (const char* h : hosts) r.add_hosts(h);
  r.set_compact(compact);
  return r;
}

std::shared_ptr<const v1::GetCostMatrixResponse> Reply(int64_t id) {
  auto r = std::make_shared<v1::GetCostMatrixResponse>();
  r->set_snapshot_id(id);
  return r;
}

TEST(MatrixCache, HitsOnlyTheSameHostsFormAndSnapshot) {
  MatrixCache cache(2);
  cache.Insert(Req({"a", "b"}), 1, Reply(1));
  ASSERT_NE(cache.Find(Req({"a", "b"}), 1), nullptr);
  EXPECT_EQ(cache.Find(Req({"a", "b"}), 2), nullptr) << "another snapshot";
  EXPECT_EQ(cache.Find(Req({"b", "a"}), 1), nullptr) << "another order";
  EXPECT_EQ(cache.Find(Req({"a", "b"}, false), 1), nullptr) << "another form";
  EXPECT_EQ(cache.Find(Req({"ab"}), 1), nullptr);
}

TEST(MatrixCache, EvictsLeastRecentlyUsed) {
  MatrixCache cache(2);
  cache.Insert(Req({"a"}), 1, Reply(1));
  cache.Insert(Req({"b"}), 1, Reply(1));
  ASSERT_NE(cache.Find(Req({"a"}), 1), nullptr);  // a is now the most recent
  cache.Insert(Req({"c"}), 1, Reply(1));
  EXPECT_NE(cache.Find(Req({"a"}), 1), nullptr);
  EXPECT_EQ(cache.Find(Req({"b"}), 1), nullptr);
  EXPECT_NE(cache.Find(Req({"c"}), 1), nullptr);
  MatrixCache off(0);
  off.Insert(Req({"a"}), 1, Reply(1));
  EXPECT_EQ(off.Find(Req({"a"}), 1), nullptr);
}

}  // namespace
}  // namespace toporr::daemon
