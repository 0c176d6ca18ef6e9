// The implementations of coll/own.h agree with the registry's `own` column: toporr runs an
// algorithm for a collective exactly where the registry says so (and selection offers it).
#include "client/mpi/coll/own.h"

#include "gtest/gtest.h"
#include "mapping/schedules/algorithms.h"

namespace toporr::client::mpi::coll {
namespace {

using mapping::Collective;

TEST(Own, ImplementationsAreTheRegistrysOwnColumn) {
  for (const mapping::AlgorithmInfo& row : mapping::kAlgorithms) {
    EXPECT_EQ(OwnAllreduce(row.algorithm) != nullptr, mapping::Has(row.own, Collective::kAllreduce))
        << row.name;
    EXPECT_EQ(OwnBcast(row.algorithm) != nullptr, mapping::Has(row.own, Collective::kBcast))
        << row.name;
    EXPECT_EQ(OwnAllgather(row.algorithm) != nullptr, mapping::Has(row.own, Collective::kAllgather))
        << row.name;
    // toporr runs gather and reduce as the multi-level version or the library's call only.
    EXPECT_FALSE(mapping::Has(row.own, Collective::kGather)) << row.name;
    EXPECT_FALSE(mapping::Has(row.own, Collective::kReduce)) << row.name;
  }
}

}  // namespace
}  // namespace toporr::client::mpi::coll
