#include "client/costs/cost_file.h"

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

// ThreeHosts with the routes of two switches: node01, node02 on switch A, node17 on B.
// Directed links: 0/1 node01 up/down, 2/3 node02 up/down, 4/5 node17 up/down, 6 A->B, 7 B->A
// (the inter-switch cable at half rate).
CostFile ThreeHostsWithRoutes() {
  CostFile f = ThreeHosts();
  const std::vector<std::vector<uint32_t>> routes = {
      {},        {0, 3},    {0, 6, 5},  // from node01
      {2, 1},    {},        {2, 6, 5},  // from node02
      {4, 7, 1}, {4, 7, 3}, {}};
  f.routes.link_gbps = {100, 100, 100, 100, 100, 100, 50, 50};
  f.routes.offsets.push_back(0);
  for (const auto& r : routes) {
    f.routes.links.insert(f.routes.links.end(), r.begin(), r.end());
    f.routes.offsets.push_back(f.routes.links.size());
  }
  return f;
}

TEST(CostFileRoutes, RoundTripAndOneRowInJobOrder) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCostFile(ThreeHostsWithRoutes()));
  EXPECT_EQ(bytes.substr(0, 8), "TOPORRC2");
  ASSERT_OK_AND_ASSIGN(CostFile back, DecodeCostFile(bytes, "costs.bin"));
  EXPECT_EQ(back.routes.links, ThreeHostsWithRoutes().routes.links);
  EXPECT_EQ(back.routes.offsets, ThreeHostsWithRoutes().routes.offsets);
  EXPECT_EQ(back.costs.latency_ns, ThreeHosts().costs.latency_ns);

  const std::string path = WriteFile(bytes);
  ASSERT_OK_AND_ASSIGN(CostFileHeader h, ReadCostFileHeader(path));
  EXPECT_EQ(h.hosts, ThreeHosts().hosts);
  EXPECT_EQ(h.num_links, 8u);
  std::vector<float> gbps, latency;
  ASSERT_OK(ReadCostFileRow(path, h, 2, &gbps, &latency));
  EXPECT_EQ(gbps, (std::vector<float>{50, 50, 0}));
  // The job lists node17, node01: row of node17 (file row 2), columns 2 and 0.
  mapping::RouteRow row;
  ASSERT_OK(ReadCostFileRouteRow(path, h, 2, {2, 0}, &row));
  EXPECT_EQ(row.offsets, (std::vector<uint32_t>{0, 0, 3}));
  EXPECT_EQ(row.links, (std::vector<uint32_t>{4, 7, 1}));
  EXPECT_EQ(row.link_ids, (std::vector<uint32_t>{4, 7, 1}));
  EXPECT_EQ(row.link_gbps, (std::vector<float>{100, 50, 100}));

  // A file without routes says so.
  ASSERT_OK_AND_ASSIGN(std::string plain, EncodeCostFile(ThreeHosts()));
  const std::string plain_path = WriteFile(plain);
  ASSERT_OK_AND_ASSIGN(CostFileHeader ph, ReadCostFileHeader(plain_path));
  EXPECT_EQ(ph.routes_offset, 0u);
  EXPECT_THAT(ReadCostFileRouteRow(plain_path, ph, 0, {0, 1}, &row),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("has no routes")));
}

TEST(CostFileRoutes, BrokenRoutesAreRefused) {
  CostFile f = ThreeHostsWithRoutes();
  f.routes.links[2] = 8;  // node01 -> node17 through a link that does not exist
  EXPECT_THAT(EncodeCostFile(f).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("names link 8 of 8")));
  f = ThreeHostsWithRoutes();
  f.routes.link_gbps[6] = 0;
  EXPECT_THAT(EncodeCostFile(f).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("link 6 has rate 0")));
  // Written by hand: the same bytes with one link id corrupted are refused on reading.
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCostFile(ThreeHostsWithRoutes()));
  const uint32_t bad = 99;
  std::memcpy(&bytes[bytes.size() - sizeof(uint32_t)], &bad, sizeof(bad));  // node17 -> node02
  EXPECT_THAT(
      DecodeCostFile(bytes, "c.bin").status(),
      StatusIs(absl::StatusCode::kDataLoss, HasSubstr("c.bin: route 2 -> 1 names link 99")));
  const std::string path = WriteFile(bytes);
  ASSERT_OK_AND_ASSIGN(CostFileHeader h, ReadCostFileHeader(path));
  mapping::RouteRow row;
  EXPECT_THAT(ReadCostFileRouteRow(path, h, 2, {0, 1, 2}, &row),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("names link 99")));
  ASSERT_OK(ReadCostFileRouteRow(path, h, 0, {0, 1, 2}, &row));  // other rows still read
  // A truncated routes section.
  EXPECT_THAT(DecodeCostFile(bytes.substr(0, bytes.size() - 2), "c.bin").status(),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("c.bin")));
  EXPECT_THAT(ReadCostFileHeader(WriteFile(bytes.substr(0, bytes.size() - 2))).status(),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("costs.bin")));
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
