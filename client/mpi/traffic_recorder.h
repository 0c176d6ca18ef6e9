// What the PMPI layer (pmpi_traffic.cc, pmpi.cc) records for `TOPORR_PROFILE=FILE`: per pair
// of MPI_COMM_WORLD ranks the bytes and messages of point-to-point and one-sided traffic,
// and per communicator the calls and bytes of each collective, written by rank 0 at
// MPI_Finalize in the format of client/profile/traffic_profile.h. The C entry points are in
// pmpi_abi.h ("The traffic profile").
//
// Ranks: a destination of any communicator is counted under its MPI_COMM_WORLD rank. The
// translation table of a communicator (its group, or an inter-communicator's remote group,
// through MPI_Group_translate_ranks once) and of a window is cached on it as an attribute
// whose delete callback drops it; a small table of the last handles used spares most calls
// the attribute lookup. MPI_COMM_WORLD needs none.
//
// Cost: with recording off, one branch (the interceptors test toporr_profile.enabled first).
// With it on, the commonest send (on MPI_COMM_WORLD or the last other communicator sent on,
// of the previous send's datatype, to one of the last destinations) is counted by the
// interceptor itself in a few instructions (pmpi_abi.h toporr_profile_state); any other
// costs a call here, the datatype's size (the
// last one's remembered until MPI_Type_free frees it), the table lookup (none for
// MPI_COMM_WORLD) and a hash map update; collectives, the first use of a communicator and
// MPI_Finalize cost more (bench/results/README.md has the measured ratio). Memory: RankTraffic's
// (sparse, by peer), plus per communicator or window used, a table of its size in 4-byte ranks, and
// per live persistent send request one map entry. At MPI_Finalize rank 0 asks for the rows 16
// processes at a time and writes each as it arrives, so it holds 16 rows, not the job's.
//
// Threads: under MPI_THREAD_MULTIPLE the counters are updated under a mutex (no MPI call is
// made while it is held); at lower levels MPI's own rules serialise the calls and no lock is
// taken. Collectives on one communicator are never concurrent (MPI forbids it).
//
// Failures never reach the job: an unwritable file, an error while gathering, a malformed
// row each cost one warning on rank 0 ("toporr: warning: traffic profile not written: FILE:
// why"), and a file is only renamed into place (from FILE.tmp) when complete.
#ifndef TOPORR_CLIENT_MPI_TRAFFIC_RECORDER_H_
#define TOPORR_CLIENT_MPI_TRAFFIC_RECORDER_H_

#include <mpi.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "client/profile/traffic_profile.h"

namespace toporr::client::mpi {

class TrafficRecorder {
 public:
  // The process's recorder, started after MPI_Init when `path` is not empty (else null).
  // Lives until the process ends.
  static TrafficRecorder* Start(const std::string& path);

  void Send(int dest, int count, MPI_Datatype type, MPI_Comm comm);
  void SendInit(int dest, int count, MPI_Datatype type, MPI_Comm comm, MPI_Request request);
  void StartRequests(int count, const MPI_Request requests[]);
  void RequestFree(MPI_Request request);
  void TypeFree(MPI_Datatype type);
  bool threads() const { return threads_; }
  void Rma(MPI_Win win, int target, uint64_t bytes_to_target, uint64_t bytes_from_target);
  // One call of `collective` (a ProfiledCollective) on `comm`, counted when this process
  // records that communicator's collectives (rank 0 of its group): `bytes(is_root, peers)`
  // is then asked for the call's message size, as pmpi_abi.h's toporr_profile_bytes_fn.
  void AddCollective(int collective, MPI_Comm comm, int root,
                     absl::FunctionRef<uint64_t(bool is_root, int peers)> bytes);
  // Gathers and writes (rank 0), collective over MPI_COMM_WORLD; once.
  void Finish();

  // The handle -> world rank table of a communicator or window (empty: identity).
  struct Translation {
    std::vector<int> world;
    bool inter = false;
    int peers = 0;                             // size of the group `world` maps
    CollectiveTraffic* collectives = nullptr;  // at rank 0 of the (local) group
  };
  // Called by the attributes' delete callbacks.
  void Forget(const Translation* t);

 private:
  TrafficRecorder(std::string path, int world_rank, int world_size, bool threads);

  // The last few handles of one kind and their tables.
  template <typename Handle>
  struct RecentHandles {
    static constexpr int kSlots = 8;
    Handle handle[kSlots];
    Translation* translation[kSlots] = {};
    static int Slot(Handle h);
    Translation* Find(Handle h) const;
  };

  // count elements of `type` in bytes, the last type's size remembered in toporr_profile
  // (single-threaded).
  uint64_t MessageBytes(int count, MPI_Datatype type);
  // One message to world rank `world`, with mu_ held; refreshes toporr_profile.recent.
  void CountMessageLocked(int world, uint64_t bytes);
  // The table of `h` (a communicator or window): from `recent`, else from its attribute
  // (get_attr(h, &value, &found)), else made by create(h) and cached on it.
  template <typename Handle, typename GetAttr, typename Create>
  Translation* CachedTranslation(Handle h, RecentHandles<Handle>* recent, GetAttr get_attr,
                                 Create create);
  Translation* CommTranslation(MPI_Comm comm);
  Translation* WinTranslation(MPI_Win win);
  Translation* NewCommTranslation(MPI_Comm comm);
  Translation* NewWinTranslation(MPI_Win win);
  std::vector<int> ToWorld(MPI_Group group) const;
  int WorldRank(const Translation& t, int rank) const;

  const std::string path_;
  const int world_rank_;
  const int world_size_;
  const bool threads_;  // MPI_THREAD_MULTIPLE: lock
  // When recording started: CLOCK_MONOTONIC nanoseconds, and toporr_profile_clock().
  const uint64_t start_ns_;
  const uint64_t start_ticks_;
  MPI_Group world_group_ = MPI_GROUP_NULL;
  int comm_keyval_ = MPI_KEYVAL_INVALID;
  int win_keyval_ = MPI_KEYVAL_INVALID;
  bool finished_ = false;

  std::mutex mu_;        // what follows, when threads_
  std::mutex setup_mu_;  // the first use of a handle, when threads_ (held across MPI calls)
  RankTraffic counters_;
  const Translation* inline_translation_ = nullptr;  // toporr_profile.comm's
  CollectiveTraffic* world_collectives_ = nullptr;   // rank 0
  RecentHandles<MPI_Comm> comms_;
  RecentHandles<MPI_Win> wins_;
  struct PendingSend {
    int world_dest;
    uint64_t bytes;
  };
  absl::flat_hash_map<MPI_Request, PendingSend> persistent_;
};

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_TRAFFIC_RECORDER_H_
