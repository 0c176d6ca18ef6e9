// Times libtoporr's real collectives against the MPI library's own, inside SimGrid SMPI.
//
//   toporr_collective_time --collective allreduce|bcast|allgather --sizes B1,B2,...
//                          --modes MODE,MODE,... [--iters K] [--warmups N] [--print-hosts]
//
// Built by bench/smpi/build_libtoporr_smpi.sh together with the library's sources (so every
// simulated rank has its own Library, decision cache and keyvals) and run under `smpirun`
// with TOPORR_COSTS (the file cost source), TOPORR_HOSTMAP (simulated ranks all see the
// machine's own host name) and TOPORR_REPORT (the decisions, checked by the caller).
//
// Modes, each timed at every size:
//   mpi          MPI_Allreduce / MPI_Bcast / MPI_Allgather on MPI_COMM_WORLD in launch order:
//                the MPI library's default (SMPI's collective selector, e.g.
//                smpi/coll-selector:ompi)
//   auto         toporr_allreduce / toporr_bcast / toporr_allgather (client/toporr.h) with
//                TOPORR_ALG_AUTO: toporr's selection of algorithm and order
//   NAME         the same call forcing the algorithm NAME (mapping/schedules/pattern.h names,
//   through
//                the C API's algorithm argument); a NAME that is no such algorithm is
//                forced by the library itself when TOPORR_ALGORITHM=NAME is set (the call
//                then passes TOPORR_ALG_AUTO: the multi-level version)
//   candidates   every algorithm the latest `auto` decision chose among (its TOPORR_REPORT
//                candidates), each forced in turn; needs `auto` listed before it. A mode is
//                timed once even when listed again.
//   scotch       the baseline of a general-purpose mapper: MPI_Allreduce / MPI_Bcast (the MPI
//                default) on MPI_COMM_WORLD reordered by Scotch (mapping::EmbedScotch: a
//                tree-leaf target from the same cost file and host map) for the
//                communication graph of what the library runs at that size
//                (mapping::LibraryDefault with SMPI's ompi rules, every phase's edges).
//   NAME@launch  toporr's own implementation of NAME (client/mpi/coll/) called
//                directly on MPI_COMM_WORLD: the algorithm on the launch order, with no
//                decision and no reordering (bcast: binomial, binary_tree, knomial,
//                scatter_allgather; allreduce: ring, recursive_doubling, rabenseifner;
//                allgather: ring, recursive_doubling) — what
//                NAME forced gains from toporr's order is NAME / NAME@launch.
// Any other NAME is reported as
//   skip collective=C mode=NAME reason="..."
// and not timed. Whether a forced decision really chose NAME is checked by the caller in the
// report (bench/smpi/collectives_report.py).
//
// Timing: for toporr modes the first call of a size class makes the decision (collective:
// host names, cost rows, planning on rank 0, MPI_Comm_split); it is a warm-up and not timed.
// The mpi mode gets the same warm-up. `--warmups N` (default 1) makes that N back-to-back
// warm-up calls, for every mode: with TOPORR_VERIFY=1 and N = 1 + 2 x TOPORR_VERIFY_CALLS the
// run-time check of `auto` decisions (client/report/verification.h) completes in them and the timed
// calls run what its verdict kept. Given explicitly, each cell is preceded by
//   warmup collective=C mode=M bytes=B calls=N us=T
// with T = latest end - earliest start of the N warm-up calls together (the decision, the
// check's calls and its reductions included). Then every rank starts after a barrier and
//   cell collective=C mode=M bytes=B iters=K us=T
// gives T = (latest end - earliest start) / K in simulated microseconds (MPI_Wtime is
// SimGrid's clock). Three barriers before the start: one barrier's exit skew depends on what
// came before it (a toporr decision or an MPI_Allreduce), enough to make a small call time
// differently in two runs of the same MPI_Allreduce (toporr's library call and the mpi
// mode); after three they time alike to the nanosecond. (Several
// timed calls would hide the skew too, but back-to-back bcasts pipeline.) Allreduce is in
// place, and so is allgather (MPI_IN_PLACE: each rank's block already at its place in the
// receive buffer); an allgather size is the block of one rank (MPI's sendcount), its receive
// buffer the job's size times that. Payloads come from SMPI_SHARED_MALLOC and the reduction
// operator is a commutative do-nothing MPI_Op (only communication is simulated; the sum's real
// arithmetic would cost minutes of wall time at 256 ranks x 64 MiB and is not timed anyway).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/costs/cost_file.h"
#include "client/mpi/coll/allgather.h"
#include "client/mpi/coll/allreduce.h"
#include "client/mpi/coll/bcast.h"
#include "client/plan/job_layout.h"
#include "client/plan/launch_files.h"
#include "client/toporr.h"
#include "common/status_macros.h"
#include "mapping/costs/distance.h"
#include "mapping/embedding/graph_embed.h"
#include "mapping/prediction/library_rules.h"
#include "mapping/schedules/pattern.h"

