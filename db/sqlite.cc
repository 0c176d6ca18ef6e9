#include "db/sqlite.h"

#include <sqlite3.h>

#include <utility>

namespace toporr::db {

absl::StatusCode SqliteStatusCode(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_FULL:
      return absl::StatusCode::kUnavailable;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::StatusCode::kDataLoss;
    default:
      return absl::StatusCode::kInternal;
  }
}

// ---- Statement ----

Statement::Statement(Statement&& other) noexcept
    : connection_(other.connection_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      bind_error_(std::move(other.bind_error_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    connection_ = other.connection_;
    stmt_ = std::exchange(other.stmt_, nullptr);
    bind_error_ = std::move(other.bind_error_);
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

namespace {
void KeepFirst(absl::Status& slot, absl::Status s) {
  if (slot.ok()) slot = std::move(s);
}
}  // namespace

Statement& Statement::BindInt(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) KeepFirst(bind_error_, connection_->Error(rc, "bind"));
  return *this;
}

Statement& Statement::BindDouble(int index, double value) {
  int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) KeepFirst(bind_error_, connection_->Error(rc, "bind"));
  return *this;
}

Statement& Statement::BindText(int index, std::string_view value) {
  int rc =
      sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) KeepFirst(bind_error_, connection_->Error(rc, "bind"));
  return *this;
}

Statement& Statement::BindNull(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) KeepFirst(bind_error_, connection_->Error(rc, "bind"));
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  if (!bind_error_.ok()) return bind_error_;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  absl::Status s = connection_->Error(rc, sqlite3_sql(stmt_));
  sqlite3_reset(stmt_);
  return s;
}

absl::Status Statement::Run() {
  absl::StatusOr<bool> row = Step();
  Reset();
  if (!row.ok()) return row.status();
  return absl::OkStatus();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = absl::OkStatus();
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::ColumnInt(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::ColumnDouble(int column) const { return sqlite3_column_double(stmt_, column); }

Statement& Statement::BindBlob(int index, const void* data, size_t size) {
  int rc = sqlite3_bind_blob64(stmt_, index, data, size, SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) KeepFirst(bind_error_, connection_->Error(rc, "bind"));
  return *this;
}

std::string Statement::ColumnBlob(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  if (data == nullptr) return std::string();
  return std::string(static_cast<const char*>(data), sqlite3_column_bytes(stmt_, column));
}

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return std::string();
  return std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(stmt_, column));
}

// ---- Connection ----

absl::StatusOr<std::unique_ptr<Connection>> Connection::Open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return absl::Status(SqliteStatusCode(rc), path + ": " + msg + " (opening the database)");
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Connection>(new Connection(db, path));
}

Connection::~Connection() { sqlite3_close(db_); }

absl::Status Connection::Error(int rc, std::string_view context) const {
  std::string msg = path_ + ": " + sqlite3_errmsg(db_);
  if (!context.empty()) msg += " (" + std::string(context) + ")";
  return absl::Status(SqliteStatusCode(rc), msg);
}

absl::Status Connection::Exec(const std::string& sql) {
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, sql.size() > 80 ? sql.substr(0, 80) + "..." : sql);
  return absl::OkStatus();
}

absl::StatusOr<Statement> Connection::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return Error(rc, sql);
  return Statement(this, stmt);
}

namespace {
template <typename T, typename Get>
absl::StatusOr<T> QueryOne(Connection& c, std::string_view sql, Get get) {
  absl::StatusOr<Statement> stmt = c.Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) {
    return absl::InternalError(c.path() + ": query returned no row: " + std::string(sql));
  }
  return get(*stmt);
}
}  // namespace

absl::StatusOr<int64_t> Connection::QueryInt(std::string_view sql) {
  return QueryOne<int64_t>(*this, sql, [](const Statement& s) { return s.ColumnInt(0); });
}

absl::StatusOr<std::string> Connection::QueryText(std::string_view sql) {
  return QueryOne<std::string>(*this, sql, [](const Statement& s) { return s.ColumnText(0); });
}

}  // namespace toporr::db
