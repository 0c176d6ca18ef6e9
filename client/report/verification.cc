#include "client/report/verification.h"

#include <algorithm>

namespace toporr::client {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

Verification::Path Verification::Next() const {
  if (verdict_ == Verdict::kLibrary) return Path::kLibrary;
  if (verdict_ == Verdict::kToporr) return Path::kToporr;
  // Alternate, toporr's first: its first call also pays for building its communicators,
  // which the library's path never needs again; the median does not let one call decide.
  return toporr_s_.size() <= library_s_.size() ? Path::kToporr : Path::kLibrary;
}

bool Verification::Record(double slowest_s) {
  if (verdict_ != Verdict::kMeasuring) return false;
  (Next() == Path::kToporr ? toporr_s_ : library_s_).push_back(slowest_s);
  if (static_cast<int>(library_s_.size()) < calls_) return false;
  verdict_ = toporr_median_s() < library_median_s() ? Verdict::kToporr : Verdict::kLibrary;
  return true;
}

double Verification::toporr_median_s() const { return Median(toporr_s_); }
double Verification::library_median_s() const { return Median(library_s_); }

const char* Verification::VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kMeasuring:
      return "measuring";
    case Verdict::kToporr:
      return "toporr";
    case Verdict::kLibrary:
      return "mpi_library";
  }
  return "?";
}

}  // namespace toporr::client