namespace {

struct Args {
  std::string collective;
  std::vector<long long> sizes;
  std::vector<std::string> modes;
  int iters = 1;
  int warmups = 1;
  bool time_warmups = false;  // --warmups given: print the warm-up calls' total
  bool print_hosts = false;
};

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

bool ParseArgs(int argc, char** argv, Args* args, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--print-hosts") {
      args->print_hosts = true;
      continue;
    }
    const char* v = value();
    if (v == nullptr) {
      *error = a + " needs a value";
      return false;
    }
    if (a == "--collective") {
      args->collective = v;
    } else if (a == "--modes") {
      args->modes = Split(v);
    } else if (a == "--sizes" || a == "--iters" || a == "--warmups") {
      for (const std::string& item : Split(v)) {
        char* end = nullptr;
        const long long n = std::strtoll(item.c_str(), &end, 10);
        if (*end != '\0' || n < 1) {
          *error = a + ": `" + item + "` is not a positive number";
          return false;
        }
        if (a == "--iters") {
          args->iters = static_cast<int>(n);
        } else if (a == "--warmups") {
          args->warmups = static_cast<int>(n);
          args->time_warmups = true;
        } else if (n % 8 != 0) {
          *error = "--sizes: " + item + " is not a multiple of 8 (the payload is doubles)";
          return false;
        } else {
          args->sizes.push_back(n);
        }
      }
    } else {
      *error = "unknown argument " + a;
      return false;
    }
  }
  if (args->collective != "allreduce" && args->collective != "bcast" &&
      args->collective != "allgather") {
    *error = "--collective must be allreduce, bcast or allgather";
    return false;
  }
  if (args->sizes.empty() || args->modes.empty()) {
    *error = "--sizes and --modes are required";
    return false;
  }
  return true;
}

void KeepData(void*, void*, int*, MPI_Datatype*) {}

