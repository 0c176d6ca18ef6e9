#include "client/serialized_row_source.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace toporr::client {
namespace {

// Counts the calls that overlap in time (a source that is not thread-safe would see some).
class OverlapCounter final : public RowSource {
 public:
  std::string_view kind() const override { return "test"; }
  absl::StatusOr<HostListTicket> Prepare(const std::vector<std::string>& hosts) override {
    Enter();
    return HostListTicket{7, "token"};
  }
  absl::StatusOr<CostRow> Row(const HostListTicket& ticket, const std::vector<std::string>& hosts,
                              int host_index, bool with_routes) override {
    Enter();
    CostRow row;
    row.snapshot_id = ticket.snapshot_id;
    row.values.assign(2 * hosts.size(), static_cast<float>(host_index));
    return row;
  }
  std::atomic<int> overlaps{0};
  std::atomic<int> calls{0};

 private:
  void Enter() {
    if (inside_.fetch_add(1) != 0) ++overlaps;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    ++calls;
    inside_.fetch_sub(1);
  }
  std::atomic<int> inside_{0};
};

TEST(SerializedRowSourceTest, CallsFromSeveralThreadsRunOneAtATime) {
  auto counter = std::make_unique<OverlapCounter>();
  OverlapCounter* seen = counter.get();
  std::unique_ptr<RowSource> source = SerializedRowSource(std::move(counter));
  EXPECT_EQ(source->kind(), "test");
  const std::vector<std::string> hosts = {"a", "b", "c"};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        absl::StatusOr<HostListTicket> ticket = source->Prepare(hosts);
        ASSERT_TRUE(ticket.ok());
        absl::StatusOr<CostRow> row = source->Row(*ticket, hosts, t % 3, false);
        ASSERT_TRUE(row.ok());
        EXPECT_EQ(row->snapshot_id, 7);
        EXPECT_EQ(row->values[0], static_cast<float>(t % 3));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(seen->calls.load(), 4 * 20 * 2);
  EXPECT_EQ(seen->overlaps.load(), 0);
}

}  // namespace
}  // namespace toporr::client
