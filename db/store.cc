#include "db/store.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "db/fabric_rows.h"
#include "db/schema.h"
#include "db/sqlite.h"
#include "fabric/validate.h"

namespace toporr::db {

using fabric::Fabric;
using fabric::NodeType;

const std::vector<std::string>& IngestCrashPoints() {
  static const std::vector<std::string>* points = new std::vector<std::string>{
      "after_begin", "after_snapshot", "after_nodes",     "after_ports",   "after_links",
      "after_hosts", "after_current",  "after_retention", "before_commit", "after_commit"};
  return *points;
}

// The statements an ingest runs per row, prepared once per Store.
struct IngestStatements {
  Statement snapshot, current;
  std::unique_ptr<FabricRowStatements> rows;
};

namespace {

// The columns of `snapshots` after `id`, in table order, each with the SnapshotInfo field it
// holds (exactly one of int_field / text_field is set). The INSERT, the SELECTs, the binding
// and the reading of a snapshot row all follow this one list.
struct SnapshotColumn {
  const char* name;
  int64_t SnapshotInfo::*int_field;
  std::string SnapshotInfo::*text_field;
};
constexpr SnapshotColumn kSnapshotColumns[] = {
    {"created_unix_ms", &SnapshotInfo::created_unix_ms, nullptr},
    {"source_kind", nullptr, &SnapshotInfo::source_kind},
    {"source_name", nullptr, &SnapshotInfo::source_name},
    {"content_hash", nullptr, &SnapshotInfo::content_hash},
    {"num_switches", &SnapshotInfo::num_switches, nullptr},
    {"num_cas", &SnapshotInfo::num_cas, nullptr},
    {"num_routers", &SnapshotInfo::num_routers, nullptr},
    {"num_aggregation", &SnapshotInfo::num_aggregation, nullptr},
    {"num_links", &SnapshotInfo::num_links, nullptr},
    {"num_hosts", &SnapshotInfo::num_hosts, nullptr},
    {"num_anonymous", &SnapshotInfo::num_anonymous, nullptr},
    {"num_forwarding_tables", &SnapshotInfo::num_forwarding_tables, nullptr},
};

// "SELECT id, <columns> FROM snapshots <tail>"; rows are read by ReadSnapshotRow.
std::string SelectSnapshots(const std::string& tail) {
  std::string sql = "SELECT id";
  for (const SnapshotColumn& c : kSnapshotColumns) absl::StrAppend(&sql, ", ", c.name);
  return absl::StrCat(sql, " FROM snapshots ", tail);
}

// "INSERT INTO snapshots (<columns>) VALUES (?, ...)"; bound by BindSnapshotRow.
std::string InsertSnapshot() {
  std::string names, values;
  for (const SnapshotColumn& c : kSnapshotColumns) {
    absl::StrAppend(&names, names.empty() ? "" : ", ", c.name);
    absl::StrAppend(&values, values.empty() ? "?" : ",?");
  }
  return absl::StrCat("INSERT INTO snapshots (", names, ") VALUES (", values, ")");
}

Statement& BindSnapshotRow(Statement& s, const SnapshotInfo& info) {
  int index = 1;
  for (const SnapshotColumn& c : kSnapshotColumns) {
    if (c.int_field != nullptr) {
      s.BindInt(index++, info.*c.int_field);
    } else {
      s.BindText(index++, info.*c.text_field);
    }
  }
  return s;
}

SnapshotInfo ReadSnapshotRow(const Statement& s) {
  SnapshotInfo info;
  info.id = s.ColumnInt(0);
  int column = 1;
  for (const SnapshotColumn& c : kSnapshotColumns) {
    if (c.int_field != nullptr) {
      info.*c.int_field = s.ColumnInt(column++);
    } else {
      info.*c.text_field = s.ColumnText(column++);
    }
  }
  return info;
}

int64_t SystemNowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Runs `body` inside a transaction opened with `begin`; rolls back on any
// error.
template <typename Body>
absl::Status InTransaction(Connection& db, const char* begin, Body body) {
  RETURN_IF_ERROR(db.Exec(begin));
  absl::Status s = body();
  if (!s.ok()) {
    db.Exec("ROLLBACK").IgnoreError();
    return s;
  }
  s = db.Exec("COMMIT");
  if (!s.ok()) db.Exec("ROLLBACK").IgnoreError();
  return s;
}

absl::StatusOr<std::unique_ptr<IngestStatements>> PrepareIngestStatements(Connection& db) {
  ASSIGN_OR_RETURN(Statement snapshot, db.Prepare(InsertSnapshot()));
  ASSIGN_OR_RETURN(Statement current,
                   db.Prepare("INSERT INTO current (singleton, snapshot_id) VALUES (0, ?) ON "
                              "CONFLICT "
                              "(singleton) DO UPDATE SET snapshot_id = excluded.snapshot_id"));
  ASSIGN_OR_RETURN(std::unique_ptr<FabricRowStatements> rows, PrepareFabricRowStatements(db));
  return std::unique_ptr<IngestStatements>(
      new IngestStatements{std::move(snapshot), std::move(current), std::move(rows)});
}

}  // namespace

Store::Store(StoreOptions options, std::unique_ptr<Connection> db)
    : options_(std::move(options)), db_(std::move(db)) {}

Store::~Store() {
  {
    absl::MutexLock lock(&mu_);
    ingest_.reset();  // statements must be finalised before the connection closes
    db_.reset();
  }
  if (lock_fd_ >= 0) close(lock_fd_);  // releases the lock
}

namespace {

// The exclusive lock of `path` (PATH.lock, flock, our pid written in it): the open fd, or
// kFailedPrecondition naming the holder.
absl::StatusOr<int> LockDatabase(const std::string& path) {
  const std::string lock_path = path + ".lock";
  const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(lock_path, ": cannot open the lock file: ", std::strerror(errno)));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char pid[32] = {};
    const ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
    close(fd);
    std::string holder = n > 0 ? std::string(pid, static_cast<size_t>(n)) : "";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    if (err == EWOULDBLOCK) {
      return absl::FailedPreconditionError(absl::StrCat(
          path, " is in use by another toporrd (pid ", holder.empty() ? "unknown" : holder,
          ", lock ", lock_path, "): one database, one daemon"));
    }
    return absl::FailedPreconditionError(
        absl::StrCat(lock_path, ": cannot lock: ", std::strerror(err)));
  }
  const std::string mine = absl::StrCat(getpid(), "\n");
  if (ftruncate(fd, 0) != 0 || pwrite(fd, mine.data(), mine.size(), 0) < 0) {
    // The lock holds without the pid; a second daemon's message then says "unknown".
  }
  return fd;
}

}  // namespace