void PrintHosts(int rank, int size) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> all(rank == 0 ? static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME : 1);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
             0, MPI_COMM_WORLD);
  if (rank != 0) return;
  for (int r = 0; r < size; ++r) {
    std::printf("rank %d %s\n", r, &all[static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
  }
}

// The algorithm names of the "candidates" array of the last decision line of `report` (rank
// 0's TOPORR_REPORT), in first-seen order; empty when there is none.
std::vector<std::string> LastCandidates(const std::string& report) {
  std::ifstream in(report);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  std::vector<std::string> names;
  const size_t begin = last.find("\"candidates\":[");
  if (begin == std::string::npos) return names;
  const size_t end = last.find(']', begin);
  const std::string key = "\"algorithm\":\"";
  for (size_t at = last.find(key, begin); at != std::string::npos && at < end;
       at = last.find(key, at + 1)) {
    const size_t from = at + key.size();
    const std::string name = last.substr(from, last.find('"', from) - from);
    bool seen = false;
    for (const std::string& n : names) seen = seen || n == name;
    if (!seen) names.push_back(name);
  }
  return names;
}

// Broadcasts rank 0's list of names.
std::vector<std::string> BcastNames(std::vector<std::string> names) {
  std::string joined;
  for (const std::string& n : names) joined += n + ",";
  int len = static_cast<int>(joined.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  joined.resize(len);
  MPI_Bcast(joined.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  return Split(joined);
}

// toporr_algorithm of a mapping/schedules/pattern.h name: the C API numbers mapping::Algorithm in
// declaration order from 1 (client/mpi/c_api.cc). A name that is no mapping::Algorithm (the
// multi-level version) can only be forced through the library's environment: when
// TOPORR_ALGORITHM names it, the call passes TOPORR_ALG_AUTO and the library forces it.
// Empty reason: ok.
std::string AlgorithmOf(const std::string& name, toporr_algorithm* out) {
  const char* env = std::getenv("TOPORR_ALGORITHM");
  if (name == "auto" || (env != nullptr && name == env)) {
    *out = TOPORR_ALG_AUTO;
    return "";
  }
  absl::StatusOr<toporr::mapping::Algorithm> a = toporr::mapping::ParseAlgorithm(name);
  if (!a.ok()) {
    return std::string(a.status().message()) +
           " (not an algorithm argument of the C API; TOPORR_ALGORITHM=" + name +
           " forces it where the library has it)";
  }
  *out = static_cast<toporr_algorithm>(static_cast<int>(*a) + 1);
  return "";
}

// Scotch's order for the library's own algorithm at `bytes` (rank 0): new rank i = old rank
// order[i]. The job's hosts and costs are those libtoporr reads (TOPORR_COSTS, TOPORR_HOSTMAP).
absl::StatusOr<std::vector<int32_t>> ScotchOrder(const Args& args, long long bytes, int size) {
  namespace m = toporr::mapping;
  const char* costs_path = std::getenv("TOPORR_COSTS");
  const char* hostmap_path = std::getenv("TOPORR_HOSTMAP");
  if (costs_path == nullptr || hostmap_path == nullptr) {
    return absl::FailedPreconditionError("scotch needs TOPORR_COSTS and TOPORR_HOSTMAP");
  }
  std::ifstream in(costs_path, std::ios::binary);
  std::stringstream bytes_in;
  bytes_in << in.rdbuf();
  ASSIGN_OR_RETURN(toporr::client::CostFile file,
                   toporr::client::DecodeCostFile(bytes_in.str(), costs_path));
  const int n = static_cast<int>(file.hosts.size());
  std::vector<float> rows(2 * static_cast<size_t>(n) * n);
  std::vector<const float*> views(n);
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      rows[2 * static_cast<size_t>(a) * n + b] = file.costs.latency_ns[a * n + b];
      rows[2 * static_cast<size_t>(a) * n + n + b] = file.costs.bottleneck_gbps[a * n + b];
    }
    views[a] = rows.data() + 2 * static_cast<size_t>(a) * n;
  }
  toporr::client::RowCostMatrix costs(n, views);
  toporr::client::JobHosts hosts;
  hosts.names = file.hosts;
  hosts.slots.assign(n, 64);
  std::ifstream map_in(hostmap_path);
  std::stringstream map_text;
  map_text << map_in.rdbuf();
  ASSIGN_OR_RETURN(m::Placement placement,
                   toporr::client::ExplicitPlacement(hosts, map_text.str(), hostmap_path));
  if (placement.size() != size) {
    return absl::InvalidArgumentError("TOPORR_HOSTMAP does not list one host per rank");
  }
  ASSIGN_OR_RETURN(m::RankDistance distance, m::RankDistance::Create(placement, costs));
  const m::Collective collective = args.collective == "allreduce" ? m::Collective::kAllreduce
                                   : args.collective == "bcast"   ? m::Collective::kBcast
                                                                  : m::Collective::kAllgather;
  ASSIGN_OR_RETURN(m::LibraryChoice choice,
                   m::LibraryDefault(m::LibraryRules::kSmpiOmpi, collective, size,
                                     std::max(1LL, bytes / 8), 8, 0));
  m::CommGraph graph;
  graph.num_ranks = size;
  for (const m::PatternSpec& phase : choice.phases) {
    ASSIGN_OR_RETURN(std::vector<m::WeightedEdge> edges, m::CommunicationGraph(phase));
    for (const m::WeightedEdge& e : edges) graph.edges.push_back({e.src, e.dst, e.bytes});
  }
  ASSIGN_OR_RETURN(m::Mapping mapping, m::EmbedScotch(distance, graph));
  return std::vector<int32_t>(mapping.begin(), mapping.end());
}

// MPI_COMM_WORLD reordered by Scotch for `bytes` (collective; MPI_COMM_NULL on failure, said
// on rank 0).
MPI_Comm ScotchComm(const Args& args, long long bytes, int rank, int size) {
  std::vector<int32_t> order(size, -1);
  if (rank == 0) {
    absl::StatusOr<std::vector<int32_t>> o = ScotchOrder(args, bytes, size);
    if (o.ok()) {
      order = *o;
    } else {
      std::fprintf(stderr, "toporr_collective_time: scotch: %s\n",
                   std::string(o.status().message()).c_str());
    }
  }
  MPI_Bcast(order.data(), size, MPI_INT32_T, 0, MPI_COMM_WORLD);
  if (order[0] < 0) return MPI_COMM_NULL;
  int key = 0;
  for (int i = 0; i < size; ++i) key = order[i] == rank ? i : key;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, 0, key, &comm);
  return comm;
}

// The launch-order modes: toporr's implementations of the algorithms, on MPI_COMM_WORLD.
bool LaunchOrderAlgorithm(const std::string& collective, const std::string& name) {
  if (collective == "bcast") {
    return name == "binomial" || name == "binary_tree" || name == "knomial" ||
           name == "scatter_allgather";
  }
  if (collective == "allgather") return name == "ring" || name == "recursive_doubling";
  return name == "ring" || name == "recursive_doubling" || name == "rabenseifner";
}

