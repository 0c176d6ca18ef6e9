#include "probe/run.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "probe/plogp_measure.h"
#include "probe/schedule.h"

namespace toporr::probe {

using collectors::PlogpPair;
using collectors::PlogpProbe;

namespace {

// One measured pair as doubles: a, b, latency, spread, messages, then 4 x sizes series.
constexpr int kHeader = 5;

void Pack(int a, int b, const PairMeasurement& m, std::vector<double>* out) {
  out->insert(out->end(), {static_cast<double>(a), static_cast<double>(b), m.latency_ns, m.spread,
                           static_cast<double>(m.messages)});
  for (const auto* v : {&m.rtt_ns, &m.gap_ns, &m.os_ns, &m.or_ns})
    out->insert(out->end(), v->begin(), v->end());
}

// Gathers every rank's packed pairs on rank 0.
std::vector<double> GatherPacked(MPI_Comm comm, const std::vector<double>& mine) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<double> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = total;
      total += counts[r];
    }
    all.resize(total);
  }
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE,
              0, comm);
  return all;
}

std::vector<PlogpPair> Unpack(const std::vector<double>& all, size_t num_sizes, int64_t* messages) {
  std::vector<PlogpPair> pairs;
  const size_t stride = kHeader + 4 * num_sizes;
  for (size_t i = 0; i + stride <= all.size(); i += stride) {
    PlogpPair p;
    p.a = static_cast<int>(all[i]);
    p.b = static_cast<int>(all[i + 1]);
    p.latency_ns = all[i + 2];
    p.spread = all[i + 3];
    *messages += static_cast<int64_t>(all[i + 4]);
    auto series = [&](int k) {
      const double* s = &all[i + kHeader + k * num_sizes];
      return std::vector<double>(s, s + num_sizes);
    };
    p.rtt_ns = series(0);
    p.gap_ns = series(1);
    p.os_ns = series(2);
    p.or_ns = series(3);
    pairs.push_back(std::move(p));
  }
  return pairs;
}

class Progress {
 public:
  Progress(FILE* out, int total) : out_(out), total_(total), tty_(out && isatty(fileno(out))) {}
  void Round(int done, double elapsed) {
    if (out_ == nullptr || total_ == 0) return;
    const int decile = done * 10 / total_;
    if (!tty_ && decile == last_decile_ && done != total_) return;
    last_decile_ = decile;
    const double left = done > 0 ? elapsed / done * (total_ - done) : 0;
    std::fprintf(out_, "%stoporr-probe: round %d/%d (%d%%), %.1f s elapsed, ~%.1f s left%s",
                 tty_ ? "\r" : "", done, total_, done * 100 / total_, elapsed, left,
                 tty_ ? (done == total_ ? "\n" : "") : "\n");
    std::fflush(out_);
  }

 private:
  FILE* out_;
  int total_;
  bool tty_;
  int last_decile_ = -1;
};

// Runs `rounds` (identical on every rank); returns this rank's packed results. Rank 0 may
// stop early (budget): `*rounds_run` says how many ran.
std::vector<double> RunRounds(MPI_Comm comm, const std::vector<Round>& rounds,
                              const ProbeOptions& o, bool budgeted, int* rounds_run,
                              Progress* progress, double start) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const int64_t largest = o.sizes.empty() ? 0 : o.sizes.back();
  std::vector<char> buffer(std::max<int64_t>(largest, 1));
  std::vector<double> mine;
  int reps = o.repetitions;
  *rounds_run = 0;
  for (size_t r = 0; r < rounds.size(); ++r) {
    MPI_Barrier(comm);
    // control[0]: go on (1) or stop; control[1]: repetitions for this round.
    int control[2] = {1, reps};
    if (rank == 0 && budgeted && o.time_budget_s > 0 && r > 0) {
      const double elapsed = MPI_Wtime() - start;
      const double per_round = elapsed / r;
      const double projected = elapsed + per_round * (rounds.size() - r);
      if (elapsed >= o.time_budget_s) {
        control[0] = 0;
      } else if (projected > o.time_budget_s && reps > kMinRepetitions) {
        const double scale = (o.time_budget_s - elapsed) / (projected - elapsed);
        reps = std::max(kMinRepetitions, static_cast<int>(reps * scale));
        control[1] = reps;
      }
    }
    MPI_Bcast(control, 2, MPI_INT, 0, comm);
    if (!control[0]) break;
    reps = control[1];
    for (const auto& [a, b] : rounds[r]) {
      if (rank != a && rank != b) continue;
      const bool initiator = rank == a;
      PairMeasurement m = MeasurePair(comm, initiator ? b : a, initiator, o.sizes, reps, &buffer);
      if (initiator) {
        Pack(a, b, m, &mine);
      } else {  // the responder's messages count too: an entry with no pair
        mine.insert(mine.end(), {-1.0, -1.0, 0, 0, static_cast<double>(m.messages)});
        mine.insert(mine.end(), 4 * o.sizes.size(), 0.0);
      }
    }
    ++*rounds_run;
    if (rank == 0 && progress != nullptr) progress->Round(*rounds_run, MPI_Wtime() - start);
  }
  MPI_Barrier(comm);
  return mine;
}

}  // namespace

