#include "db/store.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "db/schema.h"
#include "db/sqlite.h"
#include "fabric/validate.h"

namespace toporr::db {

using fabric::Fabric;
using fabric::FormatGuid;
using fabric::Link;
using fabric::LinkSpeed;
using fabric::Node;
using fabric::NodeType;
using fabric::Port;

const std::vector<std::string>& IngestCrashPoints() {
  static const std::vector<std::string>* points = new std::vector<std::string>{
      "after_begin", "after_snapshot", "after_nodes",     "after_ports",   "after_links",
      "after_hosts", "after_current",  "after_retention", "before_commit", "after_commit"};
  return *points;
}

// The statements an ingest runs per row, prepared once per Store.
struct IngestStatements {
  Statement snapshot, node, port, link, host, host_ca, anonymous, current, forwarding_table,
      lid_owners;
};

namespace {

constexpr NodeType kNodeTypes[] = {NodeType::kSwitch, NodeType::kCa, NodeType::kRouter,
                                   NodeType::kAggregation};

bool ParseGuid(const std::string& text, uint64_t* guid) {
  if (text.size() != 18 || text[0] != '0' || text[1] != 'x') return false;
  uint64_t v = 0;
  for (size_t i = 2; i < text.size(); ++i) {
    char c = text[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  *guid = v;
  return true;
}

constexpr const char* kSnapshotColumns =
    "id, created_unix_ms, source_kind, source_name, content_hash, "
    "num_switches, num_cas, "
    "num_routers, num_aggregation, num_links, num_hosts, num_anonymous, "
    "num_forwarding_tables";

SnapshotInfo ReadSnapshotRow(const Statement& s) {
  SnapshotInfo info;
  info.id = s.ColumnInt(0);
  info.created_unix_ms = s.ColumnInt(1);
  info.source_kind = s.ColumnText(2);
  info.source_name = s.ColumnText(3);
  info.content_hash = s.ColumnText(4);
  info.num_switches = s.ColumnInt(5);
  info.num_cas = s.ColumnInt(6);
  info.num_routers = s.ColumnInt(7);
  info.num_aggregation = s.ColumnInt(8);
  info.num_links = s.ColumnInt(9);
  info.num_hosts = s.ColumnInt(10);
  info.num_anonymous = s.ColumnInt(11);
  info.num_forwarding_tables = s.ColumnInt(12);
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
  ASSIGN_OR_RETURN(Statement snapshot,
                   db.Prepare("INSERT INTO snapshots (created_unix_ms, source_kind, source_name, "
                              "content_hash, num_switches, num_cas, num_routers, num_aggregation, "
                              "num_links, num_hosts, num_anonymous, num_forwarding_tables) VALUES "
                              "(?,?,?,?,?,?,?,?,?,?,?,?)"));
  ASSIGN_OR_RETURN(Statement node, db.Prepare("INSERT INTO nodes (snapshot_id, node_index, "
                                              "type, guid, system_image_guid, "
                                              "vendor_id, device_id, num_ports, description, "
                                              "lid, lmc, enhanced_port0) "
                                              "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"));
  ASSIGN_OR_RETURN(Statement port,
                   db.Prepare("INSERT INTO ports (snapshot_id, node_index, number, ext_number, "
                              "guid, lid, lmc) VALUES (?,?,?,?,?,?,?)"));
  ASSIGN_OR_RETURN(Statement link,
                   db.Prepare("INSERT INTO links (snapshot_id, link_index, a_node, a_port, b_node, "
                              "b_port, "
                              "width_lanes, speed, data_rate_gbps) VALUES (?,?,?,?,?,?,?,?,?)"));
  ASSIGN_OR_RETURN(Statement host,
                   db.Prepare("INSERT INTO hosts (snapshot_id, host_index, name) VALUES (?,?,?)"));
  ASSIGN_OR_RETURN(Statement host_ca,
                   db.Prepare("INSERT INTO host_cas (snapshot_id, host_index, position, "
                              "node_index) VALUES (?,?,?,?)"));
  ASSIGN_OR_RETURN(Statement anonymous,
                   db.Prepare("INSERT INTO anonymous_endpoints (snapshot_id, position, "
                              "node_index) VALUES (?,?,?)"));
  ASSIGN_OR_RETURN(Statement current,
                   db.Prepare("INSERT INTO current (singleton, snapshot_id) VALUES (0, ?) ON "
                              "CONFLICT "
                              "(singleton) DO UPDATE SET snapshot_id = excluded.snapshot_id"));
  ASSIGN_OR_RETURN(Statement forwarding_table,
                   db.Prepare("INSERT INTO forwarding_tables (snapshot_id, position, "
                              "switch_guid, lid, description, out_ports) "
                              "VALUES (?,?,?,?,?,?)"));
  ASSIGN_OR_RETURN(Statement lid_owners,
                   db.Prepare("INSERT INTO forwarding_lid_owners (snapshot_id, "
                              "owners) VALUES (?,?)"));
  return std::unique_ptr<IngestStatements>(
      new IngestStatements{std::move(snapshot), std::move(node), std::move(port), std::move(link),
                           std::move(host), std::move(host_ca), std::move(anonymous),
                           std::move(current), std::move(forwarding_table), std::move(lid_owners)});
}

}  // namespace

Store::Store(StoreOptions options, std::unique_ptr<Connection> db)
    : options_(std::move(options)), db_(std::move(db)) {}

Store::~Store() {
  absl::MutexLock lock(&mu_);
  ingest_.reset();  // statements must be finalised before the connection closes
  db_.reset();
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
  return std::unique_ptr<Store>(new Store(std::move(options), std::move(db)));
}

void Store::MaybeCrash(const char* point) const {
  if (options_.crash_point == point) raise(SIGKILL);
}

absl::StatusOr<std::optional<SnapshotInfo>> Store::CurrentLocked() {
  ASSIGN_OR_RETURN(Statement s,
                   db_->Prepare(std::string("SELECT ") + kSnapshotColumns +
                                " FROM snapshots WHERE id = (SELECT snapshot_id FROM current)"));
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
  ASSIGN_OR_RETURN(Statement s, db_->Prepare(std::string("SELECT ") + kSnapshotColumns +
                                             " FROM snapshots ORDER BY id DESC"));
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

  RETURN_IF_ERROR(st.snapshot.BindInt(1, info.created_unix_ms)
                      .BindText(2, info.source_kind)
                      .BindText(3, info.source_name)
                      .BindText(4, info.content_hash)
                      .BindInt(5, info.num_switches)
                      .BindInt(6, info.num_cas)
                      .BindInt(7, info.num_routers)
                      .BindInt(8, info.num_aggregation)
                      .BindInt(9, info.num_links)
                      .BindInt(10, info.num_hosts)
                      .BindInt(11, info.num_anonymous)
                      .BindInt(12, info.num_forwarding_tables)
                      .Run());
  ASSIGN_OR_RETURN(info.id, db_->QueryInt("SELECT last_insert_rowid()"));
  const int64_t id = info.id;
  MaybeCrash("after_snapshot");

  for (size_t i = 0; i < fabric.nodes.size(); ++i) {
    const Node& n = fabric.nodes[i];
    st.node.BindInt(1, id)
        .BindInt(2, i)
        .BindText(3, fabric::NodeTypeName(n.type))
        .BindText(4, FormatGuid(n.guid));
    if (n.system_image_guid != 0) {
      st.node.BindText(5, FormatGuid(n.system_image_guid));
    } else {
      st.node.BindNull(5);
    }
    RETURN_IF_ERROR(st.node.BindInt(6, n.vendor_id)
                        .BindInt(7, n.device_id)
                        .BindInt(8, n.num_ports)
                        .BindText(9, n.description)
                        .BindInt(10, n.lid)
                        .BindInt(11, n.lmc)
                        .BindInt(12, n.enhanced_port0 ? 1 : 0)
                        .Run());
  }
  MaybeCrash("after_nodes");

  for (size_t i = 0; i < fabric.nodes.size(); ++i) {
    for (const Port& p : fabric.nodes[i].ports) {
      RETURN_IF_ERROR(st.port.BindInt(1, id)
                          .BindInt(2, i)
                          .BindInt(3, p.number)
                          .BindInt(4, p.ext_number)
                          .BindText(5, FormatGuid(p.guid))
                          .BindInt(6, p.lid)
                          .BindInt(7, p.lmc)
                          .Run());
    }
  }
  MaybeCrash("after_ports");

  for (size_t i = 0; i < fabric.links.size(); ++i) {
    const Link& l = fabric.links[i];
    st.link.BindInt(1, id)
        .BindInt(2, i)
        .BindInt(3, l.a.node)
        .BindInt(4, l.a.port)
        .BindInt(5, l.b.node)
        .BindInt(6, l.b.port)
        .BindDouble(9, l.data_rate_gbps);
    if (l.width_lanes != 0) {
      st.link.BindInt(7, l.width_lanes);
    } else {
      st.link.BindNull(7);
    }
    if (l.speed != LinkSpeed::kUnknown) {
      st.link.BindText(8, fabric::LinkSpeedName(l.speed));
    } else {
      st.link.BindNull(8);
    }
    RETURN_IF_ERROR(st.link.Run());
  }
  MaybeCrash("after_links");

  for (size_t h = 0; h < fabric.hosts.size(); ++h) {
    RETURN_IF_ERROR(st.host.BindInt(1, id).BindInt(2, h).BindText(3, fabric.hosts[h].name).Run());
    const std::vector<int>& cas = fabric.hosts[h].cas;
    for (size_t k = 0; k < cas.size(); ++k) {
      RETURN_IF_ERROR(
          st.host_ca.BindInt(1, id).BindInt(2, h).BindInt(3, k).BindInt(4, cas[k]).Run());
    }
  }
  for (size_t k = 0; k < fabric.anonymous_endpoints.size(); ++k) {
    RETURN_IF_ERROR(
        st.anonymous.BindInt(1, id).BindInt(2, k).BindInt(3, fabric.anonymous_endpoints[k]).Run());
  }
  MaybeCrash("after_hosts");

  if (tables != nullptr) {
    const auto& switches = tables->switches();
    for (size_t k = 0; k < switches.size(); ++k) {
      const auto& t = switches[k];
      RETURN_IF_ERROR(st.forwarding_table.BindInt(1, id)
                          .BindInt(2, k)
                          .BindText(3, FormatGuid(t.guid))
                          .BindInt(4, t.lid)
                          .BindText(5, t.description)
                          .BindBlob(6, t.out_port.data(), t.out_port.size())
                          .Run());
    }
    std::string owners;
    owners.reserve(tables->lid_port_guid().size() * 8);
    for (uint64_t g : tables->lid_port_guid())
      for (int b = 0; b < 8; ++b) owners.push_back(static_cast<char>((g >> (8 * b)) & 0xff));
    RETURN_IF_ERROR(st.lid_owners.BindInt(1, id).BindBlob(2, owners.data(), owners.size()).Run());
  }
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
    ASSIGN_OR_RETURN(fabric, ReadFabric(snapshot_id));
    return absl::OkStatus();
  }));
  return fabric;
}

