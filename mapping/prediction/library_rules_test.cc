#include "mapping/prediction/library_rules.h"

#include <gtest/gtest.h>

namespace toporr::mapping {
namespace {

std::string Choose(LibraryRules r, Collective c, int p, int64_t bytes) {
  absl::StatusOr<LibraryChoice> choice = LibraryDefault(r, c, p, bytes, 1, 0);
  if (!choice.ok()) return std::string(choice.status().message());
  return choice->name;
}

TEST(LibraryRulesTest, OpenMpiTablesPickBySizeAndMessage) {
  const auto r = LibraryRules::kOpenMpi;
  // Allreduce, commutative: 16..31 ranks: recursive doubling from 64 B to 4 KiB, then
  // Rabenseifner; 128..255 ranks: nonoverlapping below 128 KiB.
  EXPECT_EQ(Choose(r, Collective::kAllreduce, 16, 32), "segmented_ring");
  EXPECT_EQ(Choose(r, Collective::kAllreduce, 16, 1024), "recursive_doubling");
  EXPECT_EQ(Choose(r, Collective::kAllreduce, 16, 1 << 20), "rabenseifner");
  EXPECT_EQ(Choose(r, Collective::kAllreduce, 200, 1024), "nonoverlapping");
  EXPECT_EQ(Choose(r, Collective::kAllreduce, 5000, 20000), "recursive_doubling");
  // Bcast: 16..31 ranks k-nomial below 4 KiB, binomial below 1 MiB, then scatter-allgather.
  EXPECT_EQ(Choose(r, Collective::kBcast, 16, 8), "knomial");
  EXPECT_EQ(Choose(r, Collective::kBcast, 16, 65536), "binomial");
  EXPECT_EQ(Choose(r, Collective::kBcast, 16, 16 << 20), "scatter_allgather");
  EXPECT_EQ(Choose(r, Collective::kBcast, 64, 16 << 20), "knomial");
  EXPECT_EQ(Choose(r, Collective::kAllgather, 2, 8), "two_proc");
  EXPECT_EQ(Choose(r, Collective::kAllgather, 64, 1 << 20), "ring");
}

TEST(LibraryRulesTest, NonoverlappingIsReduceThenBcast) {
  absl::StatusOr<LibraryChoice> c =
      LibraryDefault(LibraryRules::kOpenMpi, Collective::kAllreduce, 200, 1024, 1, 0);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->phases.size(), 2u);
  EXPECT_EQ(c->phases[0].collective, Collective::kReduce);
  EXPECT_EQ(c->phases[1].collective, Collective::kBcast);
  for (const PatternSpec& s : c->phases) EXPECT_TRUE(ValidateSpec(s).ok());
}

TEST(LibraryRulesTest, MpichAndSmpiRules) {
  EXPECT_EQ(Choose(LibraryRules::kMpich, Collective::kAllreduce, 16, 8), "recursive_doubling");
  EXPECT_EQ(Choose(LibraryRules::kMpich, Collective::kAllreduce, 16, 1 << 20),
            "reduce_scatter_allgather");
  EXPECT_EQ(Choose(LibraryRules::kMpich, Collective::kBcast, 4, 1 << 20), "binomial");
  EXPECT_EQ(Choose(LibraryRules::kMpich, Collective::kBcast, 16, 1 << 16),
            "scatter_recursive_doubling_allgather");
  EXPECT_EQ(Choose(LibraryRules::kMpich, Collective::kBcast, 12, 1 << 16),
            "scatter_ring_allgather");
  EXPECT_EQ(Choose(LibraryRules::kMpich, Collective::kAllgather, 12, 16), "brucks");
  // SMPI 3.31+: Open MPI 4's tables (64..127 ranks: k-nomial bcast at every size).
  EXPECT_EQ(Choose(LibraryRules::kSmpiOmpi, Collective::kAllreduce, 64, 8192),
            "recursive_doubling");
  EXPECT_EQ(Choose(LibraryRules::kSmpiOmpi, Collective::kBcast, 64, 16 << 20), "knomial");
  EXPECT_EQ(Choose(LibraryRules::kSmpiOmpi, Collective::kAllreduce, 5000, 8192), "segmented_ring");
  EXPECT_EQ(LibraryDefault(LibraryRules::kSmpiOmpi, Collective::kAllreduce, 5000, 8192, 1, 0)
                ->phases[0]
                .segment_bytes,
            1 << 20);
  // Every choice is a valid schedule for sizes 1..300 and 1 B..64 MiB.
  for (LibraryRules r : {LibraryRules::kOpenMpi, LibraryRules::kMpich, LibraryRules::kSmpiOmpi}) {
    for (Collective c : {Collective::kAllreduce, Collective::kBcast, Collective::kAllgather}) {
      for (int p = 1; p <= 300; p += 7) {
        for (int64_t m = 1; m <= (64 << 20); m *= 4) {
          absl::StatusOr<LibraryChoice> choice = LibraryDefault(r, c, p, m, 1, p - 1);
          ASSERT_TRUE(choice.ok());
          ASSERT_FALSE(choice->phases.empty());
          for (const PatternSpec& s : choice->phases) {
            EXPECT_TRUE(ValidateSpec(s).ok()) << LibraryRulesName(r) << " " << choice->name;
          }
        }
      }
    }
  }
}

TEST(LibraryRulesTest, RefusesWhatItDoesNotModel) {
  EXPECT_FALSE(LibraryDefault(LibraryRules::kOpenMpi, Collective::kReduce, 4, 8, 1, 0).ok());
  EXPECT_FALSE(LibraryDefault(LibraryRules::kOpenMpi, Collective::kBcast, 0, 8, 1, 0).ok());
  EXPECT_TRUE(ParseLibraryRules("mpich").ok());
  EXPECT_FALSE(ParseLibraryRules("lam").ok());
}

}  // namespace
}  // namespace toporr::mapping