PlogpProbe RunProbe(MPI_Comm comm, const ProbeOptions& o) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  PlogpProbe out;
  // Who is where.
  char name[MPI_MAX_PROCESSOR_NAME + 1] = {0};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  name[std::min(len, MPI_MAX_PROCESSOR_NAME)] = '\0';
  if (char* dot = std::strchr(name, '.')) *dot = '\0';
  if (!o.host_names.empty()) {
    std::snprintf(name, sizeof(name), "%s", o.host_names[rank % o.host_names.size()].c_str());
  }
  std::vector<char> names(rank == 0 ? static_cast<size_t>(size) * (MPI_MAX_PROCESSOR_NAME + 1) : 1);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME + 1, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME + 1,
             MPI_CHAR, 0, comm);
  int core = sched_getcpu();
  std::vector<int> cores(size);
  MPI_Gather(&core, 1, MPI_INT, cores.data(), 1, MPI_INT, 0, comm);

  const double start = MPI_Wtime();
  std::vector<Round> rounds = RoundRobinRounds(size);
  if (o.serial) {
    std::vector<Round> one_each;
    for (const Round& r : rounds)
      for (const RankPair& p : r) one_each.push_back({p});
    rounds = std::move(one_each);
  }
  Progress progress(rank == 0 ? o.progress : nullptr, static_cast<int>(rounds.size()));
  int rounds_run = 0;
  std::vector<double> all =
      GatherPacked(comm, RunRounds(comm, rounds, o, true, &rounds_run, &progress, start));
  int64_t messages = 0;
  std::map<std::pair<int, int>, PlogpPair> pairs;
  if (rank == 0) {
    for (auto& p : Unpack(all, o.sizes.size(), &messages))
      if (p.a >= 0) pairs[{p.a, p.b}] = std::move(p);
    if (rounds_run < static_cast<int>(rounds.size()) && o.progress != nullptr) {
      std::fprintf(o.progress,
                   "toporr-probe: time budget of %.1f s reached after %d of %zu rounds: %zu of "
                   "%d pairs measured\n",
                   o.time_budget_s, rounds_run, rounds.size(), pairs.size(), size * (size - 1) / 2);
    }
  }
  int64_t total_rounds = rounds_run;
  for (int pass = 0; pass < o.remeasure_passes; ++pass) {
    // Rank 0 picks the noisy pairs, noisiest first; everyone gets the list.
    std::vector<int> flat;
    if (rank == 0) {
      std::vector<std::pair<double, RankPair>> noisy;
      for (const auto& [key, p] : pairs)
        if (p.spread > o.noisy_spread) noisy.push_back({-p.spread, key});
      std::sort(noisy.begin(), noisy.end());
      for (const auto& [s, key] : noisy) flat.insert(flat.end(), {key.first, key.second});
    }
    int count = static_cast<int>(flat.size());
    MPI_Bcast(&count, 1, MPI_INT, 0, comm);
    if (count == 0) break;
    flat.resize(count);
    MPI_Bcast(flat.data(), count, MPI_INT, 0, comm);
    std::vector<RankPair> list;
    for (int i = 0; i + 1 < count; i += 2) list.push_back({flat[i], flat[i + 1]});
    const std::vector<Round> again = DisjointRounds(list, size);
    int run = 0;
    all = GatherPacked(comm, RunRounds(comm, again, o, false, &run, nullptr, start));
    total_rounds += run;
    if (rank == 0) {
      for (auto& p : Unpack(all, o.sizes.size(), &messages)) {
        if (p.a < 0) continue;
        PlogpPair& old = pairs[{p.a, p.b}];
        const int times = old.remeasured + 1;
        if (p.spread < old.spread) old = std::move(p);
        old.remeasured = times;
      }
      if (o.progress != nullptr) {
        std::fprintf(o.progress, "toporr-probe: measured %zu noisy pairs again (%d rounds)\n",
                     list.size(), run);
      }
    }
  }
  const double elapsed = MPI_Wtime() - start;
  if (rank != 0) return out;
  out.sizes = o.sizes;
  out.repetitions = o.repetitions;
  std::set<std::string> hosts;
  for (int r = 0; r < size; ++r) {
    out.ranks.push_back({std::string(&names[r * (MPI_MAX_PROCESSOR_NAME + 1)]), cores[r]});
    hosts.insert(out.ranks.back().host);
  }
  out.hosts.assign(hosts.begin(), hosts.end());
  for (auto& [key, p] : pairs) out.pairs.push_back(std::move(p));
  out.schedule.rounds = total_rounds;
  out.schedule.messages = messages;
  out.schedule.elapsed_s = elapsed;
  return out;
}

}  // namespace toporr::probe
