#include "db/fabric_rows.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <string>
#include <utility>

#include "common/status_macros.h"

namespace toporr::db {

using fabric::Fabric;
using fabric::FormatGuid;
using fabric::Link;
using fabric::LinkSpeed;
using fabric::Node;
using fabric::NodeType;
using fabric::Port;

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

}  // namespace

absl::StatusOr<std::unique_ptr<FabricRowStatements>> PrepareFabricRowStatements(Connection& db) {
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
  ASSIGN_OR_RETURN(Statement forwarding_table,
                   db.Prepare("INSERT INTO forwarding_tables (snapshot_id, position, "
                              "switch_guid, lid, description, out_ports) "
                              "VALUES (?,?,?,?,?,?)"));
  ASSIGN_OR_RETURN(Statement lid_owners,
                   db.Prepare("INSERT INTO forwarding_lid_owners (snapshot_id, "
                              "owners) VALUES (?,?)"));
  return std::unique_ptr<FabricRowStatements>(new FabricRowStatements{
      std::move(node), std::move(port), std::move(link), std::move(host), std::move(host_ca),
      std::move(anonymous), std::move(forwarding_table), std::move(lid_owners)});
}

absl::Status WriteFabricRows(FabricRowStatements& st, int64_t id, const Fabric& fabric,
                             const fabric::ForwardingTables* tables,
                             const std::function<void(const char*)>& checkpoint) {
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
  checkpoint("after_nodes");

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
  checkpoint("after_ports");

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
  checkpoint("after_links");

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
  checkpoint("after_hosts");

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
  return absl::OkStatus();
}

absl::StatusOr<Fabric> ReadFabricRows(Connection& db, int64_t snapshot_id) {
  const std::string where = " WHERE snapshot_id = " + std::to_string(snapshot_id) + " ";
  auto corrupt = [&](const std::string& what) {
    return absl::DataLossError(db.path() + ": snapshot " + std::to_string(snapshot_id) + ": " +
                               what);
  };
  auto for_each_row = [&](const std::string& sql,
                          const std::function<absl::Status(const Statement&)>& fn) {
    ASSIGN_OR_RETURN(Statement s, db.Prepare(sql));
    while (true) {
      ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return absl::OkStatus();
      RETURN_IF_ERROR(fn(s));
    }
  };

  ASSIGN_OR_RETURN(int64_t exists, db.QueryInt("SELECT count(*) FROM snapshots WHERE id = " +
                                               std::to_string(snapshot_id)));
  if (exists == 0) {
    return absl::NotFoundError("snapshot " + std::to_string(snapshot_id) + " not found in " +
                               db.path());
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

absl::StatusOr<std::optional<fabric::ForwardingTables>> ReadForwardingTableRows(
    Connection& db, int64_t snapshot_id) {
  const std::string id = std::to_string(snapshot_id);
  ASSIGN_OR_RETURN(int64_t exists, db.QueryInt("SELECT count(*) FROM snapshots WHERE id = " + id));
  if (exists == 0) {
    return absl::NotFoundError("snapshot " + id + " not found in " + db.path());
  }
  auto corrupt = [&](const std::string& what) {
    return absl::DataLossError(db.path() + ": snapshot " + id + " forwarding tables: " + what);
  };
  ASSIGN_OR_RETURN(Statement s, db.Prepare("SELECT switch_guid, lid, description, "
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
  if (!any) return std::optional<fabric::ForwardingTables>();
  ASSIGN_OR_RETURN(Statement o, db.Prepare("SELECT owners FROM forwarding_lid_owners "
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
  return std::optional<fabric::ForwardingTables>(std::move(tables));
}

}  // namespace toporr::db
