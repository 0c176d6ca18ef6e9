// toporr-probe: measures PLogP parameters between every pair of ranks and writes probe.json
// (collectors/plogp.h; probe/README.md). Run one rank per host for the fabric's levels, several
// per host for the levels inside hosts:
//
//   mpirun -np N --map-by node toporr-probe --out probe.json
//
// Options: --out FILE (default probe.json), --sizes 0,65536 (bytes, ascending),
// --repetitions 9, --time-budget SECONDS (0 = none), --noisy 0.05 (spread above which a pair
// is measured again), --remeasure 1 (passes), --resolution 0.005 (measured_levels.h),
// --no-pairs (leave the pairs out of the file: levels only), --quiet (no progress),
// --host-names A,B,... (testing: rank r is on host r mod k of the list, several "hosts" on one
// machine), --serial (one pair at a time: the all-pairs serial probe, for comparison).
// Exit status 0 on success, 2 on bad options, 1 when the file cannot be written.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "collectors/plogp.h"
#include "probe/analysis.h"
#include "probe/run.h"
#ifdef TOPORR_PROBE_HWLOC  // real MPI only, see probe/hwloc_ranks.h
#include "probe/hwloc_ranks.h"
#endif

namespace {

bool ParseSizes(const char* text, std::vector<int64_t>* sizes) {
  sizes->clear();
  const char* p = text;
  while (*p) {
    char* end = nullptr;
    const long long v = std::strtoll(p, &end, 10);
    if (end == p || v < 0 || v > (1ll << 30)) return false;
    if (!sizes->empty() && v <= sizes->back()) return false;
    sizes->push_back(v);
    p = end;
    if (*p == ',')
      ++p;
    else if (*p)
      return false;
  }
  return !sizes->empty();
}

int Usage(int rank, const char* what) {
  if (rank == 0) {
    std::fprintf(stderr,
                 "toporr-probe: %s\nusage: toporr-probe [--out FILE] [--sizes B,B,...] "
                 "[--repetitions N] [--time-budget S] [--noisy F] [--remeasure N] "
                 "[--resolution F] [--host-names A,B,...] [--serial] [--no-pairs] [--quiet]\n",
                 what);
  }
  MPI_Finalize();
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  toporr::probe::ProbeOptions options;
  toporr::mapping::MeasuredLevelOptions levels;
  std::string out = "probe.json";
  bool keep_pairs = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (arg == "--out" && (v = value())) {
      out = v;
    } else if (arg == "--sizes" && (v = value())) {
      if (!ParseSizes(v, &options.sizes)) return Usage(rank, "bad --sizes");
    } else if (arg == "--repetitions" && (v = value())) {
      options.repetitions = std::atoi(v);
      if (options.repetitions < 1) return Usage(rank, "--repetitions must be >= 1");
    } else if (arg == "--time-budget" && (v = value())) {
      options.time_budget_s = std::atof(v);
    } else if (arg == "--noisy" && (v = value())) {
      options.noisy_spread = std::atof(v);
    } else if (arg == "--remeasure" && (v = value())) {
      options.remeasure_passes = std::atoi(v);
    } else if (arg == "--resolution" && (v = value())) {
      levels.resolution = std::atof(v);
    } else if (arg == "--host-names" && (v = value())) {
      options.host_names.clear();
      for (const char* p = v; *p;) {
        const char* comma = std::strchr(p, ',');
        options.host_names.emplace_back(p, comma ? comma - p : std::strlen(p));
        p = comma ? comma + 1 : p + std::strlen(p);
      }
    } else if (arg == "--serial") {
      options.serial = true;
    } else if (arg == "--no-pairs") {
      keep_pairs = false;
    } else if (arg == "--quiet") {
      options.progress = nullptr;
    } else {
      return Usage(rank, ("unknown or incomplete option " + arg).c_str());
    }
  }
  toporr::collectors::PlogpProbe probe = toporr::probe::RunProbe(MPI_COMM_WORLD, options);
#ifdef TOPORR_PROBE_HWLOC
  const absl::Status located = toporr::probe::LocateRanks(MPI_COMM_WORLD, &probe);
#endif
  int status = 0;
  if (rank == 0) {
    absl::Status analyzed = toporr::probe::AnalyzeProbe(&probe, levels);
    if (!analyzed.ok()) {
      std::fprintf(stderr, "toporr-probe: %s\n", std::string(analyzed.message()).c_str());
      status = 1;
    } else {
#ifdef TOPORR_PROBE_HWLOC
      probe.hwloc_check = toporr::probe::HwlocVerdict(probe, located);
#endif
      if (!keep_pairs) probe.pairs.clear();
      std::ofstream file(out);
      toporr::collectors::WritePlogpProbe(probe, &file);
      file.close();
      if (!file) {
        std::fprintf(stderr, "toporr-probe: cannot write %s\n", out.c_str());
        status = 1;
      } else {
        std::string names;
        for (const auto& l : probe.host_levels)
          names += " " + l.name + "(" + std::to_string(l.num_groups) + ")";
        std::string rank_names;
        for (const auto& l : probe.rank_levels)
          rank_names += " " + l.name + "(" + std::to_string(l.num_groups) + ")";
        std::string hwloc;
        if (probe.hwloc_check.has_value()) {
          hwloc = "; hwloc: " + probe.hwloc_check->verdict + " (" + probe.hwloc_check->detail + ")";
        }
        std::fprintf(stderr,
                     "toporr-probe: %zu ranks on %zu hosts, %lld rounds, %lld messages, %.2f s; "
                     "rank levels:%s; host levels:%s%s; wrote %s\n",
                     probe.ranks.size(), probe.hosts.size(),
                     static_cast<long long>(probe.schedule.rounds),
                     static_cast<long long>(probe.schedule.messages), probe.schedule.elapsed_s,
                     rank_names.c_str(), names.c_str(), hwloc.c_str(), out.c_str());
      }
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
