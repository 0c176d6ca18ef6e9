// Registered host lists (RegisterHostList): a job's columns named once by a token, so that
// the job's node leaders ask for their cost rows with 32 hex digits instead of every name.
//
// A list is held with its names, their column indexes resolved against a snapshot, and,
// once a compact row is asked for, its compact matrix with equal rows stored once
// (mapping::CompactRowSet: one row per leaf group, ~6 MB for 10,000 hosts on 320 leaves),
// so that serving a row is a copy of n bytes. Both are computed once per (list, snapshot)
// however many leaders ask at once, and again after the snapshot changes.
//
// Bounds: the `max_lists` (default 256) most recently used lists are kept; the compact rows
// of the least recently used lists are dropped (and rebuilt when asked for) beyond
// `max_row_bytes` (default 256 MiB) in all. Memory only: after a restart every token is
// unknown and clients register again. Thread-safe.
#ifndef TOPORR_DAEMON_HOST_LISTS_H_
#define TOPORR_DAEMON_HOST_LISTS_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/fabric_state.h"
#include "google/protobuf/repeated_field.h"
#include "mapping/host_costs.h"

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
  size_t max_row_bytes = size_t{256} << 20;
};

class HostLists {
 public:
  explicit HostLists(HostListsOptions options = {}) : options_(options) {}

  using Names = google::protobuf::RepeatedPtrField<std::string>;

  // The token of `names`: lower-case hex of the first 128 bits of SHA-256 over the names,
  // each preceded by its length (so no two lists share an encoding).
  static std::string Token(const Names& names);

  // Resolves `names` against `s` and holds the list under Token(names), which is returned.
  // kInvalidArgument for an empty list or a name listed twice; kNotFound naming the first
  // unknown name and how many are unknown.
  absl::StatusOr<std::string> Register(const Names& names, const Serving& s);

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
    bool held = true;  // false once evicted
  };
  using Lru = std::list<std::shared_ptr<Entry>>;  // most recently used first

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
  size_t row_bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_HOST_LISTS_H_