absl::Status Store::CheckFileIdentity() const {
  if (file_dev_ == 0 && file_ino_ == 0) return absl::OkStatus();
  struct stat st;
  if (stat(options_.path.c_str(), &st) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(options_.path,
                     " was removed while toporrd ran: not writing into a deleted file; "
                     "restore it or restart toporrd (the served snapshot stays)"));
  }
  if (static_cast<uint64_t>(st.st_dev) != file_dev_ ||
      static_cast<uint64_t>(st.st_ino) != file_ino_) {
    return absl::FailedPreconditionError(
        absl::StrCat(options_.path,
                     " was replaced by another file while toporrd ran: not writing into the "
                     "one it opened; restart toporrd to use the new file (the served snapshot "
                     "stays)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Store>> Store::Open(StoreOptions options) {
  if (options.path.empty()) return absl::InvalidArgumentError("StoreOptions.path is empty");
  if (options.keep_snapshots < 1) {
    return absl::InvalidArgumentError("StoreOptions.keep_snapshots must be >= 1, got " +
                                      std::to_string(options.keep_snapshots));
  }
  if (!options.crash_point.empty()) {
    const auto& points = IngestCrashPoints();
    if (std::find(points.begin(), points.end(), options.crash_point) == points.end()) {
      return absl::InvalidArgumentError("unknown crash point \"" + options.crash_point +
                                        "\"; see db::IngestCrashPoints()");
    }
  }
  if (!options.now_unix_ms) options.now_unix_ms = SystemNowUnixMs;

  int lock_fd = -1;
  if (options.exclusive && options.path != ":memory:") {
    ASSIGN_OR_RETURN(lock_fd, LockDatabase(options.path));
  }
  // Closes the lock again when Open fails below.
  std::unique_ptr<int, void (*)(int*)> lock_guard(&lock_fd, [](int* fd) {
    if (*fd >= 0) close(*fd);
  });
  ASSIGN_OR_RETURN(std::unique_ptr<Connection> db, Connection::Open(options.path));
  RETURN_IF_ERROR(db->Exec("PRAGMA busy_timeout = " + std::to_string(options.busy_timeout_ms)));
  ASSIGN_OR_RETURN(std::string mode, db->QueryText("PRAGMA journal_mode = WAL"));
  // An in-memory database reports "memory"; it has no file to protect.
  if (mode != "wal" && options.path != ":memory:") {
    return absl::UnavailableError(options.path + ": cannot switch to WAL journal mode (got \"" +
                                  mode + "\")");
  }
  RETURN_IF_ERROR(db->Exec("PRAGMA synchronous = FULL"));  // why FULL: see store.h
  // One snapshot of a 10k-CA fabric is many MB of pages; with SQLite's default
  // 2 MB cache an ingest spills dirty pages to the WAL mid-transaction and
  // re-reads them for the indexes.
  RETURN_IF_ERROR(db->Exec("PRAGMA cache_size = -32768"));  // KiB, i.e. 32 MiB
  RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys = ON"));
  ASSIGN_OR_RETURN(int64_t fk, db->QueryInt("PRAGMA foreign_keys"));
  if (fk != 1) return absl::InternalError(options.path + ": SQLite refused foreign_keys=ON");
  RETURN_IF_ERROR(MigrateToLatest(*db));
  struct stat st = {};
  const bool on_disk = options.path != ":memory:" && stat(options.path.c_str(), &st) == 0;
  std::unique_ptr<Store> store(new Store(std::move(options), std::move(db)));
  if (on_disk) {
    store->file_dev_ = static_cast<uint64_t>(st.st_dev);
    store->file_ino_ = static_cast<uint64_t>(st.st_ino);
  }
  store->lock_fd_ = lock_fd;
  lock_fd = -1;  // the Store owns it now
  return store;
}

void Store::MaybeCrash(const char* point) const {
  if (options_.crash_point == point) raise(SIGKILL);
}

absl::StatusOr<std::optional<SnapshotInfo>> Store::CurrentLocked() {
  ASSIGN_OR_RETURN(Statement s,
                   db_->Prepare(SelectSnapshots("WHERE id = (SELECT snapshot_id FROM current)")));
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<SnapshotInfo>();
  return std::optional<SnapshotInfo>(ReadSnapshotRow(s));
}

absl::StatusOr<std::optional<SnapshotInfo>> Store::Current() {
  absl::MutexLock lock(&mu_);
  return CurrentLocked();
}

absl::StatusOr<std::vector<SnapshotInfo>> Store::ListSnapshots() {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Statement s, db_->Prepare(SelectSnapshots("ORDER BY id DESC")));
  std::vector<SnapshotInfo> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ReadSnapshotRow(s));
  }
  return out;
}

