#include "client/cost_file.h"

#include <cstring>
#include <fstream>

#include "common/status_matchers.h"
#include "common/test_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toporr::client {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::StatusIs;

CostFile ThreeHosts() {
  CostFile f;
  f.snapshot_id = 42;
  f.hosts = {"node01", "node02", "node17"};
  f.costs.n = 3;
  f.costs.hops = {0, 1, 3, 1, 0, 3, 3, 3, 0};
  f.costs.bottleneck_gbps = {0, 100, 50, 100, 0, 50, 50, 50, 0};
  f.costs.latency_ns = {0, 1100, 1500.5f, 1100, 0, 1500.5f, 1500.5f, 1500.5f, 0};
  return f;
}

TEST(CostFile, RoundTripKeepsEveryValue) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCostFile(ThreeHosts()));
  ASSERT_OK_AND_ASSIGN(CostFile back, DecodeCostFile(bytes, "costs.bin"));
  EXPECT_EQ(back.snapshot_id, 42);
  EXPECT_EQ(back.hosts, ThreeHosts().hosts);
  EXPECT_EQ(back.costs.n, 3);
  EXPECT_EQ(back.costs.hops, ThreeHosts().costs.hops);
  EXPECT_EQ(back.costs.bottleneck_gbps, ThreeHosts().costs.bottleneck_gbps);
  EXPECT_EQ(back.costs.latency_ns, ThreeHosts().costs.latency_ns);
}

std::string WriteFile(const std::string& bytes) {
  const std::string path = ::toporr::testing::MakeTempDir("costfile") + "/costs.bin";
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(CostFileRows, HeaderAndOneRowWithoutTheRest) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCostFile(ThreeHosts()));
  const std::string path = WriteFile(bytes);
  ASSERT_OK_AND_ASSIGN(CostFileHeader h, ReadCostFileHeader(path));
  EXPECT_EQ(h.snapshot_id, 42);
  EXPECT_EQ(h.hosts, ThreeHosts().hosts);
  std::vector<float> gbps, latency;
  ASSERT_OK(ReadCostFileRow(path, h, 2, &gbps, &latency));
  EXPECT_EQ(gbps, (std::vector<float>{50, 50, 0}));
  EXPECT_EQ(latency, (std::vector<float>{1500.5f, 1500.5f, 0}));
  EXPECT_THAT(ReadCostFileRow(path, h, 3, &gbps, &latency),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no row 3")));
}

TEST(CostFileRows, TruncatedOrPaddedFilesAndBadMagicAreNamed) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCostFile(ThreeHosts()));
  for (const std::string& bad : {bytes.substr(0, bytes.size() - 1), bytes + "x",
                                 bytes.substr(0, 10), "TOPORRC9" + bytes.substr(8)}) {
    const std::string path = WriteFile(bad);
    EXPECT_THAT(ReadCostFileHeader(path), StatusIs(absl::StatusCode::kDataLoss, HasSubstr(path)))
        << bad.size();
  }
  EXPECT_THAT(ReadCostFileHeader("/nonexistent/costs.bin"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent/costs.bin")));
}

TEST(CostFile, EveryTruncationIsDataLossNamingTheFile) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCostFile(ThreeHosts()));
  for (size_t len = 0; len < bytes.size(); ++len) {
    EXPECT_THAT(DecodeCostFile(std::string_view(bytes).substr(0, len), "costs.bin"),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("costs.bin: ")))
        << "length " << len;
  }
  EXPECT_THAT(DecodeCostFile(bytes + "x", "costs.bin"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("1 bytes after")));
}

TEST(CostFile, BadMagicDuplicateHostAndMismatchedArrays) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCostFile(ThreeHosts()));
  std::string bad = bytes;
  bad[0] = 'X';
  EXPECT_THAT(DecodeCostFile(bad, "f"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("bad magic")));
  CostFile dup = ThreeHosts();
  dup.hosts[2] = "node01";
  ASSERT_OK_AND_ASSIGN(std::string dup_bytes, EncodeCostFile(dup));
  EXPECT_THAT(DecodeCostFile(dup_bytes, "f"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("duplicate host 'node01'")));
  CostFile short_arrays = ThreeHosts();
  short_arrays.costs.hops.pop_back();
  EXPECT_THAT(EncodeCostFile(short_arrays),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("3 hosts")));
}

TEST(CostFile, HugeHostCountIsRefusedBeforeAllocating) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCostFile(ThreeHosts()));
  const uint32_t huge = 0xFFFFFFFFu;
  std::memcpy(bytes.data() + 16, &huge, sizeof(huge));
  EXPECT_THAT(DecodeCostFile(bytes, "f"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("hosts announced")));
}

}  // namespace
}  // namespace toporr::client
