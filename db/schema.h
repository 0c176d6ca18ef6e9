// The versioned SQLite schema of the snapshot store and its migrations.
//
// `PRAGMA user_version` holds the schema version. Migrations form an ordered
// list; version N is reached by applying migrations 1..N in order.
// MigrateToLatest() applies every missing migration and bumps user_version
// inside ONE transaction, so a crash or error leaves the file at its old
// version. A file whose version is newer than this binary knows is refused
// (kFailedPrecondition): an older daemon must never write into a layout it does
// not understand (e.g. after a rollback of the package).
//
// Schema v1 (ops staff may query it directly with sqlite3; GUIDs are TEXT "0x"
// + 16 lower- case hex digits, exactly as fabric::FormatGuid prints them;
// "unknown" is NULL):
//
//   snapshots(id, created_unix_ms, source_kind, source_name, content_hash,
//             num_switches, num_cas, num_routers, num_aggregation, num_links,
//             num_hosts, num_anonymous)                           one row per
//             snapshot
//   current(singleton = 0, snapshot_id)               the snapshot the daemon
//   serves nodes(snapshot_id, node_index, type, guid, system_image_guid,
//   vendor_id, device_id,
//         num_ports, description, lid, lmc, enhanced_port0)
//   ports(snapshot_id, node_index, number, ext_number, guid, lid, lmc)
//   links(snapshot_id, link_index, a_node, a_port, b_node, b_port, width_lanes,
//   speed,
//         data_rate_gbps)                              a = smaller (node_index,
//         port)
//   hosts(snapshot_id, host_index, name)
//   host_cas(snapshot_id, host_index, position, node_index)   multi-rail
//   membership anonymous_endpoints(snapshot_id, position, node_index)
//   forwarding_tables(snapshot_id, position, switch_guid, lid, description,
//         out_ports)          (schema 2) out_ports: one byte per LID, the
//                             out port for that destination LID; 255 = unset
//   forwarding_lid_owners(snapshot_id, owners)   (schema 2) per LID the port
//                             GUID the dump named, 8 bytes little-endian each
//   snapshots.num_forwarding_tables (schema 2) 0 = no routes in the snapshot
//
// `*_index` columns are the positions in the fabric::Fabric vectors, so a
// join on (snapshot_id, node_index) recovers everything about a node. Rows of a
// snapshot are never updated; a snapshot is deleted as a whole (ON DELETE
// CASCADE from snapshots down).
#ifndef TOPORR_DB_SCHEMA_H_
#define TOPORR_DB_SCHEMA_H_

#include "absl/status/status.h"
#include "db/sqlite.h"

namespace toporr::db {

// The schema version this binary writes.
int LatestSchemaVersion();

// Brings the database to LatestSchemaVersion() (no-op when already there).
// Errors: kFailedPrecondition when the file's version is newer than
// LatestSchemaVersion(); SQLite failures as mapped in db/sqlite.h. Must be
// called outside any transaction.
absl::Status MigrateToLatest(Connection& db);

}  // namespace toporr::db

#endif  // TOPORR_DB_SCHEMA_H_