absl::StatusOr<IngestResult> Store::Ingest(const Fabric& fabric, const std::string& source_kind,
                                           const std::string& source_name) {
  return Ingest(fabric, nullptr, source_kind, source_name);
}

absl::StatusOr<IngestResult> Store::Ingest(const Fabric& fabric,
                                           const fabric::ForwardingTables* tables,
                                           const std::string& source_kind,
                                           const std::string& source_name) {
  if (absl::Status valid = fabric::ValidateFabric(fabric); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("fabric not stored: ", valid.message()));
  }
  if (tables != nullptr && tables->switches().empty()) tables = nullptr;
  SnapshotInfo info;
  info.source_kind = source_kind;
  info.source_name = source_name;
  info.content_hash = SnapshotContentHash(fabric, tables);
  info.num_forwarding_tables = tables ? tables->switches().size() : 0;
  info.num_switches = fabric.CountNodes(NodeType::kSwitch);
  info.num_cas = fabric.CountNodes(NodeType::kCa);
  info.num_routers = fabric.CountNodes(NodeType::kRouter);
  info.num_aggregation = fabric.CountNodes(NodeType::kAggregation);
  info.num_links = fabric.links.size();
  info.num_hosts = fabric.hosts.size();
  info.num_anonymous = fabric.anonymous_endpoints.size();

  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckFileIdentity());
  IngestResult result;
  absl::Status s = InTransaction(*db_, "BEGIN IMMEDIATE", [&]() -> absl::Status {
    MaybeCrash("after_begin");
    // Compared inside the write transaction so another writer cannot slip
    // in between.
    ASSIGN_OR_RETURN(std::optional<SnapshotInfo> current, CurrentLocked());
    if (current && current->content_hash == info.content_hash) {
      result.snapshot = *current;
      return absl::OkStatus();
    }
    info.created_unix_ms = options_.now_unix_ms();
    ASSIGN_OR_RETURN(result.snapshot, WriteSnapshot(fabric, tables, info));
    result.created = true;
    // `current` moves first: its foreign key then guards the new snapshot
    // from retention.
    RETURN_IF_ERROR(ingest_->current.BindInt(1, result.snapshot.id).Run());
    MaybeCrash("after_current");
    RETURN_IF_ERROR(ApplyRetention(result.snapshot.id));
    MaybeCrash("after_retention");
    MaybeCrash("before_commit");
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  if (result.created) MaybeCrash("after_commit");
  return result;
}

absl::StatusOr<SnapshotInfo> Store::WriteSnapshot(const Fabric& fabric,
                                                  const fabric::ForwardingTables* tables,
                                                  SnapshotInfo info) {
  if (!ingest_) {
    ASSIGN_OR_RETURN(ingest_, PrepareIngestStatements(*db_));
  }
  IngestStatements& st = *ingest_;

  RETURN_IF_ERROR(BindSnapshotRow(st.snapshot, info).Run());
  ASSIGN_OR_RETURN(info.id, db_->QueryInt("SELECT last_insert_rowid()"));
  const int64_t id = info.id;
  MaybeCrash("after_snapshot");

  RETURN_IF_ERROR(WriteFabricRows(*st.rows, id, fabric, tables,
                                  [this](const char* point) { MaybeCrash(point); }));
  return info;
}

absl::Status Store::ApplyRetention(int64_t current_id) {
  ASSIGN_OR_RETURN(Statement old,
                   db_->Prepare("SELECT id FROM snapshots WHERE id != ?1 ORDER BY id DESC "
                                "LIMIT -1 OFFSET ?2"));
  old.BindInt(1, current_id).BindInt(2, options_.keep_snapshots - 1);
  std::vector<int64_t> doomed;
  while (true) {
    ASSIGN_OR_RETURN(bool row, old.Step());
    if (!row) break;
    doomed.push_back(old.ColumnInt(0));
  }
  // Children first, so every foreign-key check on a parent row finds nothing to
  // cascade.
  static constexpr const char* kTables[] = {"forwarding_tables",
                                            "forwarding_lid_owners",
                                            "anonymous_endpoints",
                                            "host_cas",
                                            "links",
                                            "ports",
                                            "nodes",
                                            "hosts",
                                            "snapshots"};
  for (const char* table : kTables) {
    const std::string column = std::string(table) == "snapshots" ? "id" : "snapshot_id";
    ASSIGN_OR_RETURN(Statement del, db_->Prepare(std::string("DELETE FROM ") + table + " WHERE " +
                                                 column + " = ?"));
    for (int64_t id : doomed) RETURN_IF_ERROR(del.BindInt(1, id).Run());
  }
  return absl::OkStatus();
}

absl::StatusOr<Fabric> Store::LoadFabric(int64_t snapshot_id) {
  absl::MutexLock lock(&mu_);
  Fabric fabric;
  // A read transaction, so retention by another process cannot remove rows
  // mid-read.
  RETURN_IF_ERROR(InTransaction(*db_, "BEGIN", [&]() -> absl::Status {
    ASSIGN_OR_RETURN(fabric, ReadFabricRows(*db_, snapshot_id));
    return absl::OkStatus();
  }));
  return fabric;
}

absl::StatusOr<std::optional<fabric::ForwardingTables>> Store::LoadForwardingTables(
    int64_t snapshot_id) {
  absl::MutexLock lock(&mu_);
  std::optional<fabric::ForwardingTables> out;
  RETURN_IF_ERROR(InTransaction(*db_, "BEGIN", [&]() -> absl::Status {
    ASSIGN_OR_RETURN(out, ReadForwardingTableRows(*db_, snapshot_id));
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace toporr::db
