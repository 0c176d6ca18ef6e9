// A job's traffic profile (`TOPORR_PROFILE=FILE`): what each process sent to which other,
// counted by the PMPI layer (client/mpi/traffic_recorder.h) and written once by rank 0 of
// MPI_COMM_WORLD at MPI_Finalize, for `toporrctl plan --traffic` to embed on the fabric.
//
// The file (text, one record per line, fields separated by one space, '\n' line ends):
//
//   toporr-profile 1 ranks N
//   time RANK WALL_US MPI_US
//   p2p SRC DST BYTES MESSAGES
//   rma ORIGIN TARGET BYTES_TO_TARGET BYTES_FROM_TARGET OPERATIONS
//   comm ID SIZE MEMBERS
//   comm ID SIZE MEMBERS remote RSIZE RMEMBERS
//   coll ID NAME CALLS BYTES
//   end
//
// - The header comes first: the format version (1) and N, the size of MPI_COMM_WORLD. A
//   reader refuses any other version. Every rank below is an MPI_COMM_WORLD rank, 0..N-1.
// - `time`: how long RANK recorded, from its MPI_Init's return to its MPI_Finalize
//   (WALL_US microseconds), and how much of that it spent inside MPI calls that may wait for
//   another process (MPI_US): blocking sends and receives, probes, the completion calls
//   (MPI_Wait*, not MPI_Test*), blocking collectives (toporr's own included) and one-sided
//   synchronisation. Threads inside MPI at once each count, so MPI_US can exceed WALL_US
//   under MPI_THREAD_MULTIPLE. At most one per rank; optional (none with the client setting
//   profile_time = false).
// - `p2p`: point-to-point traffic from SRC to DST, counted at the sender when it posts the
//   send (blocking, non-blocking, persistent at each MPI_Start, the send half of sendrecv):
//   BYTES is the sum of count * the datatype's size, MESSAGES the number of sends. Only
//   pairs with at least one message appear (sparse), each pair at most once. A send to a
//   process outside MPI_COMM_WORLD (spawned, connected) is not counted.
// - `rma`: one-sided operations ORIGIN issued on a window at TARGET: BYTES_TO_TARGET is the
//   origin data of puts and accumulates, BYTES_FROM_TARGET the data gets (and the result
//   halves of get-accumulate, fetch-and-op, compare-and-swap) bring back, OPERATIONS the
//   number of calls. Each pair at most once.
// - `comm`: a communicator on which collectives ran: ID (0, 1, ... in file order), SIZE and
//   MEMBERS, the world ranks of communicator ranks 0..SIZE-1 in that order, written as
//   comma-separated items each `A` or `A-B` (the ascending run A, A+1, ..., B): `0-15`,
//   `0,4,8,12`, `3,0-2`. An inter-communicator also gives its remote group (the members seen
//   from the local group's rank 0). Communicators with the same members in the same order
//   (duplicates, the same split made again) are one `comm`.
// - `coll`: the collective NAME (ProfiledCollectiveName) on communicator ID, after that
//   communicator's `comm` line: CALLS calls, and BYTES the sum over those calls of the
//   call's message size as communicator rank 0 passed it:
//     bcast, reduce, allreduce, scan, exscan      count * size (the whole vector)
//     allgather, alltoall, reduce_scatter_block   recvcount * size (the per-rank block)
//     gather / scatter                            the per-rank block (recv / send side at the
//                                                 root, the other side elsewhere)
//     allgatherv, gatherv, scatterv, alltoallv,   the mean per-rank block of the counts
//     alltoallw, reduce_scatter                   array(s) (rounded down)
//     barrier                                     0
//   Non-blocking collectives (MPI_Iallreduce, ...) count as their blocking collective.
//   Only collectives with at least one call appear.
// - `end` is the last line: a file without it is truncated.
//
// All numbers are unsigned decimal (counts fit 64 bits). Blank lines and lines starting with
// `#` are ignored by ParseTrafficProfile; the writer emits neither. Line order is free except
// that the header is first, `end` last and a `coll` follows its `comm`; the writer emits, per
// world rank in order, that rank's `time` line, its `p2p` lines (by DST), its `rma` lines (by
// TARGET), then the `comm`/`coll` lines of the communicators whose rank 0 it is.
#ifndef TOPORR_CLIENT_PROFILE_TRAFFIC_PROFILE_H_
#define TOPORR_CLIENT_PROFILE_TRAFFIC_PROFILE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace toporr::client {

inline constexpr int kTrafficProfileVersion = 1;

// The collectives a profile counts, numbered as the PMPI layer's TOPORR_PROFILE_*
// (client/mpi/pmpi_abi.h).
enum class ProfiledCollective : int {
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kAllgather,
  kAllgatherv,
  kGather,
  kGatherv,
  kScatter,
  kScatterv,
  kAlltoall,
  kAlltoallv,
  kAlltoallw,
  kReduceScatter,
  kReduceScatterBlock,
  kScan,
  kExscan,
};
inline constexpr int kNumProfiledCollectives = 17;

// "barrier", "bcast", ..., "reduce_scatter_block", "scan", "exscan" (MPI's name in lower case).
std::string_view ProfiledCollectiveName(ProfiledCollective c);
std::optional<ProfiledCollective> ParseProfiledCollective(std::string_view name);

