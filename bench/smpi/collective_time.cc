// Times one MPI collective on MPI_COMM_WORLD and prints the time per call.
//
//   collective_time --op allreduce|bcast --bytes N [--iters K] [--root R] [--print-hosts]
//
// Built with `smpicxx` and run under `smpirun`, MPI_Wtime is SimGrid's simulated clock, so the
// figure is deterministic for a given platform, hostfile and --cfg set; it also builds with
// Open MPI's mpicxx (then the time is wall-clock).
//
// The collective runs on MPI_COMM_WORLD in launch order: a reordering is applied by launching
// with a reordered hostfile (rank i on line i), exactly as `toporrctl plan --hostfile-out`
// intends, so the pattern of the collective runs over the new numbering.
//
// Output (rank 0, one line, key=value):
//   op=allreduce bytes=1048576 ranks=64 iters=3 time_per_call_s=1.234567e-04
// time_per_call_s = (latest end over all ranks - earliest start) / iters, where every rank
// starts after a barrier. With --print-hosts rank 0 first prints `rank <i> <host>` for every
// rank (MPI_Get_processor_name), so a caller can check that the placement was realised.
//
// Buffers: the payload content does not matter for timing, so under SMPI they come from
// SMPI_SHARED_MALLOC (one physical copy for all simulated ranks): 256 ranks x 16 MiB would
// otherwise need gigabytes of real memory and real copies.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Args {
  std::string op;
  long long bytes = -1;
  int iters = 3;
  int root = 0;
  bool print_hosts = false;
};

bool ParseArgs(int argc, char** argv, Args* args, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* what) -> const char* {
      if (i + 1 >= argc) {
        *error = a + " needs " + what;
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "--op") {
      const char* v = value("allreduce or bcast");
      if (v == nullptr) return false;
      args->op = v;
    } else if (a == "--bytes" || a == "--iters" || a == "--root") {
      const char* v = value("a number");
      if (v == nullptr) return false;
      char* end = nullptr;
      const long long n = std::strtoll(v, &end, 10);
      if (end == v || *end != '\0' || n < 0) {
        *error = a + ": `" + v + "` is not a non-negative number";
        return false;
      }
      if (a == "--bytes") args->bytes = n;
      if (a == "--iters") args->iters = static_cast<int>(n);
      if (a == "--root") args->root = static_cast<int>(n);
    } else if (a == "--print-hosts") {
      args->print_hosts = true;
    } else {
      *error = "unknown argument " + a;
      return false;
    }
  }
  if (args->op != "allreduce" && args->op != "bcast") {
    *error = "--op must be allreduce or bcast";
    return false;
  }
  if (args->bytes < 8 || args->bytes % 8 != 0) {
    *error = "--bytes must be a positive multiple of 8 (the payload is doubles)";
    return false;
  }
  if (args->iters < 1) {
    *error = "--iters must be >= 1";
    return false;
  }
  return true;
}

void* AllocPayload(size_t bytes) {
#ifdef SMPI_SHARED_MALLOC
  return SMPI_SHARED_MALLOC(bytes);
#else
  return std::calloc(bytes, 1);
#endif
}

void FreePayload(void* p) {
#ifdef SMPI_SHARED_FREE
  SMPI_SHARED_FREE(p);
#else
  std::free(p);
#endif
}

// The reduction's arithmetic is not what is measured (SMPI runs with
// smpi/simulate-computation:no, so compute is free in simulated time), but SMPI still performs
// it for real, which at 256 ranks x 16 MiB costs tens of seconds of wall time: the sum is
// replaced by an operator that leaves the data alone. Commutative, like MPI_SUM, so the MPI
// library chooses the same algorithms.
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

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  Args args;
  std::string error;
  if (!ParseArgs(argc, argv, &args, &error)) {
    if (rank == 0) {
      std::fprintf(stderr,
                   "collective_time: %s\nusage: collective_time --op allreduce|bcast --bytes N "
                   "[--iters K] [--root R] [--print-hosts]\n",
                   error.c_str());
    }
    MPI_Finalize();
    return 2;
  }
  if (args.root >= size) {
    if (rank == 0)
      std::fprintf(stderr, "collective_time: --root %d >= %d ranks\n", args.root, size);
    MPI_Finalize();
    return 2;
  }
  if (args.print_hosts) PrintHosts(rank, size);

  const size_t bytes = static_cast<size_t>(args.bytes);
  const int count = static_cast<int>(args.bytes / 8);
  void* send = AllocPayload(bytes);
  void* recv = AllocPayload(bytes);

  MPI_Op keep_data = MPI_OP_NULL;
  MPI_Op_create(&KeepData, /*commute=*/1, &keep_data);

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < args.iters; ++i) {
    if (args.op == "allreduce") {
      MPI_Allreduce(send, recv, count, MPI_DOUBLE, keep_data, MPI_COMM_WORLD);
    } else {
      MPI_Bcast(recv, count, MPI_DOUBLE, args.root, MPI_COMM_WORLD);
    }
  }
  const double end = MPI_Wtime();

  double first_start = 0;
  double last_end = 0;
  MPI_Reduce(&start, &first_start, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&end, &last_end, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("op=%s bytes=%lld ranks=%d iters=%d time_per_call_s=%.9e\n", args.op.c_str(),
                args.bytes, size, args.iters, (last_end - first_start) / args.iters);
  }
  MPI_Op_free(&keep_data);
  FreePayload(send);
  FreePayload(recv);
  MPI_Finalize();
  return 0;
}
