// The durable snapshot store: every version of the fabric the daemon has
// ingested, in one SQLite file (schema: db/schema.h).
//
// Contract:
//   - A snapshot is immutable. Ingest() writes a COMPLETE new snapshot
//   (snapshot row, nodes,
//     ports, links, hosts, host->CA membership, anonymous endpoints), applies
//     retention, and points `current` at it, all in ONE transaction. Any error
//     rolls the whole transaction back: the current snapshot and every stored
//     row stay as they were. A process killed at any point leaves either the
//     old or the new current snapshot, never a partial one.
//   - Ingesting content whose FabricContentHash() equals the CURRENT snapshot's
//   hash writes
//     nothing and returns the current snapshot with `created == false`.
//     (Content equal to an older, non-current snapshot makes a new snapshot:
//     the fabric changed back.)
//   - Retention: after an ingest that creates a snapshot, at most
//   `keep_snapshots` remain,
//     the oldest (smallest id) are deleted first, and the current one is never
//     deleted. Lowering keep_snapshots takes effect at the next creating
//     ingest.
//   - Snapshot ids increase strictly and are never reused (AUTOINCREMENT), so
//   an id served to
//     clients always names the same content.
//
// Durability: WAL journal with `synchronous=FULL`. Ingests are rare (minutes
// apart) and large, so the one extra fsync of the WAL per commit is
// unmeasurable next to the writes, while it guarantees that an acknowledged
// ingest survives power loss; with NORMAL the last commits could vanish after a
// power cut and a snapshot id already handed to clients could then be reissued
// for different content. Foreign keys are enforced.
//
// Concurrency: Store is thread-safe; one mutex serialises all use of its
// connection (the daemon ingests from one thread and reads at startup, so
// contention is not a concern). Other processes (ops staff running sqlite3) may
// read the file concurrently; WAL lets them read while the daemon writes. A
// writer from another process that holds the lock longer than `busy_timeout_ms`
// makes Ingest fail with kUnavailable ("<path>: database is locked").
//
// Errors: kNotFound for a missing snapshot; kFailedPrecondition for a file
// whose schema is newer than this binary; kInvalidArgument for a malformed
// Fabric or bad options; kUnavailable (locked, read-only, disk full, cannot
// open) / kDataLoss (corrupt file or rows that do not form a valid fabric) /
// kInternal (anything else) carry the SQLite message and the file path.
#ifndef TOPORR_DB_STORE_H_
#define TOPORR_DB_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "db/content_hash.h"
#include "fabric/fabric.h"
#include "fabric/forwarding_tables.h"

namespace toporr::db {

class Connection;
struct IngestStatements;

struct SnapshotInfo {
  int64_t id = 0;
  int64_t created_unix_ms = 0;  // milliseconds since the Unix epoch, from StoreOptions clock
  std::string source_kind;      // what produced it, e.g. "ibnetdiscover", "libibnetdisc"
  std::string source_name;      // e.g. the input file name
  std::string content_hash;     // FabricContentHash(), 64 hex digits
  int64_t num_switches = 0, num_cas = 0, num_routers = 0, num_aggregation = 0, num_links = 0,
          num_hosts = 0, num_anonymous = 0;
  // Switches with a linear forwarding table; 0 when the snapshot has no routes.
  int64_t num_forwarding_tables = 0;
};

// The named points at which `StoreOptions::crash_point` kills the process, in
// the order an ingest passes them:
//   "after_begin"      transaction open, nothing written
//   "after_snapshot"   snapshot row written
//   "after_nodes"      nodes written
//   "after_ports"      ports written
//   "after_links"      links written
//   "after_hosts"      hosts, host_cas and anonymous endpoints written
//   "after_current"    `current` points at the new snapshot (not yet committed)
//   "after_retention"  old snapshots deleted
//   "before_commit"    everything written, COMMIT not yet issued
//   "after_commit"     committed (the new snapshot is current and durable)
const std::vector<std::string>& IngestCrashPoints();

struct StoreOptions {
  std::string path;                      // file path, or ":memory:"
  int keep_snapshots = 20;               // >= 1
  std::function<int64_t()> now_unix_ms;  // default (empty): the system clock
  int busy_timeout_ms = 5000;            // how long to wait for another process's lock
  // Tests only (the daemon sets it from $TOPORR_TEST_CRASH_POINT): one of
  // IngestCrashPoints(); Ingest() then calls raise(SIGKILL) at that point.
  // Empty: never. An unknown name makes Open() fail with kInvalidArgument, so a
  // typo cannot silently disable a crash test.
  std::string crash_point;
  // One database, one writer process: take an exclusive lock on PATH.lock (created beside
  // the file, holding the holder's pid) for the Store's life; Open fails with
  // kFailedPrecondition naming the holder's pid when another process holds it. toporrd sets
  // it; tests that open one file twice in a process do not.
  bool exclusive = false;
};

struct IngestResult {
  SnapshotInfo snapshot;  // the current snapshot after the call
  bool created = false;   // false: content equalled the current snapshot, nothing written
};

class Store {
 public:
  // Opens or creates the database, sets WAL/synchronous/foreign keys and
  // migrates the schema (see db/schema.h). kFailedPrecondition when the file's
  // schema is newer than this binary's, or (exclusive) when another process holds the lock.
  // The file's identity (device and inode) is recorded: an Ingest finds the file removed or
  // replaced under the Store and refuses with kFailedPrecondition (the snapshots already read
  // stay served; a restart opens the file now at the path).
  static absl::StatusOr<std::unique_ptr<Store>> Open(StoreOptions options);
  ~Store();