int RunOnLaunchOrder(const std::string& collective, const std::string& name, void* buffer,
                     int count, MPI_Op op) {
  namespace coll = toporr::client::mpi::coll;
  MPI_Comm w = MPI_COMM_WORLD;
  if (collective == "bcast") {
    if (name == "binomial") return coll::BcastBinomial(buffer, count, MPI_DOUBLE, 0, w);
    if (name == "binary_tree") return coll::BcastBinaryTree(buffer, count, MPI_DOUBLE, 0, w);
    if (name == "knomial") return coll::BcastKnomial(buffer, count, MPI_DOUBLE, 0, w, 4);
    return coll::BcastScatterAllgather(buffer, count, MPI_DOUBLE, 0, w);
  }
  if (collective == "allgather") {
    if (name == "ring") {
      return coll::AllgatherRing(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buffer, count, MPI_DOUBLE, w,
                                 nullptr);
    }
    return coll::AllgatherRecursiveDoubling(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buffer, count,
                                            MPI_DOUBLE, w, nullptr);
  }
  if (name == "ring") return coll::AllreduceRing(MPI_IN_PLACE, buffer, count, MPI_DOUBLE, op, w);
  if (name == "rabenseifner") {
    return coll::AllreduceRabenseifner(MPI_IN_PLACE, buffer, count, MPI_DOUBLE, op, w);
  }
  return coll::AllreduceRecursiveDoubling(MPI_IN_PLACE, buffer, count, MPI_DOUBLE, op, w);
}

// Allreduce runs in place (one buffer per rank: the send buffer would only add a local copy,
// free in simulated time, and as much mapped memory again).
// `comm`: where the MPI default runs (MPI_COMM_WORLD, or Scotch's order for `scotch`).
int RunOnce(const Args& args, const std::string& mode, toporr_algorithm algorithm, void* buffer,
            int count, MPI_Op op, MPI_Comm comm) {
  if (args.collective == "allgather") {
    if (mode == "scotch" || mode == "mpi") {
      return MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buffer, count, MPI_DOUBLE, comm);
    }
    if (mode.find("@launch") == std::string::npos) {
      return toporr_allgather(nullptr, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buffer, count,
                              MPI_DOUBLE, MPI_COMM_WORLD, algorithm);
    }
  }
  if (mode == "scotch") {
    return args.collective == "allreduce"
               ? MPI_Allreduce(MPI_IN_PLACE, buffer, count, MPI_DOUBLE, op, comm)
               : MPI_Bcast(buffer, count, MPI_DOUBLE, 0, comm);
  }
  if (const size_t at = mode.find("@launch"); at != std::string::npos) {
    return RunOnLaunchOrder(args.collective, mode.substr(0, at), buffer, count, op);
  }
  if (args.collective == "allreduce") {
    if (mode == "mpi") {
      return MPI_Allreduce(MPI_IN_PLACE, buffer, count, MPI_DOUBLE, op, MPI_COMM_WORLD);
    }
    return toporr_allreduce(nullptr, MPI_IN_PLACE, buffer, count, MPI_DOUBLE, op, MPI_COMM_WORLD,
                            algorithm);
  }
  if (mode == "mpi") return MPI_Bcast(buffer, count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return toporr_bcast(nullptr, buffer, count, MPI_DOUBLE, 0, MPI_COMM_WORLD, algorithm);
}