absl::StatusOr<std::optional<fabric::ForwardingTables>> Store::LoadForwardingTables(
    int64_t snapshot_id) {
  absl::MutexLock lock(&mu_);
  std::optional<fabric::ForwardingTables> out;
  RETURN_IF_ERROR(InTransaction(*db_, "BEGIN", [&]() -> absl::Status {
    const std::string id = std::to_string(snapshot_id);
    ASSIGN_OR_RETURN(int64_t exists,
                     db_->QueryInt("SELECT count(*) FROM snapshots WHERE id = " + id));
    if (exists == 0) {
      return absl::NotFoundError("snapshot " + id + " not found in " + db_->path());
    }
    auto corrupt = [&](const std::string& what) {
      return absl::DataLossError(db_->path() + ": snapshot " + id + " forwarding tables: " + what);
    };
    ASSIGN_OR_RETURN(Statement s, db_->Prepare("SELECT switch_guid, lid, description, "
                                               "out_ports FROM forwarding_tables WHERE "
                                               "snapshot_id = " +
                                               id + " ORDER BY position"));
    fabric::ForwardingTables tables;
    bool any = false;
    while (true) {
      ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      uint64_t guid = 0;
      if (!ParseGuid(s.ColumnText(0), &guid)) return corrupt("malformed switch GUID");
      fabric::SwitchForwardingTable* t = tables.Add(guid);
      t->lid = static_cast<uint32_t>(s.ColumnInt(1));
      t->description = s.ColumnText(2);
      std::string ports = s.ColumnBlob(3);
      t->out_port.assign(ports.begin(), ports.end());
      any = true;
    }
    if (!any) return absl::OkStatus();
    ASSIGN_OR_RETURN(Statement o, db_->Prepare("SELECT owners FROM forwarding_lid_owners "
                                               "WHERE snapshot_id = " +
                                               id));
    ASSIGN_OR_RETURN(bool row, o.Step());
    if (row) {
      std::string owners = o.ColumnBlob(0);
      if (owners.size() % 8 != 0) return corrupt("LID owner list is not a multiple of 8 bytes");
      for (size_t lid = 0; lid * 8 < owners.size(); ++lid) {
        uint64_t g = 0;
        for (int b = 7; b >= 0; --b) g = (g << 8) | static_cast<unsigned char>(owners[lid * 8 + b]);
        if (g != 0) tables.NoteLidOwner(static_cast<uint32_t>(lid), g);
      }
    }
    out = std::move(tables);
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<Fabric> Store::ReadFabric(int64_t snapshot_id) {
  const std::string where = " WHERE snapshot_id = " + std::to_string(snapshot_id) + " ";
  auto corrupt = [&](const std::string& what) {
    return absl::DataLossError(db_->path() + ": snapshot " + std::to_string(snapshot_id) + ": " +
                               what);
  };
  auto for_each_row = [&](const std::string& sql,
                          const std::function<absl::Status(const Statement&)>& fn) {
    ASSIGN_OR_RETURN(Statement s, db_->Prepare(sql));
    while (true) {
      ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return absl::OkStatus();
      RETURN_IF_ERROR(fn(s));
    }
  };

  ASSIGN_OR_RETURN(int64_t exists, db_->QueryInt("SELECT count(*) FROM snapshots WHERE id = " +
                                                 std::to_string(snapshot_id)));
  if (exists == 0) {
    return absl::NotFoundError("snapshot " + std::to_string(snapshot_id) + " not found in " +
                               db_->path());
  }

  Fabric f;
  RETURN_IF_ERROR(for_each_row(
      "SELECT node_index, type, guid, system_image_guid, vendor_id, device_id, "
      "num_ports, "
      "description, lid, lmc, enhanced_port0 FROM nodes" +
          where + "ORDER BY node_index",
      [&](const Statement& s) -> absl::Status {
        if (s.ColumnInt(0) != static_cast<int64_t>(f.nodes.size())) {
          return corrupt("node indices are not 0..n-1");
        }
        Node n;
        const std::string type = s.ColumnText(1);
        auto t = std::find_if(std::begin(kNodeTypes), std::end(kNodeTypes),
                              [&](NodeType k) { return type == fabric::NodeTypeName(k); });
        if (t == std::end(kNodeTypes)) return corrupt("unknown node type \"" + type + "\"");
        n.type = *t;
        if (!ParseGuid(s.ColumnText(2), &n.guid) ||
            (!s.IsNull(3) && !ParseGuid(s.ColumnText(3), &n.system_image_guid))) {
          return corrupt("malformed GUID at node " + std::to_string(f.nodes.size()));
        }
        n.vendor_id = static_cast<uint32_t>(s.ColumnInt(4));
        n.device_id = static_cast<uint32_t>(s.ColumnInt(5));
        n.num_ports = static_cast<int>(s.ColumnInt(6));
        n.description = s.ColumnText(7);
        n.lid = static_cast<uint32_t>(s.ColumnInt(8));
        n.lmc = static_cast<uint8_t>(s.ColumnInt(9));
        n.enhanced_port0 = s.ColumnInt(10) != 0;
        f.nodes.push_back(std::move(n));
        return absl::OkStatus();
      }));
  const int64_t num_nodes = f.nodes.size();

  RETURN_IF_ERROR(for_each_row("SELECT node_index, number, ext_number, guid, lid, lmc FROM ports" +
                                   where + "ORDER BY node_index, number",
                               [&](const Statement& s) -> absl::Status {
                                 const int64_t node = s.ColumnInt(0);
                                 if (node < 0 || node >= num_nodes)
                                   return corrupt("port of a missing node");
                                 Port p;
                                 p.number = static_cast<int>(s.ColumnInt(1));
                                 p.ext_number = static_cast<int>(s.ColumnInt(2));
                                 if (!ParseGuid(s.ColumnText(3), &p.guid))
                                   return corrupt("malformed port GUID");
                                 p.lid = static_cast<uint32_t>(s.ColumnInt(4));
                                 p.lmc = static_cast<uint8_t>(s.ColumnInt(5));
                                 f.nodes[node].ports.push_back(p);
                                 return absl::OkStatus();
                               }));

  RETURN_IF_ERROR(for_each_row(
      "SELECT link_index, a_node, a_port, b_node, b_port, width_lanes, speed, "
      "data_rate_gbps "
      "FROM links" +
          where + "ORDER BY link_index",
      [&](const Statement& s) -> absl::Status {
        const int index = static_cast<int>(f.links.size());
        if (s.ColumnInt(0) != index) return corrupt("link indices are not 0..n-1");
        Link l;
        l.a = {static_cast<int>(s.ColumnInt(1)), static_cast<int>(s.ColumnInt(2))};
        l.b = {static_cast<int>(s.ColumnInt(3)), static_cast<int>(s.ColumnInt(4))};
        l.width_lanes = s.IsNull(5) ? 0 : static_cast<int>(s.ColumnInt(5));
        if (!s.IsNull(6)) {
          l.speed = fabric::ParseLinkSpeed(s.ColumnText(6));
          if (l.speed == LinkSpeed::kUnknown) {
            return corrupt("unknown link speed \"" + s.ColumnText(6) + "\"");
          }
        }
        l.data_rate_gbps = s.ColumnDouble(7);
        for (const fabric::LinkEnd& end : {l.a, l.b}) {
          Port* p = end.node >= 0 && end.node < num_nodes ? f.nodes[end.node].FindPort(end.port)
                                                          : nullptr;
          if (p == nullptr) return corrupt("link " + std::to_string(index) + " ends nowhere");
          p->link = index;
        }
        f.links.push_back(l);
        return absl::OkStatus();
      }));

  RETURN_IF_ERROR(for_each_row("SELECT host_index, name FROM hosts" + where + "ORDER BY host_index",
                               [&](const Statement& s) -> absl::Status {
                                 if (s.ColumnInt(0) != static_cast<int64_t>(f.hosts.size())) {
                                   return corrupt("host indices are not 0..n-1");
                                 }
                                 fabric::Host h;
                                 h.name = s.ColumnText(1);
                                 f.hosts.push_back(std::move(h));
                                 return absl::OkStatus();
                               }));

  RETURN_IF_ERROR(for_each_row(
      "SELECT host_index, node_index FROM host_cas" + where + "ORDER BY host_index, position",
      [&](const Statement& s) -> absl::Status {
        const int64_t host = s.ColumnInt(0);
        const int64_t node = s.ColumnInt(1);
        if (host < 0 || host >= static_cast<int64_t>(f.hosts.size()) || node < 0 ||
            node >= num_nodes) {
          return corrupt("host membership refers to a missing host or node");
        }
        f.hosts[host].cas.push_back(static_cast<int>(node));
        f.nodes[node].host = static_cast<int>(host);
        return absl::OkStatus();
      }));

  RETURN_IF_ERROR(
      for_each_row("SELECT node_index FROM anonymous_endpoints" + where + "ORDER BY position",
                   [&](const Statement& s) -> absl::Status {
                     const int64_t node = s.ColumnInt(0);
                     if (node < 0 || node >= num_nodes)
                       return corrupt("anonymous endpoint out of range");
                     f.anonymous_endpoints.push_back(static_cast<int>(node));
                     return absl::OkStatus();
                   }));

  f.RebuildIndex();
  return f;
}

}  // namespace toporr::db