  // Validates `fabric` (kInvalidArgument with what is wrong: out-of-range
  // indices, a port's `link` that disagrees with `links`, a CA's `host` that
  // disagrees with `hosts[].cas`, duplicate GUIDs, unsorted ports) and stores
  // it as the new current snapshot unless its content equals the current one.
  // See the contract above.
  absl::StatusOr<IngestResult> Ingest(const fabric::Fabric& fabric, const std::string& source_kind,
                                      const std::string& source_name);
  // The same, with the switches' forwarding tables (routes) stored alongside;
  // `tables` may be null (no routes). They enter the content hash
  // (SnapshotContentHash), so new routes over an unchanged fabric make a new
  // snapshot.
  absl::StatusOr<IngestResult> Ingest(const fabric::Fabric& fabric,
                                      const fabric::ForwardingTables* tables,
                                      const std::string& source_kind,
                                      const std::string& source_name);

  // The current snapshot, or nullopt for an empty store.
  absl::StatusOr<std::optional<SnapshotInfo>> Current();

  // All stored snapshots, newest (highest id) first.
  absl::StatusOr<std::vector<SnapshotInfo>> ListSnapshots();

  // Rebuilds the Fabric of a snapshot exactly as it was ingested (same indices,
  // same order, GUID index rebuilt). kNotFound if no such snapshot.
  absl::StatusOr<fabric::Fabric> LoadFabric(int64_t snapshot_id);

  // The forwarding tables stored with a snapshot, or nullopt when it has none.
  // kNotFound if no such snapshot.
  absl::StatusOr<std::optional<fabric::ForwardingTables>> LoadForwardingTables(int64_t snapshot_id);

 private:
  Store(StoreOptions options, std::unique_ptr<Connection> db);

  absl::StatusOr<std::optional<SnapshotInfo>> CurrentLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<SnapshotInfo> WriteSnapshot(const fabric::Fabric& fabric,
                                             const fabric::ForwardingTables* tables,
                                             SnapshotInfo info) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ApplyRetention(int64_t current_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void MaybeCrash(const char* point) const;
  // OK while the file at the path is the one opened; see Open.
  absl::Status CheckFileIdentity() const;

  const StoreOptions options_;
  int lock_fd_ = -1;       // exclusive: the lock file, held open
  uint64_t file_dev_ = 0;  // the opened file's identity (0, 0: none, ":memory:")
  uint64_t file_ino_ = 0;
  absl::Mutex mu_;
  std::unique_ptr<Connection> db_ ABSL_GUARDED_BY(mu_);
  // Prepared once at the first ingest and reused by every later one.
  std::unique_ptr<IngestStatements> ingest_ ABSL_GUARDED_BY(mu_);
};

}  // namespace toporr::db

#endif  // TOPORR_DB_STORE_H_
