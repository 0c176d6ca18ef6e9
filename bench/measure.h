// What every benchmark of bench/ needs besides Google Benchmark itself: the process's peak
// resident memory, the input read into memory, and the same-run baseline for text parsers
// (a bare line scan of the same buffer), so that figures are reported as ratios on a
// shared, noisy machine.
#ifndef TOPORR_BENCH_MEASURE_H_
#define TOPORR_BENCH_MEASURE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"

namespace toporr::bench {

// Peak resident set size of this process so far, in MB (getrusage ru_maxrss). It only grows:
// a benchmark's value covers everything that ran before it in the same process.
double PeakRssMb();
// Resident set size right now, in MB (/proc/self/statm); -1 when unreadable. Unlike the peak
// it drops when memory is returned, e.g. after an input text is freed.
double CurrentRssMb();

// The whole file, or exits the process with status 1 and a message naming `path` (benchmark
// inputs are command-line arguments; there is nothing to recover).
std::string ReadFileOrExit(const std::string& path);

// Baseline of text parsers: splits `text` into lines with memchr and adds up every byte
// (so every byte is loaded, as a parser must). Returns lines + checksum so the compiler
// cannot drop the work.
size_t LineScan(std::string_view text);

// The q-quantile (0 <= q <= 1) of the n values in [first, last): after sorting the range
// in place, the element at index floor(q * (n - 1)) (nearest rank, no interpolation, so
// p99 of 100 laps is the second slowest). 0 for an empty range.
double Percentile(double* first, double* last, double q);

// Times `make()` (returning absl::StatusOr<T>) once per benchmark lap. `prepare()` runs
// before each call with the timer paused (e.g. to copy an input `make` consumes), and each
// result is destroyed with the timer paused too, so a lap is the call alone. On an error the
// benchmark is skipped with its message. Returns the last result (for counters) or the error;
// callers that need neither discard it with (void).
template <typename Make, typename Prepare>
auto TimeEachLap(benchmark::State& state, Make make, Prepare prepare) -> decltype(make()) {
  decltype(make()) last = absl::UnknownError("no lap ran");
  for (auto _ : state) {
    state.PauseTiming();
    prepare();
    state.ResumeTiming();
    auto result = make();
    if (!result.ok()) {
      state.SkipWithError(result.status().ToString().c_str());
      return result;
    }
    state.PauseTiming();
    last = std::move(result);  // the previous lap's result is destroyed here
    state.ResumeTiming();
  }
  return last;
}
template <typename Make>
auto TimeEachLap(benchmark::State& state, Make make) -> decltype(make()) {
  return TimeEachLap(state, std::move(make), [] {});
}

}  // namespace toporr::bench

#endif  // TOPORR_BENCH_MEASURE_H_