struct PeerTraffic {
  uint64_t bytes = 0;
  uint64_t messages = 0;
};

struct RmaTraffic {
  uint64_t bytes_to_target = 0;
  uint64_t bytes_from_target = 0;
  uint64_t operations = 0;
};

struct CollectiveTraffic {
  uint64_t calls = 0;
  uint64_t bytes = 0;
};

// One process's time (the `time` record).
struct RankTime {
  uint64_t wall_us = 0;
  uint64_t mpi_us = 0;
};

struct CommunicatorTraffic {
  std::vector<int> members;  // world ranks in communicator rank order
  std::vector<int> remote;   // an inter-communicator's remote group; empty otherwise
  std::array<CollectiveTraffic, kNumProfiledCollectives> collectives{};
};

// What one process counted. Memory is sparse: a hash map entry (about 25 bytes with the
// map's spare slots) per peer this process sent to, one per one-sided target, and per
// communicator it is rank 0 of, its member list. A process sending to every other of 1,024
// ranks holds about 50 KiB, of 16,384 ranks about 800 KiB; a halo exchange with 26 peers
// under 2 KiB whatever the job's size.
// Not thread-safe: the caller serialises (client/mpi/traffic_recorder.h).
class RankTraffic {
 public:
  // The counters of messages to `dest` (>= 0), created on first use. The pointer stays valid
  // until a destination is added; *added says whether this call added one.
  PeerTraffic* Peer(int dest, bool* added);
  void AddMessage(int dest, uint64_t bytes) {
    bool added;
    PeerTraffic* t = Peer(dest, &added);
    t->bytes += bytes;
    ++t->messages;
  }
  void AddRma(int target, uint64_t bytes_to_target, uint64_t bytes_from_target);
  void SetTime(RankTime t) { time_ = t; }
  // The counters of the communicator with these members (CommunicatorTraffic's meaning),
  // created on first use; the pointer stays valid for the life of this object.
  CollectiveTraffic* Collectives(const std::vector<int>& members, const std::vector<int>& remote);

  // This process's row for its way to rank 0 (AppendRankLines reads it): its time (no
  // `time` line when both are 0: not timed), peers by
  // rank, targets by rank, communicators by member list, collectives without calls left out.
  std::vector<uint64_t> Encode() const;

 private:
  RankTime time_;
  absl::flat_hash_map<int, PeerTraffic> peers_;
  absl::flat_hash_map<int, RmaTraffic> rma_;
  // Keyed by members, a -1, then the remote group (for an inter-communicator).
  absl::flat_hash_map<std::vector<int>, std::unique_ptr<CommunicatorTraffic>> communicators_;
};

// A whole profile as a reader sees it.
struct TrafficProfile {
  struct Pair {
    int src = 0;
    int dst = 0;
    PeerTraffic traffic;
  };
  struct RmaPair {
    int origin = 0;
    int target = 0;
    RmaTraffic traffic;
  };
  struct Time {
    int rank = 0;
    RankTime time;
  };
  int ranks = 0;
  std::vector<Time> times;  // the `time` records, in file order
  std::vector<Pair> p2p;
  std::vector<RmaPair> rma;
  std::vector<CommunicatorTraffic> communicators;  // index: the `comm` ID
};

// How much of the job's time its processes spent inside MPI (the `time` records): the mean,
// smallest and largest share over the ranks with a record (each share MPI_US / WALL_US, at
// most 1); nullopt when no rank has a record with WALL_US > 0.
struct MpiTimeShare {
  double mean = 0;
  double min = 0;
  double max = 0;
  int ranks = 0;  // the ranks counted
};
std::optional<MpiTimeShare> MpiShareOf(const TrafficProfile& profile);

// "toporr-profile 1 ranks N\n".
std::string TrafficProfileHeader(int ranks);
inline constexpr std::string_view kTrafficProfileEnd = "end\n";

// Appends to `*out` the lines of world rank `rank`'s row (RankTraffic::Encode) in a job of
// `ranks`, numbering its communicators from `*next_communicator_id` (advanced past them).
// kDataLoss naming the rank when the row does not have Encode's layout or names a rank
// outside 0..ranks-1; `*out` and `*next_communicator_id` are then unchanged.
absl::Status AppendRankLines(absl::Span<const uint64_t> row, int rank, int ranks,
                             int* next_communicator_id, std::string* out);

// The whole file for `profile` (header, records in the writer's order, end), e.g. for tests
// and tools that build a profile themselves.
std::string FormatTrafficProfile(const TrafficProfile& profile);

// kInvalidArgument "<file_name>:<line>: <what>" for a missing or malformed header, an
// unknown version ("version 2: this reader knows version 1"), an unknown line kind or
// collective name, a rank outside 0..N-1, a `time` given twice for a rank, a member list whose
// length is not its SIZE, a pair given twice, a `coll` before its `comm`, communicator IDs out of
// order, and a file without its `end` line ("truncated").
absl::StatusOr<TrafficProfile> ParseTrafficProfile(std::string_view text,
                                                   std::string_view file_name);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_PROFILE_TRAFFIC_PROFILE_H_
