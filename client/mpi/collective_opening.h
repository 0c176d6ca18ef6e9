// The opening every toporr collective shares (collective_api.h): whether toporr acts on one
// call (toporr on, host buffers, the same arguments on every rank, a decision from
// Library::CollectiveComm) and, when it does, the run-time check that picks toporr's path or
// the MPI library's call for it (client/report/verification.h).
#ifndef TOPORR_CLIENT_MPI_COLLECTIVE_OPENING_H_
#define TOPORR_CLIENT_MPI_COLLECTIVE_OPENING_H_

#include <mpi.h>

#include <cstdint>
#include <initializer_list>
#include <optional>

#include "client/mpi/collective_status.h"
#include "client/mpi/library.h"
#include "client/report/verification.h"
#include "mapping/schedules/pattern.h"

namespace toporr::client::mpi {

// One collective call as its entry function describes it to the opening.
struct Call {
  mapping::Collective collective = mapping::Collective::kAllreduce;
  std::optional<mapping::Algorithm> algorithm;  // the caller's (C API); nullopt: auto or
                                                // TOPORR_ALGORITHM
  bool has_multilevel = false;                  // TOPORR_ALGORITHM=multilevel applies
  int64_t bytes = 0;                            // per rank for allgather and gather
  int root = 0;
  int radix = 4;
  // What the argument check hashes besides the request: the count and datatype every rank
  // passes alike (MPI_DATATYPE_NULL: none, where only the bytes must agree).
  int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  // The call runs the MPI library's own algorithm whatever toporr decides (nonblocking and
  // persistent collectives): the decision is the order toporr_comm_reorder gives for the
  // collective (ReorderRequest::own_algorithms false), cached apart from the blocking
  // call's, and the argument check is made only when the call decides (a cache miss, which
  // synchronises the ranks anyway), so that a call answered from the cache starts without
  // communication.
  bool library_algorithm = false;
};

// The opening's Call for a call of `count` elements of `type` (per rank for allgather), or
// nullopt where the MPI library's own call runs untouched: an inter-communicator, a count of 0
// or less, a root that is not a rank (`root` >= 0: the call has one), and with an `op`
// (MPI_OP_NULL: none) a non-commutative one or TOPORR_REPRODUCIBLE. No communication.
std::optional<Call> Eligible(const Library& lib, mapping::Collective collective, MPI_Comm comm,
                             int count, MPI_Datatype type, MPI_Op op, int root);
// The root argument of Eligible for a collective without one.
constexpr int kNoRoot = -1;

// What toporr runs of a decision: its own algorithm on the reordered communicator, the
// multi-level version, any of those and the MPI library's call on the reordered
// communicator (collectives whose result does not depend on the ranks' order), or the MPI
// library's call on a communicator in an order other than the caller's.
enum class Runs { kAlgorithm, kMultilevel, kEither, kReordered };

// Sets InsideToporr() (collective_api.h) for its lifetime on this thread, unless toporr is
// disabled or already inside (the call is one of toporr's own steps): then owner() is false.
class InsideMark {
 public:
  explicit InsideMark(const Library& lib);
  ~InsideMark();
  InsideMark(const InsideMark&) = delete;
  InsideMark& operator=(const InsideMark&) = delete;
  bool owner() const { return owner_; }

 private:
  const bool owner_;
};

// The common opening of toporr's collectives. While it lives, MPI calls on this thread are
// toporr's own (InsideToporr). Where toporr is off (TOPORR_DISABLE) or already inside (the
// call is one of toporr's own steps), it marks nothing and Open is false: the caller runs
// the library's call as if toporr were not there.
class Opening {
 public:
  explicit Opening(Library& lib) : lib_(lib), mark_(lib) {}
  Opening(const Opening&) = delete;
  Opening& operator=(const Opening&) = delete;

  // Whether toporr runs its own path for `call` on `comm`: toporr on, host buffers on every
  // rank (buffers.h), the same arguments on every rank (Admit), and a decision (deciding on
  // a miss) whose choice is something of `runs`. False: the caller runs the MPI library's
  // own call on `comm`, on every rank alike.
  bool Open(MPI_Comm comm, const Call& call, std::initializer_list<const void*> buffers, Runs runs);

  const CollectiveRun& run() const { return run_; }

  // Whether the next Run measures (the decision's run-time check is timing its paths).
  bool Measuring() const { return run_.check != nullptr && run_.check->verification.measuring(); }

  // Runs toporr's path (`ours`) or the MPI library's own call (`library`) as the decision's
  // run-time check says (client/report/verification.h; no check: toporr's). A measured call starts
  // after a barrier, is timed on every rank and its slowest rank's time reduced over the
  // decision's communicator (which only toporr sends on), so that all ranks record the same
  // time. A measured call of toporr's path repeats the argument check inside its timed region
  // (its answer is known): the check is part of that path's cost in every call, and not of
  // the library's. Precondition: Open was true.
  template <typename Ours, typename Lib>
  int Run(Ours&& ours, Lib&& library) {
    DecisionCheck* check = run_.check;
    if (check == nullptr) return ours();
    Verification& v = check->verification;
    const bool toporrs = v.Next() == Verification::Path::kToporr;
    if (!v.measuring()) return toporrs ? ours() : library();
    PMPI_Barrier(run_.run_on);
    const double start = PMPI_Wtime();
    bool same = false;
    if (toporrs && args_.made) SameOnEveryRank(comm_, args_.call_hash, &same);
    const int rc = toporrs ? ours() : library();
    double local = PMPI_Wtime() - start, slowest = local;
    PMPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, run_.run_on);
    if (v.Record(slowest)) lib_.ReportCheck(comm_, *check);
    return rc;
  }

 private:
  // The argument check of one call (Admit): whether it was made, and what every rank passed.
  struct ArgumentCheck {
    bool made = false;
    uint64_t call_hash = 0;
  };

  // Whether toporr may run its own path for this call. No communication when the
  // communicator's cached decision runs the library's call anyway. Otherwise, with
  // check_arguments, every rank must have passed the same arguments (`call_hash`): one
  // 16-byte MPI_Allreduce on `comm` itself, so that a rank whose call went straight to the
  // MPI library (one below TOPORR_MIN_BYTES, say) meets it inside the library, which reports
  // the mismatch as it would without toporr. `only_deciding`: check only when the call
  // decides (Call::library_algorithm).
  static bool Admit(Library& lib, MPI_Comm comm, const ReorderRequest& request, uint64_t call_hash,
                    bool only_deciding, ArgumentCheck* args);

  Library& lib_;
  const InsideMark mark_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  ArgumentCheck args_;
  CollectiveRun run_;
};

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_COLLECTIVE_OPENING_H_
