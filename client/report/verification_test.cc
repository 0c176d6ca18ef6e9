#include "client/report/verification.h"

#include "gtest/gtest.h"

namespace toporr::client {
namespace {

using Path = Verification::Path;
using Verdict = Verification::Verdict;

// Runs the measured calls with `toporr` and `library` as the paths' times; returns the paths
// taken in order.
std::vector<Path> Measure(Verification* v, const std::vector<double>& toporr,
                          const std::vector<double>& library) {
  std::vector<Path> taken;
  size_t t = 0, l = 0;
  for (int guard = 0; v->measuring() && guard < 100; ++guard) {
    const Path p = v->Next();
    taken.push_back(p);
    v->Record(p == Path::kToporr ? toporr.at(t++) : library.at(l++));
  }
  return taken;
}

TEST(VerificationTest, AlternatesToporrFirstThenKeepsTheFasterPath) {
  Verification v(3);
  std::vector<Path> taken = Measure(&v, {0.5, 0.1, 0.1}, {0.2, 0.2, 0.2});
  EXPECT_EQ(taken, (std::vector<Path>{Path::kToporr, Path::kLibrary, Path::kToporr, Path::kLibrary,
                                      Path::kToporr, Path::kLibrary}));
  EXPECT_EQ(v.verdict(),
            Verdict::kToporr);  // median 0.1 < 0.2: the slow first call does not decide
  EXPECT_DOUBLE_EQ(v.toporr_median_s(), 0.1);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(v.Next(), Path::kToporr);
}

TEST(VerificationTest, KeepsTheLibraryWhenToporrIsSlowerOrEqual) {
  Verification slower(2);
  Measure(&slower, {0.3, 0.3}, {0.2, 0.25});
  EXPECT_EQ(slower.verdict(), Verdict::kLibrary);
  EXPECT_EQ(slower.Next(), Path::kLibrary);
  Verification tie(1);
  Measure(&tie, {0.2}, {0.2});
  EXPECT_EQ(tie.verdict(), Verdict::kLibrary);
}

TEST(VerificationTest, RecordSaysWhichCallCompletedTheMeasurement) {
  Verification v(2);
  EXPECT_FALSE(v.Record(1));
  EXPECT_FALSE(v.Record(1));
  EXPECT_FALSE(v.Record(1));
  EXPECT_TRUE(v.Record(2));
  EXPECT_FALSE(v.Record(3));  // after the verdict: nothing is recorded
  EXPECT_EQ(v.toporr_s().size(), 2u);
  EXPECT_EQ(v.library_s().size(), 2u);
}

TEST(VerificationTest, ZeroCallsMeansNoVerification) {
  Verification v(0);
  EXPECT_FALSE(v.measuring());
  EXPECT_EQ(v.Next(), Path::kToporr);
  EXPECT_EQ(v.verdict(), Verdict::kToporr);
}

}  // namespace
}  // namespace toporr::client
