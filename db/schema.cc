#include "db/schema.h"

#include <string>

#include "common/status_macros.h"

namespace toporr::db {
namespace {

// Migration i (1-based) takes the schema from version i-1 to version i. Append
// only: never edit a migration that has shipped; add a new one instead.
constexpr const char* kMigrations[] = {
    // 1: the initial layout (see schema.h).
    R"sql(
CREATE TABLE snapshots (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_unix_ms INTEGER NOT NULL,
  source_kind TEXT NOT NULL,
  source_name TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  num_switches INTEGER NOT NULL,
  num_cas INTEGER NOT NULL,
  num_routers INTEGER NOT NULL,
  num_aggregation INTEGER NOT NULL,
  num_links INTEGER NOT NULL,
  num_hosts INTEGER NOT NULL,
  num_anonymous INTEGER NOT NULL
);

CREATE TABLE current (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 0),
  snapshot_id INTEGER NOT NULL REFERENCES snapshots(id)
);

CREATE TABLE nodes (
  snapshot_id INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  node_index INTEGER NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('switch', 'ca', 'router', 'aggregation')),
  guid TEXT NOT NULL,
  system_image_guid TEXT,
  vendor_id INTEGER NOT NULL,
  device_id INTEGER NOT NULL,
  num_ports INTEGER NOT NULL,
  description TEXT NOT NULL,
  lid INTEGER NOT NULL,
  lmc INTEGER NOT NULL,
  enhanced_port0 INTEGER NOT NULL,
  PRIMARY KEY (snapshot_id, node_index)
) WITHOUT ROWID;
CREATE UNIQUE INDEX nodes_by_guid ON nodes (snapshot_id, guid);

CREATE TABLE ports (
  snapshot_id INTEGER NOT NULL,
  node_index INTEGER NOT NULL,
  number INTEGER NOT NULL,
  ext_number INTEGER NOT NULL,
  guid TEXT NOT NULL,
  lid INTEGER NOT NULL,
  lmc INTEGER NOT NULL,
  PRIMARY KEY (snapshot_id, node_index, number),
  FOREIGN KEY (snapshot_id, node_index) REFERENCES nodes (snapshot_id, node_index)
    ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE links (
  snapshot_id INTEGER NOT NULL,
  link_index INTEGER NOT NULL,
  a_node INTEGER NOT NULL,
  a_port INTEGER NOT NULL,
  b_node INTEGER NOT NULL,
  b_port INTEGER NOT NULL,
  width_lanes INTEGER,
  speed TEXT,
  data_rate_gbps REAL NOT NULL,
  PRIMARY KEY (snapshot_id, link_index),
  FOREIGN KEY (snapshot_id, a_node, a_port) REFERENCES ports (snapshot_id, node_index, number)
    ON DELETE CASCADE,
  FOREIGN KEY (snapshot_id, b_node, b_port) REFERENCES ports (snapshot_id, node_index, number)
    ON DELETE CASCADE
) WITHOUT ROWID;
CREATE UNIQUE INDEX links_by_a ON links (snapshot_id, a_node, a_port);
CREATE UNIQUE INDEX links_by_b ON links (snapshot_id, b_node, b_port);

CREATE TABLE hosts (
  snapshot_id INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  host_index INTEGER NOT NULL,
  name TEXT NOT NULL,
  PRIMARY KEY (snapshot_id, host_index)
) WITHOUT ROWID;
CREATE UNIQUE INDEX hosts_by_name ON hosts (snapshot_id, name);

CREATE TABLE host_cas (
  snapshot_id INTEGER NOT NULL,
  host_index INTEGER NOT NULL,
  position INTEGER NOT NULL,
  node_index INTEGER NOT NULL,
  PRIMARY KEY (snapshot_id, host_index, position),
  FOREIGN KEY (snapshot_id, host_index) REFERENCES hosts (snapshot_id, host_index)
    ON DELETE CASCADE,
  FOREIGN KEY (snapshot_id, node_index) REFERENCES nodes (snapshot_id, node_index)
    ON DELETE CASCADE
) WITHOUT ROWID;
CREATE UNIQUE INDEX host_cas_by_node ON host_cas (snapshot_id, node_index);

CREATE TABLE anonymous_endpoints (
  snapshot_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  node_index INTEGER NOT NULL,
  PRIMARY KEY (snapshot_id, position),
  FOREIGN KEY (snapshot_id, node_index) REFERENCES nodes (snapshot_id, node_index)
    ON DELETE CASCADE
) WITHOUT ROWID;
CREATE UNIQUE INDEX anonymous_endpoints_by_node ON anonymous_endpoints (snapshot_id, node_index);
)sql",
    // 2: forwarding tables (routes) per snapshot.
    R"sql(
ALTER TABLE snapshots ADD COLUMN num_forwarding_tables INTEGER NOT NULL DEFAULT 0;

CREATE TABLE forwarding_tables (
  snapshot_id INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  switch_guid TEXT NOT NULL,
  lid INTEGER NOT NULL,
  description TEXT NOT NULL,
  out_ports BLOB NOT NULL,
  PRIMARY KEY (snapshot_id, position)
) WITHOUT ROWID;
CREATE UNIQUE INDEX forwarding_tables_by_guid ON forwarding_tables (snapshot_id, switch_guid);

CREATE TABLE forwarding_lid_owners (
  snapshot_id INTEGER PRIMARY KEY REFERENCES snapshots(id) ON DELETE CASCADE,
  owners BLOB NOT NULL
);
)sql",
};

constexpr int kNumMigrations = sizeof(kMigrations) / sizeof(kMigrations[0]);

}  // namespace

int LatestSchemaVersion() { return kNumMigrations; }

absl::Status MigrateToLatest(Connection& db) {
  // BEGIN IMMEDIATE takes the write lock before reading user_version, so two
  // processes opening a fresh file at once cannot both apply migration 1.
  RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
  auto migrate = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(int64_t version, db.QueryInt("PRAGMA user_version"));
    if (version > kNumMigrations) {
      return absl::FailedPreconditionError(
          db.path() + ": schema version " + std::to_string(version) +
          " is newer than this toporr build supports (" + std::to_string(kNumMigrations) +
          "); upgrade toporr or point it at another database file");
    }
    if (version < 0) {
      return absl::DataLossError(db.path() + ": negative schema version " +
                                 std::to_string(version));
    }
    for (int64_t v = version; v < kNumMigrations; ++v) {
      absl::Status s = db.Exec(kMigrations[v]);
      if (!s.ok()) {
        return absl::Status(s.code(), "migration to schema version " + std::to_string(v + 1) +
                                          " failed: " + std::string(s.message()));
      }
    }
    if (version != kNumMigrations) {
      RETURN_IF_ERROR(db.Exec("PRAGMA user_version = " + std::to_string(kNumMigrations)));
    }
    return absl::OkStatus();
  };
  absl::Status s = migrate();
  if (!s.ok()) {
    db.Exec("ROLLBACK").IgnoreError();
    return s;
  }
  return db.Exec("COMMIT");
}

}  // namespace toporr::db
