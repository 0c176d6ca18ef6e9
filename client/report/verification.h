// "Never slower", measured: the run-time check of one decision of toporr's collectives.
//
// When a cached decision (communicator, collective, algorithm, root, size class) would run
// something other than the MPI library's own call, its first 2 x `calls` calls alternate
// between toporr's path and the library's own call on the caller's communicator, toporr's
// first. Each measured call starts after a barrier (as OSU and IMB time a collective: without
// it each call inherits the exit skew of the reduction before it, which hides differences of
// latency-bound calls) and its time is the slowest rank's: every rank times its call (entry to
// return) and one 8-byte MPI_MAX reduction gives all ranks the same value, so all ranks reach
// the same verdict at the same call. After the last measured call the path with the lower
// median stays for the rest of the decision's life; a tie keeps the library's call.
//
// Cost, bounded: `calls` calls of each path (the library's are what the job would have run
// without toporr), one barrier before and one 8-byte reduction after each of the 2 x `calls`
// measured calls, and in toporr's measured calls a second 16-byte argument check (the one
// every call of toporr's path makes is timed with it; collective_api.cc).
// Then nothing. The clock and the reduction are the caller's (collective_api.cc); this class
// only decides, so that it is tested without MPI.
#ifndef TOPORR_CLIENT_REPORT_VERIFICATION_H_
#define TOPORR_CLIENT_REPORT_VERIFICATION_H_

#include <string>
#include <vector>

namespace toporr::client {

class Verification {
 public:
  enum class Path { kToporr, kLibrary };
  enum class Verdict { kMeasuring, kToporr, kLibrary };

  // `calls` measured calls of each path (>= 1); 0: no verification, toporr's path runs.
  explicit Verification(int calls) : calls_(calls) {
    if (calls_ <= 0) verdict_ = Verdict::kToporr;
  }

  // The path the next call takes, on every rank alike.
  Path Next() const;
  bool measuring() const { return verdict_ == Verdict::kMeasuring; }

  // The slowest rank's time of the call Next() chose, in seconds. Returns true when this call
  // completed the measurement (the verdict is then set).
  bool Record(double slowest_s);

  Verdict verdict() const { return verdict_; }
  const std::vector<double>& toporr_s() const { return toporr_s_; }
  const std::vector<double>& library_s() const { return library_s_; }
  // Median of each path's measured times (0 while none).
  double toporr_median_s() const;
  double library_median_s() const;

  static const char* VerdictName(Verdict v);

 private:
  int calls_;
  Verdict verdict_ = Verdict::kMeasuring;
  std::vector<double> toporr_s_, library_s_;
};

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_REPORT_VERIFICATION_H_
