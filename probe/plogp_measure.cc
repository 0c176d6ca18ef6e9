#include "probe/plogp_measure.h"

#include <algorithm>
#include <cmath>

#include "probe/stats.h"

namespace toporr::probe {
namespace {

constexpr double kNs = 1e9;

class Link {
 public:
  Link(MPI_Comm comm, int peer, std::vector<char>* buffer)
      : comm_(comm), peer_(peer), buf_(buffer->data()) {}
  void Send(int64_t bytes) {
    MPI_Send(buf_, static_cast<int>(bytes), MPI_BYTE, peer_, kProbeTag, comm_);
    ++messages_;
  }
  void Recv(int64_t bytes) {
    MPI_Recv(buf_, static_cast<int>(bytes), MPI_BYTE, peer_, kProbeTag, comm_, MPI_STATUS_IGNORE);
  }
  void Probe() { MPI_Probe(peer_, kProbeTag, comm_, MPI_STATUS_IGNORE); }
  int64_t messages() const { return messages_; }

 private:
  MPI_Comm comm_;
  int peer_;
  char* buf_;
  int64_t messages_ = 0;
};

}  // namespace

PairMeasurement MeasurePair(MPI_Comm comm, int peer, bool initiator,
                            const std::vector<int64_t>& sizes, int repetitions,
                            std::vector<char>* buffer) {
  PairMeasurement out;
  Link link(comm, peer, buffer);
  const int reps = std::max(1, repetitions);
  std::vector<double> rtt0_samples;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const int64_t m = sizes[k];
    std::vector<double> rtt, os, orr, gap;
    // Warm-up: connection set-up and first-touch costs stay out of the samples.
    if (initiator) {
      link.Send(m);
      link.Recv(m);
    } else {
      link.Recv(m);
      link.Send(m);
    }
    for (int i = 0; i < reps; ++i) {  // rtt(m)
      if (initiator) {
        const double t0 = MPI_Wtime();
        link.Send(m);
        link.Recv(m);
        rtt.push_back((MPI_Wtime() - t0) * kNs);
      } else {
        link.Recv(m);
        link.Send(m);
      }
    }
    for (int i = 0; i < reps; ++i) {  // o_s(m)
      if (initiator) {
        const double t0 = MPI_Wtime();
        link.Send(m);
        os.push_back((MPI_Wtime() - t0) * kNs);
        link.Recv(0);
      } else {
        link.Recv(m);
        link.Send(0);
      }
    }
    for (int i = 0; i < reps; ++i) {  // o_r(m), timed on the responder, then sent back
      if (initiator) {
        link.Send(m);
        link.Recv(0);
      } else {
        link.Probe();
        const double t0 = MPI_Wtime();
        link.Recv(m);
        orr.push_back((MPI_Wtime() - t0) * kNs);
        link.Send(0);
      }
    }
    const int bursts = reps / 2 + 1;
    for (int i = 0; i < bursts; ++i) {  // g(m)
      if (initiator) {
        const double t0 = MPI_Wtime();
        for (int j = 0; j < kBurst; ++j) link.Send(m);
        link.Recv(0);
        gap.push_back((MPI_Wtime() - t0) * kNs);
      } else {
        for (int j = 0; j < kBurst; ++j) link.Recv(m);
        link.Send(0);
      }
    }
    // The responder's o_r samples travel to the initiator with the result (one message).
    double or_median = RobustMedian(orr);
    if (initiator) {
      MPI_Recv(&or_median, 1, MPI_DOUBLE, peer, kProbeTag, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Send(&or_median, 1, MPI_DOUBLE, peer, kProbeTag, comm);
    }
    out.rtt_ns.push_back(RobustMedian(rtt));
    out.os_ns.push_back(RobustMedian(os));
    out.or_ns.push_back(or_median);
    if (k == 0) rtt0_samples = rtt;
    const double burst = RobustMedian(gap);
    out.gap_ns.push_back(std::max(0.0, (burst - out.rtt_ns[0]) / kBurst));
  }
  if (initiator && !sizes.empty()) {
    out.latency_ns = std::max(0.0, out.rtt_ns[0] / 2 - out.gap_ns[0]);
    const double med = out.rtt_ns[0];
    std::vector<double> dev;
    for (double s : rtt0_samples) dev.push_back(std::fabs(s - med));
    out.spread = med > 0 ? Median(dev) / med : 0;
  }
  out.messages = link.messages() + (initiator ? 0 : static_cast<int64_t>(sizes.size()));
  return out;
}

}  // namespace toporr::probe
