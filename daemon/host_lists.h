// Registered host lists (RegisterHostList): a job's columns named once by a token, so that
// the job's node leaders ask for their cost rows with 32 hex digits instead of every name.
//
// A list is held with its names, their column indexes resolved against a snapshot, and,
// once a compact row is asked for, its compact matrix with equal rows stored once
// (mapping::CompactRowSet: one row per leaf group, ~6 MB for 10,000 hosts on 320 leaves),
// so that serving a row is a copy of n bytes. Both are computed once per (list, snapshot)
// however many leaders ask at once, and again after the snapshot changes.
//
// Bounds, fair between the peers that register (a peer: a uid on the Unix socket, a client
// certificate's common name or an address over TCP; see daemon/peer_book.h):
//   - a peer holds at most `max_lists_per_peer` lists. Its next registration lets its own
//     least recently used list go if no one has used that list for `min_hold`; else it is
//     refused with kResourceExhausted (counted in refused_peer_quota()). A flood from one
//     peer thus ends in refusals and never evicts another peer's list;
//   - at most `max_lists` lists are held in all: beyond, the peer holding the most lists
//     (ties: the one whose list was used least recently) lets its least recently used go;
//   - a list registered by several peers counts for each and stays while one still holds it.
// The compact rows of the least recently used lists are dropped (and rebuilt when asked
// for) beyond `max_row_bytes` (default 256 MiB) in all. Memory only: after a restart every
// token is unknown and clients register again. Thread-safe.
#ifndef TOPORR_DAEMON_HOST_LISTS_H_
#define TOPORR_DAEMON_HOST_LISTS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/fabric_state.h"
#include "google/protobuf/repeated_field.h"
#include "mapping/costs/host_costs.h"

namespace toporr::daemon {

// A list's names resolved against one snapshot. Immutable.
struct ResolvedHostList {
  int64_t snapshot_id = 0;
  // kNotFound when a name is not in the snapshot (the fabric changed since registration).
  absl::Status status;
  std::vector<int> hosts;          // indices into the snapshot's hosts, in list order
  std::vector<int32_t> column_of;  // per host of the snapshot: its column, -1 when unlisted
};

// A list's compact matrix for one snapshot. Immutable.
struct CompactHostListRows {
  int64_t snapshot_id = 0;
  // kOutOfRange when the list's costs do not fit the compact form (then sent as arrays).
  absl::Status status;
  mapping::CompactRowSet rows;
};

struct HostListsOptions {
  size_t max_lists = 256;
  // toporrd.conf max_host_lists_per_peer.
  size_t max_lists_per_peer = 32;
  // A list used (registered, or a row asked for by token) this recently is never let go to
  // make room for its own peer's next list: a job's list outlives its owner's flood.
  absl::Duration min_hold = absl::Seconds(60);
  size_t max_row_bytes = size_t{256} << 20;
  // The clock of min_hold; absl::Now when empty (tests inject one).
  std::function<absl::Time()> now;
};

class HostLists {
 public:
  explicit HostLists(HostListsOptions options = {}) : options_(std::move(options)) {}

  using Names = google::protobuf::RepeatedPtrField<std::string>;

  // The token of `names`: lower-case hex of the first 128 bits of SHA-256 over the names,
  // each preceded by its length (so no two lists share an encoding).
  static std::string Token(const Names& names);

  // Resolves `names` against `s` and holds the list under Token(names), which is returned,
  // on behalf of `peer` (who registers: the unit of the per-peer bound). kInvalidArgument
  // for an empty list or a name listed twice; kNotFound naming the first unknown name and
  // how many are unknown; kResourceExhausted naming max_host_lists_per_peer when `peer`
  // holds its bound of lists, all used within min_hold.
  absl::StatusOr<std::string> Register(const Names& names, const Serving& s,
                                       const std::string& peer);

  // What a GetCostRow by token needs, for snapshot `s`.
  struct View {
    std::shared_ptr<const ResolvedHostList> list;     // status ok
    std::shared_ptr<const CompactHostListRows> rows;  // null unless asked for
  };
  // The list `token` resolved against `s` (again when it was resolved against another
  // snapshot) and, with `want_rows`, its compact rows. kFailedPrecondition when the token is
  // not held; the list's kNotFound when one of its names is not in `s`.
  absl::StatusOr<View> Find(const std::string& token, const Serving& s, bool want_rows);

  // Lists held.
  size_t size() const;
  // Lists `peer` holds.
  size_t held_by(const std::string& peer) const;
  // Registrations refused because their peer held its bound of lists in use.
  int64_t refused_peer_quota() const;

 private:
  struct Entry {
    std::string token;
    std::vector<std::string> names;
    // Serialises resolving and row building for this list, so that the leaders of a job
    // asking at once wait for one computation instead of each doing it.
    std::mutex build_mu;
    // Guarded by HostLists::mu_ (a member lock cannot name it).
    std::shared_ptr<const ResolvedHostList> list;
    std::shared_ptr<const CompactHostListRows> rows;
    bool held = true;                 // false once evicted
    std::vector<std::string> owners;  // the peers holding it (registered it, not let go)
    absl::Time last_used;
  };
  using Lru = std::list<std::shared_ptr<Entry>>;  // most recently used first

  absl::Time Now() const { return options_.now ? options_.now() : absl::Now(); }
  // Moves `it` to the front of lru_ as used at `now`.
  void Touch(Lru::iterator it, absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Before `peer` takes one more list: at its bound, lets its least recently used list go,
  // or refuses when that one was used within min_hold.
  absl::Status MakeRoomFor(const std::string& peer, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // `peer` lets `entry` go; the list is dropped once no peer holds it.
  void Disown(std::shared_ptr<Entry> entry, const std::string& peer)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Beyond max_lists, the peers holding the most lists let their least recently used go
  // (never `keep`).
  void EnforceMaxLists(const Entry* keep) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  static std::shared_ptr<const ResolvedHostList> Resolve(const std::vector<std::string>& names,
                                                         const Serving& s);
  // Stores what `entry` was built for `s` (unless the entry already holds a newer
  // snapshot's) and drops cold rows beyond max_row_bytes.
  void Store(Entry& entry, std::shared_ptr<const ResolvedHostList> list,
             std::shared_ptr<const CompactHostListRows> rows) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropRows(Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const HostListsOptions options_;
  mutable std::mutex mu_;
  Lru lru_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Lru::iterator> by_token_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, size_t> held_by_peer_ ABSL_GUARDED_BY(mu_);
  size_t row_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t refused_peer_quota_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_HOST_LISTS_H_
