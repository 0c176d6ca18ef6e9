// Round trip of real ibnetdiscover dumps (shared samples) through the store.
#include "collectors/ibnetdiscover.h"
#include "common/status_matchers.h"
#include "common/test_data.h"
#include "db/store.h"
#include "db/test_fabrics.h"
#include "gtest/gtest.h"

namespace toporr::db {
namespace {

using collectors::ParseIbnetdiscover;
using fabric::Fabric;

absl::StatusOr<Fabric> ParseSample(const std::string& name) {
  return ParseIbnetdiscover(toporr::testing::ReadSharedFabric(name), {name});
}

StoreOptions Options() {
  StoreOptions o;
  o.path = toporr::testing::MakeTempDir("store_ibnet") + "/toporr.db";
  return o;
}

class SharedSampleRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedSampleRoundTrip, LoadsBackIdenticalAndReingestIsANoOp) {
  ASSERT_OK_AND_ASSIGN(Fabric parsed, ParseSample(GetParam()));
  ASSERT_FALSE(parsed.links.empty());
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options()));
  ASSERT_OK_AND_ASSIGN(IngestResult r, store->Ingest(parsed, "ibnetdiscover", GetParam()));
  EXPECT_TRUE(r.created);
  EXPECT_EQ(r.snapshot.num_links, static_cast<int64_t>(parsed.links.size()));
  ASSERT_OK_AND_ASSIGN(Fabric loaded, store->LoadFabric(r.snapshot.id));
  testing::ExpectFabricsEqual(parsed, loaded);

  ASSERT_OK_AND_ASSIGN(Fabric again, ParseSample(GetParam()));
  ASSERT_OK_AND_ASSIGN(IngestResult r2, store->Ingest(again, "ibnetdiscover", "copy.txt"));
  EXPECT_FALSE(r2.created);
  EXPECT_EQ(r2.snapshot.id, r.snapshot.id);
}

INSTANTIATE_TEST_SUITE_P(Samples, SharedSampleRoundTrip,
                         ::testing::Values("ibnetdiscover_fattree_default.txt",
                                           "ibnetdiscover_fattree_lmc2.txt",
                                           "ibnetdiscover_edgecases_default.txt",
                                           "ibnetdiscover_chassis_grouping_g.txt",
                                           "ibnetdiscover_real_nvidia_loops_mixed.txt",
                                           "ibnetdiscover_real_ibm_small.txt"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(StoreIbnetdiscoverTest, SameFabricInAnotherOutputVariantMakesNoNewSnapshot) {
  // `-m` adds hop-count header lines and `-f` raw width/speed codes; the fabric
  // is the same.
  ASSERT_OK_AND_ASSIGN(Fabric plain, ParseSample("ibnetdiscover_fattree_default.txt"));
  ASSERT_OK_AND_ASSIGN(auto store, Store::Open(Options()));
  ASSERT_OK_AND_ASSIGN(IngestResult first,
                       store->Ingest(plain, "ibnetdiscover", "fattree_default.txt"));
  for (const char* variant :
       {"ibnetdiscover_fattree_maxhops_m.txt", "ibnetdiscover_fattree_full_f.txt"}) {
    ASSERT_OK_AND_ASSIGN(Fabric f, ParseSample(variant));
    ASSERT_OK_AND_ASSIGN(IngestResult r, store->Ingest(f, "ibnetdiscover", variant));
    EXPECT_FALSE(r.created) << variant;
    EXPECT_EQ(r.snapshot.id, first.snapshot.id) << variant;
  }
}

}  // namespace
}  // namespace toporr::db