// Times `mode` at `bytes`; returns false (after printing why on rank 0) when the call failed.
bool TimeCell(const Args& args, const std::string& mode, toporr_algorithm algorithm,
              long long bytes, void* buffer, MPI_Op op, int rank) {
  const int count = static_cast<int>(bytes / 8);
  const int iters = args.iters;
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm = MPI_COMM_WORLD;
  if (mode == "scotch") {
    comm = ScotchComm(args, bytes, rank, size);
    if (comm == MPI_COMM_NULL) return false;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  // Warm-up: the decision (and, with verification, its check).
  const double warmup_start = MPI_Wtime();
  int rc = RunOnce(args, mode, algorithm, buffer, count, op, comm);
  for (int i = 1; i < args.warmups && rc == MPI_SUCCESS; ++i) {
    rc = RunOnce(args, mode, algorithm, buffer, count, op, comm);
  }
  if (args.time_warmups) {
    const double warmup_end = MPI_Wtime();
    double first = 0, last = 0;
    MPI_Reduce(&warmup_start, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&warmup_end, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      std::printf("warmup collective=%s mode=%s bytes=%lld calls=%d us=%.3f\n",
                  args.collective.c_str(), mode.c_str(), bytes, args.warmups, (last - first) * 1e6);
    }
  }
  for (int b = 0; b < 3; ++b) MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < iters && rc == MPI_SUCCESS; ++i) {
    rc = RunOnce(args, mode, algorithm, buffer, count, op, comm);
  }
  const double end = MPI_Wtime();
  int ok = rc == MPI_SUCCESS, all_ok = 0;
  double first_start = 0, last_end = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Reduce(&start, &first_start, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&end, &last_end, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
  if (rank == 0) {
    if (!all_ok) {
      std::fprintf(stderr, "toporr_collective_time: %s mode %s at %lld B failed (MPI error)\n",
                   args.collective.c_str(), mode.c_str(), bytes);
    } else {
      std::printf("cell collective=%s mode=%s bytes=%lld iters=%d us=%.3f\n",
                  args.collective.c_str(), mode.c_str(), bytes, iters,
                  (last_end - first_start) / iters * 1e6);
      std::fflush(stdout);
    }
  }
  return all_ok != 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Args args;
  std::string error;
  if (!ParseArgs(argc, argv, &args, &error)) {
    if (rank == 0) {
      std::fprintf(stderr,
                   "toporr_collective_time: %s\nusage: toporr_collective_time --collective "
                   "allreduce|bcast|allgather --sizes B,... --modes mpi,auto,candidates,NAME,... "
                   "[--iters K] [--warmups N] [--print-hosts]\n",
                   error.c_str());
    }
    MPI_Finalize();
    return 2;
  }
  // SMPI 3.32 keeps MPI_COMM_WORLD's error handler per rank in an array that the first
  // MPI_Comm_set_errhandler on it creates with null entries: a rank that never set its own
  // then gets MPI_ERRHANDLER_NULL from MPI_Comm_get_errhandler, and toporr's restoring of
  // the handler it saved (MPI_Comm_set_errhandler) fails. Every rank sets the MPI default
  // explicitly before any toporr call.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Barrier(MPI_COMM_WORLD);
  if (args.print_hosts) PrintHosts(rank, size);
  const char* report = std::getenv("TOPORR_REPORT");

  long long max_bytes = 0;
  for (long long s : args.sizes) max_bytes = s > max_bytes ? s : max_bytes;
  if (args.collective == "allgather") max_bytes *= size;  // every rank's block
  void* buffer = SMPI_SHARED_MALLOC(max_bytes);
  MPI_Op keep_data = MPI_OP_NULL;
  MPI_Op_create(&KeepData, /*commute=*/1, &keep_data);

  int status = 0;
  std::vector<std::string> modes;
  for (size_t m = 0; m < args.modes.size() && status == 0; ++m) {
    const std::string& mode = args.modes[m];
    std::vector<std::string> expanded = {mode};
    if (mode == "candidates") {
      // The last report line is the `auto` decision at the last size timed.
      expanded = BcastNames(rank == 0 && report != nullptr ? LastCandidates(report)
                                                           : std::vector<std::string>{});
      if (expanded.empty()) {
        if (rank == 0) {
          std::fprintf(stderr,
                       "toporr_collective_time: `candidates` needs TOPORR_REPORT and an `auto` "
                       "mode before it whose decision listed candidates\n");
        }
        status = 1;
      }
    }
    for (const std::string& name : expanded) {
      bool timed = false;  // `candidates` may list a mode already given
      for (const std::string& t : modes) timed = timed || t == name;
      if (timed) continue;
      modes.push_back(name);
      toporr_algorithm algorithm = TOPORR_ALG_AUTO;
      if (const size_t at = name.find("@launch"); at != std::string::npos) {
        if (!LaunchOrderAlgorithm(args.collective, name.substr(0, at))) {
          if (rank == 0) {
            std::printf("skip collective=%s mode=%s reason=\"no launch-order %s %s here\"\n",
                        args.collective.c_str(), name.c_str(), args.collective.c_str(),
                        name.substr(0, at).c_str());
          }
          continue;
        }
      } else if (name != "mpi" && name != "scotch") {
        const std::string why = AlgorithmOf(name, &algorithm);
        if (!why.empty()) {
          if (rank == 0) {
            std::printf("skip collective=%s mode=%s reason=\"%s\"\n", args.collective.c_str(),
                        name.c_str(), why.c_str());
          }
          continue;
        }
      }
      for (long long bytes : args.sizes) {
        if (!TimeCell(args, name, algorithm, bytes, buffer, keep_data, rank)) status = 1;
      }
    }
  }
  MPI_Op_free(&keep_data);
  SMPI_SHARED_FREE(buffer);
  MPI_Finalize();
  return status;
}
