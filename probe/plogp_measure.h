// One PLogP measurement between two MPI ranks (Kielmann, Bal, Verstoep 2000: "Fast
// measurement of LogP parameters for message passing platforms"), run by BOTH ranks of a
// pair at the same time: the initiator (the smaller rank) drives, the responder answers.
//
// Per message size m, with `repetitions` samples each; samples more than 3 scaled MADs from
// the median are rejected and the MEDIAN of the rest is kept (stats.h RobustMedian: robust to
// the occasional descheduled or interfered sample):
//   rtt(m)  ping-pong: m bytes there, m bytes back, timed on the initiator.
//   o_s(m)  the time the initiator spends in MPI_Send(m); the responder acknowledges with 0
//           bytes before the next sample, so every sample starts idle.
//   o_r(m)  the time the responder spends in MPI_Recv(m) after MPI_Probe said the message
//           is there (what is left of receiving once it has arrived; for rendezvous sizes
//           the transfer itself); it acknowledges with 0 bytes.
//   g(m)    gap: a burst of kBurst back-to-back messages of m bytes, acknowledged with 0
//           bytes once all arrived: g(m) = (T_burst - rtt(smallest size)) / kBurst (>= 0).
// and L = rtt(m0) / 2 - g(m0) (>= 0) for the smallest size m0.
// `spread` is the median absolute deviation of the rtt(m0) samples over their median: the
// probe measures pairs again whose spread is large (noise, interference).
//
// Messages use tag kProbeTag on `comm`; the two ranks must call MeasurePair with the same
// arguments (sizes, repetitions). Not thread-safe (MPI).
#ifndef TOPORR_PROBE_PLOGP_MEASURE_H_
#define TOPORR_PROBE_PLOGP_MEASURE_H_

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace toporr::probe {

inline constexpr int kProbeTag = 0x7072;
inline constexpr int kBurst = 8;

struct PairMeasurement {
  std::vector<double> rtt_ns, gap_ns, os_ns, or_ns;  // per size
  double latency_ns = 0;
  double spread = 0;
  int64_t messages = 0;  // sent by both sides
};

// `buffer` holds at least the largest size. The result is meaningful on the initiator;
// the responder returns its o_r samples (or_ns) and message count.
PairMeasurement MeasurePair(MPI_Comm comm, int peer, bool initiator,
                            const std::vector<int64_t>& sizes, int repetitions,
                            std::vector<char>* buffer);

}  // namespace toporr::probe

#endif  // TOPORR_PROBE_PLOGP_MEASURE_H_
