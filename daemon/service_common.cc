#include "daemon/service_common.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/printable.h"
#include "common/status_macros.h"

namespace toporr::daemon {

using fabric::FormatGuid;

absl::StatusOr<std::shared_ptr<const Serving>> RequireCurrent(const FabricState& state) {
  auto current = state.Current();
  if (current == nullptr) {
    return absl::FailedPreconditionError(
        "no fabric has been ingested yet; an admin must run `toporrctl ingest`");
  }
  return current;
}

absl::Status CheckText(const char* field, const std::string& value) {
  if (const size_t bad = FirstUnprintable(value); bad != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " ", Quoted(value, 80), ": ", DescribeUnprintable(value, bad)));
  }
  return absl::OkStatus();
}

absl::Status CheckTexts(const char* field,
                        const google::protobuf::RepeatedPtrField<std::string>& values) {
  for (const std::string& v : values) RETURN_IF_ERROR(CheckText(field, v));
  return absl::OkStatus();
}

void ToProto(const IngestOutcome& outcome, v1::IngestResponse* resp) {
  ToProto(outcome.snapshot, true, resp->mutable_snapshot());
  resp->set_created(outcome.created);
  for (const auto& w : outcome.warnings) resp->add_warnings(w);
  resp->set_traces_checked(outcome.traces_checked);
  resp->set_trace_disagreements(outcome.trace_disagreements);
}

void TopologyToProto(const Serving& s, v1::GetTopologyResponse* out) {
  const fabric::Fabric& f = s.fabric;
  ToProto(s.info, true, out->mutable_snapshot());
  std::vector<int> order(f.nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int x, int y) {
    return std::make_pair(f.nodes[x].type, f.nodes[x].guid) <
           std::make_pair(f.nodes[y].type, f.nodes[y].guid);
  });
  std::vector<int> position(f.nodes.size());
  for (size_t i = 0; i < order.size(); ++i) {
    position[order[i]] = static_cast<int>(i);
    const fabric::Node& n = f.nodes[order[i]];
    v1::TopologyNode* node = out->add_nodes();
    node->set_guid(FormatGuid(n.guid));
    node->set_type(fabric::NodeTypeName(n.type));
    node->set_description(n.description);
    node->set_lid(n.lid);
    node->set_num_ports(n.num_ports);
    if (n.host >= 0) node->set_host(f.hosts[n.host].name);
  }
  struct Ends {
    int a_node, a_port, b_node, b_port, link;
  };
  std::vector<Ends> links;
  links.reserve(f.links.size());
  for (size_t i = 0; i < f.links.size(); ++i) {
    const fabric::Link& l = f.links[i];
    Ends e{position[l.a.node], l.a.port, position[l.b.node], l.b.port, static_cast<int>(i)};
    if (std::make_pair(e.b_node, e.b_port) < std::make_pair(e.a_node, e.a_port)) {
      std::swap(e.a_node, e.b_node);
      std::swap(e.a_port, e.b_port);
    }
    links.push_back(e);
  }
  std::sort(links.begin(), links.end(), [](const Ends& x, const Ends& y) {
    return std::make_pair(x.a_node, x.a_port) < std::make_pair(y.a_node, y.a_port);
  });
  for (const Ends& e : links) {
    const fabric::Link& l = f.links[e.link];
    v1::TopologyLink* link = out->add_links();
    link->set_a_node(e.a_node);
    link->set_a_port(e.a_port);
    link->set_b_node(e.b_node);
    link->set_b_port(e.b_port);
    link->set_width_lanes(l.width_lanes);
    link->set_speed(fabric::LinkSpeedName(l.speed));
    link->set_rate_gbps(l.data_rate_gbps);
  }
  for (const fabric::Host& h : f.hosts) out->add_hosts(h.name);
}

void ToProto(const db::SnapshotInfo& info, bool current, v1::SnapshotInfo* out) {
  out->set_id(info.id);
  out->set_created_unix_ms(info.created_unix_ms);
  out->set_source_kind(info.source_kind);
  out->set_source_name(info.source_name);
  out->set_content_hash(info.content_hash);
  out->set_num_switches(info.num_switches);
  out->set_num_cas(info.num_cas);
  out->set_num_routers(info.num_routers);
  out->set_num_aggregation(info.num_aggregation);
  out->set_num_links(info.num_links);
  out->set_num_hosts(info.num_hosts);
  out->set_num_anonymous(info.num_anonymous);
  out->set_current(current);
  out->set_num_forwarding_tables(info.num_forwarding_tables);
}

}  // namespace toporr::daemon
