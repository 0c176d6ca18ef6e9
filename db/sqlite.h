// A thin RAII layer over the SQLite C API: one connection, prepared statements,
// and the one place where SQLite result codes become absl::Status.
//
// Error mapping (every message starts with the database path so an admin knows
// which file):
//   SQLITE_BUSY, SQLITE_LOCKED            -> kUnavailable  ("toporr.db:
//   database is locked") SQLITE_CORRUPT, SQLITE_NOTADB         -> kDataLoss
//   SQLITE_CANTOPEN, SQLITE_PERM, READONLY -> kUnavailable (the file cannot be
//   used right now) anything else                          -> kInternal
//
// Not thread-safe: the owner (db::Store) serialises access with its own mutex.
#ifndef TOPORR_DB_SQLITE_H_
#define TOPORR_DB_SQLITE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct sqlite3;
struct sqlite3_stmt;

namespace toporr::db {

class Connection;

// A prepared statement, reusable through Reset(). Column and parameter indices
// follow SQLite: Bind* is 1-based, Column* is 0-based.
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& BindInt(int index, int64_t value);
  Statement& BindDouble(int index, double value);
  Statement& BindText(int index, std::string_view value);
  Statement& BindBlob(int index, const void* data, size_t size);
  Statement& BindNull(int index);

  // Runs one step: true when a row is available, false when the statement is
  // done.
  absl::StatusOr<bool> Step();
  // Runs a statement that returns no rows (INSERT/UPDATE/DELETE), then resets
  // it.
  absl::Status Run();
  // Resets for re-execution and clears the bindings.
  void Reset();

  bool IsNull(int column) const;
  int64_t ColumnInt(int column) const;
  double ColumnDouble(int column) const;
  std::string ColumnText(int column) const;
  // The column's bytes (BLOB or TEXT) as a string.
  std::string ColumnBlob(int column) const;

 private:
  friend class Connection;
  Statement(Connection* connection, sqlite3_stmt* stmt) : connection_(connection), stmt_(stmt) {}

  Connection* connection_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  absl::Status bind_error_;  // first binding failure, reported by Step()
};

class Connection {
 public:
  // Opens (creating if absent) the database at `path` (a file path or
  // ":memory:").
  static absl::StatusOr<std::unique_ptr<Connection>> Open(const std::string& path);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one or more statements that return no rows.
  absl::Status Exec(const std::string& sql);
  absl::StatusOr<Statement> Prepare(std::string_view sql);
  // Runs a query returning exactly one integer (e.g. `PRAGMA user_version`).
  absl::StatusOr<int64_t> QueryInt(std::string_view sql);
  // Runs a query returning exactly one text value (e.g. `PRAGMA
  // journal_mode=WAL`).
  absl::StatusOr<std::string> QueryText(std::string_view sql);

  // The status for SQLite result code `rc` with the connection's last message,
  // as
  // "<path>: <sqlite message> (<context>)".
  absl::Status Error(int rc, std::string_view context) const;

  const std::string& path() const { return path_; }
  sqlite3* raw() const { return db_; }

 private:
  Connection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  sqlite3* db_;
  std::string path_;
};

// The absl code for a SQLite primary result code (see the table at the top).
absl::StatusCode SqliteStatusCode(int rc);

}  // namespace toporr::db

#endif  // TOPORR_DB_SQLITE_H_
