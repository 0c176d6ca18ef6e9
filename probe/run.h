// toporr-probe's measurement over a communicator: every pair of ranks in the rounds of
// schedule.h (all at once within a round, a barrier between rounds), then the noisy pairs
// again, then everything gathered on rank 0.
//
// Collective over `comm`: every rank calls RunProbe with the same options. Rank 0 decides
// (and broadcasts before each round) whether to go on and how many repetitions to take, so no
// two ranks disagree:
//   - time budget: when the rounds so far, extrapolated to all rounds, would exceed
//     `time_budget_s`, the repetitions of the remaining rounds shrink in proportion (never
//     below kMinRepetitions); when even that runs out of time the probe stops after the
//     round that crossed the budget, and the pairs of the rounds not run stay unmeasured
//     (said on stderr and in the result's schedule.rounds).
//   - noisy pairs: after the rounds, pairs whose spread (plogp_measure.h) exceeds
//     `noisy_spread` are measured again, packed into rounds of disjoint pairs, up to
//     `remeasure_passes` times; a new measurement replaces the old one when its spread is
//     smaller, and the pair's `remeasured` count says how often it was measured again.
//   - progress: rank 0 writes "toporr-probe: round r/R ..." to `progress` (nullptr: none),
//     rewriting one line on a terminal, otherwise a line per 10 % of the rounds.
// The result on rank 0 has ranks, hosts, sizes, repetitions, pairs and schedule filled; levels
// are left to analysis.h. Other ranks get an empty probe. Host names are
// MPI_Get_processor_name cut at the first '.' (or `host_names`); cores are sched_getcpu()
// at the start.
#ifndef TOPORR_PROBE_RUN_H_
#define TOPORR_PROBE_RUN_H_

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "collectors/plogp.h"

namespace toporr::probe {

inline constexpr int kMinRepetitions = 3;

struct ProbeOptions {
  std::vector<int64_t> sizes = {0, 65536};  // ascending
  int repetitions = 9;
  double time_budget_s = 0;  // 0: no budget
  double noisy_spread = 0.05;
  int remeasure_passes = 1;
  FILE* progress = stderr;
  // One pair per round (N (N - 1) / 2 rounds): the all-pairs serial probe, for comparing
  // the cost of the schedule (bench/smpi/run_probe_bench.sh).
  bool serial = false;
  // Testing seam: when not empty, rank r is on host host_names[r % size] instead of its
  // processor name (several "hosts" on one machine).
  std::vector<std::string> host_names;
};

collectors::PlogpProbe RunProbe(MPI_Comm comm, const ProbeOptions& options);

}  // namespace toporr::probe

#endif  // TOPORR_PROBE_RUN_H_
