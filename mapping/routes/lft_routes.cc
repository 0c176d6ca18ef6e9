#include "mapping/routes/lft_routes.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace toporr::mapping {

using fabric::Fabric;
using fabric::ForwardingTables;
using fabric::Node;
using fabric::NodeType;

namespace {

std::string Guid(uint64_t g) { return fabric::FormatGuid(g); }

}  // namespace

absl::StatusOr<std::unique_ptr<LftRoutes>> LftRoutes::Create(const Fabric& fabric,
                                                             ForwardingTables tables,
                                                             LftRoutesOptions options) {
  absl::StatusOr<HostGraph> graph = HostGraph::Build(fabric);
  if (!graph.ok()) return graph.status();
  std::unique_ptr<LftRoutes> routes(
      new LftRoutes(fabric, std::move(tables), *std::move(graph), options));
  absl::Status s = routes->Init();
  if (!s.ok()) return s;
  if (options.check_routes) {
    s = routes->CheckHostRoutes();
    if (!s.ok()) return s;
  }
  return routes;
}

LftRoutes::LftRoutes(Fabric fabric, ForwardingTables tables, HostGraph graph,
                     LftRoutesOptions options)
    : fabric_(std::move(fabric)),
      tables_(std::move(tables)),
      graph_(std::move(graph)),
      options_(options) {}

std::string LftRoutes::NodeName(int node) const {
  const Node& n = fabric_.nodes[node];
  return absl::StrCat("'", n.description, "' (", Guid(n.guid), ")");
}

absl::Status LftRoutes::Init() {
  const int n = static_cast<int>(fabric_.nodes.size());
  // Port -> cable peer, flat per node.
  peer_begin_.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    const Node& node = fabric_.nodes[i];
    int top = node.num_ports;
    for (const auto& p : node.ports) top = std::max(top, p.number);
    peer_begin_[i + 1] = peer_begin_[i] + top + 1;
  }
  peers_.assign(peer_begin_[n], Peer{});
  for (size_t l = 0; l < fabric_.links.size(); ++l) {
    const fabric::Link& link = fabric_.links[l];
    peers_[peer_begin_[link.a.node] + link.a.port] = {2 * static_cast<int32_t>(l), link.b.node,
                                                      link.b.port};
    peers_[peer_begin_[link.b.node] + link.b.port] = {2 * static_cast<int32_t>(l) + 1, link.a.node,
                                                      link.a.port};
  }

  // Switch -> table.
  node_table_.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    if (fabric_.nodes[i].type == NodeType::kSwitch)
      node_table_[i] = tables_.Find(fabric_.nodes[i].guid);
  }

  // LID -> owning port. Switch ports share the port-0 LID.
  auto claim = [&](uint32_t base, uint8_t lmc, PortRef owner) -> absl::Status {
    if (base == 0) return absl::OkStatus();
    const uint32_t end = base + (1u << lmc);
    if (end - 1 > fabric::kMaxUnicastLid) {
      return absl::InvalidArgumentError(absl::StrCat(NodeName(owner.node), " port ", owner.port,
                                                     " has LIDs ", base, "-", end - 1,
                                                     ", beyond the unicast range"));
    }
    if (lid_owner_.size() < end) lid_owner_.resize(end);
    for (uint32_t lid = base; lid < end; ++lid) {
      PortRef& o = lid_owner_[lid];
      if (o.node >= 0 && !(o == owner)) {
        return absl::InvalidArgumentError(
            absl::StrCat("LID ", lid, " is claimed by ", NodeName(o.node), " port ", o.port,
                         " and by ", NodeName(owner.node), " port ", owner.port));
      }
      o = owner;
    }
    return absl::OkStatus();
  };
  for (int i = 0; i < n; ++i) {
    const Node& node = fabric_.nodes[i];
    if (node.type == NodeType::kSwitch) {
      absl::Status s = claim(node.lid, node.lmc, {i, 0});
      if (!s.ok()) return s;
      continue;
    }
    for (const auto& p : node.ports) {
      absl::Status s = claim(p.lid, p.lmc, {i, p.number});
      if (!s.ok()) return s;
    }
  }

  // The dump's view of who owns each LID must be the fabric's.
  const std::vector<uint64_t>& named = tables_.lid_port_guid();
  for (uint32_t lid = 1; lid < named.size() && lid < lid_owner_.size(); ++lid) {
    const PortRef o = lid_owner_[lid];
    if (named[lid] == 0 || o.node < 0) continue;
    const fabric::Port* p = fabric_.nodes[o.node].FindPort(o.port);
    const uint64_t guid = p != nullptr ? p->guid : fabric_.nodes[o.node].guid;
    if (guid != named[lid]) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the forwarding tables and the fabric disagree on LID ", lid, ": the dump names port ",
          Guid(named[lid]), ", the fabric ", NodeName(o.node), " port ", o.port, " (GUID ",
          Guid(guid), "); were they taken at different times?"));
    }
  }

  // Host ports.
  host_port_.assign(fabric_.hosts.size(), PortRef{});
  for (size_t h = 0; h < fabric_.hosts.size(); ++h) {
    for (int ca : fabric_.hosts[h].cas) {
      for (const auto& p : fabric_.nodes[ca].ports) {
        if (p.link >= 0 && p.lid != 0) {
          host_port_[h] = {ca, p.number};
          break;
        }
      }
      if (host_port_[h].node >= 0) break;
    }
    const PortRef hp = host_port_[h];
    if (hp.node < 0) continue;
    const fabric::Port* p = fabric_.nodes[hp.node].FindPort(hp.port);
    if (options_.path_index < 0 || options_.path_index >= (1 << p->lmc)) {
      return absl::InvalidArgumentError(
          absl::StrCat("path_index ", options_.path_index, " is outside the LMC range of host '",
                       fabric_.hosts[h].name, "' (", NodeName(hp.node), " port ", hp.port, " owns ",
                       1 << p->lmc, " LIDs)"));
    }
  }
  return absl::OkStatus();
}

const LftRoutes::Peer* LftRoutes::PeerOf(int node, int port) const {
  if (port < 0 || peer_begin_[node] + port >= peer_begin_[node + 1]) return nullptr;
  const Peer* p = &peers_[peer_begin_[node] + port];
  return p->link < 0 ? nullptr : p;
}

PortRef LftRoutes::LidOwner(uint32_t lid) const {
  return lid < lid_owner_.size() ? lid_owner_[lid] : PortRef{};
}

PortRef LftRoutes::HostPort(int host) const {
  return host >= 0 && host < num_hosts() ? host_port_[host] : PortRef{};
}

uint32_t LftRoutes::HostLid(int host) const {
  const PortRef p = HostPort(host);
  if (p.node < 0) return 0;
  return fabric_.nodes[p.node].FindPort(p.port)->lid + options_.path_index;
}

absl::Status LftRoutes::SwitchStep(int sw, uint32_t dlid, PortRef owner, Step* step) const {
  const int t = node_table_[sw];
  if (t < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("dead end: the route to LID ", dlid, " enters switch ", NodeName(sw),
                     ", which has no forwarding table in the dump"));
  }
  const uint8_t out = tables_.switches()[t].OutPort(dlid);
  if (out == ForwardingTables::kUnsetPort) {
    return absl::FailedPreconditionError(
        absl::StrCat("dead end: switch ", NodeName(sw), " has no forwarding entry for LID ", dlid));
  }
  if (out == 0) {
    if (owner.node != sw) {
      return absl::FailedPreconditionError(
          absl::StrCat("dead end: switch ", NodeName(sw), " forwards LID ", dlid,
                       " to itself (port 0), but LID ", dlid, " is not the switch's"));
    }
    *step = Step{};
    step->delivered = true;
    return absl::OkStatus();
  }
  const Peer* p = PeerOf(sw, out);
  if (p == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("dead end: switch ", NodeName(sw),
                                                      " forwards LID ", dlid, " to port ", out,
                                                      ", which is not connected"));
  }
  step->out_port = out;
  step->next_node = p->node;
  step->next_port = p->port;
  step->link = p->link;
  step->delivered = false;
  if (fabric_.nodes[p->node].type != NodeType::kSwitch) {
    if (!(owner == PortRef{p->node, p->port})) {
      return absl::FailedPreconditionError(absl::StrCat(
          "dead end: switch ", NodeName(sw), " forwards LID ", dlid, " by port ", out, " to ",
          NodeName(p->node), " port ", p->port, ", which does not own LID ", dlid));
    }
    step->delivered = true;
  }
  return absl::OkStatus();
}

absl::Status LftRoutes::Walk(PortRef src, uint32_t dlid, bool links_only, LftRoute* route) const {
  route->dlid = dlid;
  route->hops.clear();
  route->directed_links.clear();
  route->switches = 0;
  route->bottleneck_gbps = 0;
  if (src.node < 0 || src.node >= static_cast<int>(fabric_.nodes.size())) {
    return absl::InvalidArgumentError(absl::StrCat("node index ", src.node, " is out of range"));
  }
  if (dlid == 0 || dlid > fabric::kMaxUnicastLid) {
    return absl::InvalidArgumentError(absl::StrCat("LID ", dlid, " is not a unicast LID"));
  }
  const PortRef owner = LidOwner(dlid);
  if (owner.node < 0) {
    return absl::NotFoundError(absl::StrCat("no port of the fabric owns LID ", dlid));
  }
  auto push = [&](int node, int in, int out) {
    if (!links_only) route->hops.push_back(PathHop{node, in, out});
  };
  auto cross = [&](int32_t link) {
    route->directed_links.push_back(link);
    if (links_only) return;
    const double r = link_gbps(link);
    route->bottleneck_gbps =
        route->directed_links.size() == 1 ? r : std::min(route->bottleneck_gbps, r);
  };

  int cur = src.node;
  int in = -1;
  if (fabric_.nodes[cur].type != NodeType::kSwitch) {
    const Peer* p = PeerOf(cur, src.port);
    if (p == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(NodeName(cur), " port ", src.port, " is not connected"));
    }
    if (owner == src) {  // to itself: nothing crosses the fabric
      push(cur, -1, -1);
      return absl::OkStatus();
    }
    push(cur, -1, src.port);
    cross(p->link);
    if (fabric_.nodes[p->node].type != NodeType::kSwitch) {
      if (!(owner == PortRef{p->node, p->port})) {
        return absl::FailedPreconditionError(
            absl::StrCat(NodeName(cur), " port ", src.port, " is cabled to ", NodeName(p->node),
                         " port ", p->port, ", which does not own LID ", dlid));
      }
      push(p->node, p->port, -1);
      return absl::OkStatus();
    }
    cur = p->node;
    in = p->port;
  } else if (src.port != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a route from switch ", NodeName(cur), " starts at port 0, not ", src.port));
  }

  for (int n = 1;; ++n) {
    if (n > kMaxSwitchHops) {
      return absl::FailedPreconditionError(
          absl::StrCat("routing loop: LID ", dlid, " is not delivered after ", kMaxSwitchHops,
                       " switches; the walk was at switch ", NodeName(cur)));
    }
    ++route->switches;
    Step step;
    absl::Status s = SwitchStep(cur, dlid, owner, &step);
    if (!s.ok()) return s;
    if (step.link < 0) {  // the switch is the destination
      push(cur, in, -1);
      return absl::OkStatus();
    }
    push(cur, in, step.out_port);
    cross(step.link);
    if (step.delivered) {
      push(step.next_node, step.next_port, -1);
      return absl::OkStatus();
    }
    cur = step.next_node;
    in = step.next_port;
  }
}

absl::StatusOr<LftRoute> LftRoutes::RouteToLid(PortRef src, uint32_t dlid) const {
  LftRoute r;
  absl::Status s = Walk(src, dlid, /*links_only=*/false, &r);
  if (!s.ok()) return s;
  return r;
}

absl::StatusOr<LftRoute> LftRoutes::PortRoute(PortRef src, PortRef dst, int path_index) const {
  if (dst.node < 0 || dst.node >= static_cast<int>(fabric_.nodes.size())) {
    return absl::InvalidArgumentError(absl::StrCat("node index ", dst.node, " is out of range"));
  }
  const Node& n = fabric_.nodes[dst.node];
  uint32_t base = 0;
  uint8_t lmc = 0;
  if (n.type == NodeType::kSwitch) {
    base = n.lid;
    lmc = n.lmc;
  } else if (const fabric::Port* p = n.FindPort(dst.port)) {
    base = p->lid;
    lmc = p->lmc;
  }
  if (base == 0) {
    return absl::NotFoundError(absl::StrCat(NodeName(dst.node), " port ", dst.port, " has no LID"));
  }
  if (path_index < 0 || path_index >= (1 << lmc)) {
    return absl::InvalidArgumentError(absl::StrCat("path index ", path_index, " is outside the ",
                                                   1 << lmc, " LIDs of ", NodeName(dst.node)));
  }
  return RouteToLid(src, base + path_index);
}

absl::StatusOr<LftRoute> LftRoutes::HostRoute(int a, int b) const {
  if (a < 0 || a >= num_hosts() || b < 0 || b >= num_hosts()) {
    return absl::InvalidArgumentError(absl::StrCat("host index out of range: ", a, ", ", b));
  }
  if (a == b) return LftRoute{};
  for (int h : {a, b}) {
    if (host_port_[h].node < 0) {
      return absl::NotFoundError(
          absl::StrCat("host '", fabric_.hosts[h].name, "' has no cabled port with a LID"));
    }
  }
  return RouteToLid(host_port_[a], HostLid(b));
}

double LftRoutes::link_gbps(int directed_link) const {
  const double r = graph_.directed_link_rate(directed_link);
  return r > 0 ? r : options_.gbps_when_no_rate_known;
}

void LftRoutes::Route(int a, int b, std::vector<int32_t>* directed_links) const {
  directed_links->clear();
  if (a == b || HostPort(a).node < 0 || HostPort(b).node < 0) return;
  LftRoute r;
  r.directed_links.swap(*directed_links);  // reuse the caller's buffer
  absl::Status s = Walk(host_port_[a], HostLid(b), /*links_only=*/true, &r);
  r.directed_links.swap(*directed_links);
  if (!s.ok()) directed_links->clear();
}

absl::StatusOr<std::unique_ptr<RouteSource>> LftRoutes::ForJob(
    const std::vector<int>& fabric_hosts) const {
  std::vector<bool> seen(num_hosts(), false);
  for (int h : fabric_hosts) {
    if (h < 0 || h >= num_hosts()) {
      return absl::InvalidArgumentError(absl::StrCat("host index ", h, " is out of range"));
    }
    if (seen[h]) {
      return absl::InvalidArgumentError(
          absl::StrCat("host '", fabric_.hosts[h].name, "' is listed twice"));
    }
    seen[h] = true;
    if (host_port_[h].node < 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "host '", fabric_.hosts[h].name, "' has no cabled port with a LID, so no route"));
    }
  }
  if (!options_.check_routes) {
    LftRoute r;
    for (int a : fabric_hosts) {
      for (int b : fabric_hosts) {
        if (a == b) continue;
        absl::Status s = Walk(host_port_[a], HostLid(b), /*links_only=*/true, &r);
        if (!s.ok()) return s;
      }
    }
  }
  return JobView(*this, fabric_hosts);
}

LftRoutes::DestinationScratch::DestinationScratch(size_t n)
    : epoch(n, 0), state(n, 0), dist(n, 0), next(n, -1), link(n, -1) {}

void LftRoutes::DestinationScratch::Touch(int node) {
  if (epoch[node] != now) {
    epoch[node] = now;
    state[node] = 0;
  }
}

int LftRoutes::WalkToSettled(int start, uint32_t dlid, PortRef owner, bool need_link,
                             DestinationScratch& sc, std::vector<int32_t>* path) const {
  for (int cur = start;;) {
    sc.Touch(cur);
    if (sc.state[cur] == 2) return cur;
    if (sc.state[cur] == 1 || static_cast<int>(path->size()) >= kMaxSwitchHops) {
      return kWalkFailed;
    }
    sc.state[cur] = 1;
    path->push_back(cur);
    Step step;
    if (!SwitchStep(cur, dlid, owner, &step).ok() || (need_link && step.link < 0)) {
      return kWalkFailed;
    }
    sc.link[cur] = step.link;
    sc.next[cur] = step.delivered ? -1 : step.next_node;
    if (step.delivered) return kWalkDelivered;
    cur = step.next_node;
  }
}

absl::Status LftRoutes::CheckHostRoutes() const {
  // Counting walks every (attachment switch, destination) once, which is the check.
  return AllPairsLinkSharing().status();
}

absl::StatusOr<std::vector<int64_t>> LftRoutes::LinkSharing(
    const std::vector<std::pair<int, int>>& host_pairs) const {
  std::vector<int64_t> count(num_directed_links(), 0);
  LftRoute r;
  for (const auto& [a, b] : host_pairs) {
    if (a < 0 || a >= num_hosts() || b < 0 || b >= num_hosts()) {
      return absl::InvalidArgumentError(absl::StrCat("host index out of range: ", a, ", ", b));
    }
    if (a == b) continue;
    for (int h : {a, b}) {
      if (host_port_[h].node < 0) {
        return absl::NotFoundError(
            absl::StrCat("host '", fabric_.hosts[h].name, "' has no cabled port with a LID"));
      }
    }
    absl::Status s = Walk(host_port_[a], HostLid(b), /*links_only=*/true, &r);
    if (!s.ok()) return s;
    for (int32_t l : r.directed_links) ++count[l];
  }
  return count;
}

absl::StatusOr<std::vector<int64_t>> LftRoutes::AllPairsLinkSharing() const {
  std::vector<int64_t> count(num_directed_links(), 0);
  const int n = static_cast<int>(fabric_.nodes.size());
  // Sources per attachment switch; hosts cabled to a CA are walked pair by pair.
  std::vector<int64_t> sources_at(n, 0);
  std::vector<int> routed, direct;
  for (int a = 0; a < num_hosts(); ++a) {
    if (host_port_[a].node < 0) continue;
    routed.push_back(a);
    const Peer* up = PeerOf(host_port_[a].node, host_port_[a].port);
    if (fabric_.nodes[up->node].type == NodeType::kSwitch) {
      ++sources_at[up->node];
    } else {
      direct.push_back(a);
    }
  }
  const int64_t others = static_cast<int64_t>(routed.size()) - 1;

  DestinationScratch sc(n);
  std::vector<int64_t> acc(n, 0);
  std::vector<std::vector<int32_t>> by_dist(kMaxSwitchHops + 1);
  std::vector<int32_t> path;
  LftRoute r;
  for (int b : routed) {
    const uint32_t dlid = HostLid(b);
    const PortRef owner = LidOwner(dlid);
    ++sc.now;
    for (auto& v : by_dist) v.clear();
    // The routing tree toward dlid over the attachment switches.
    for (int a : routed) {
      if (a == b) continue;
      const Peer* up = PeerOf(host_port_[a].node, host_port_[a].port);
      if (fabric_.nodes[up->node].type != NodeType::kSwitch) continue;
      path.clear();
      const int end = WalkToSettled(up->node, dlid, owner, /*need_link=*/false, sc, &path);
      const bool failed = end == kWalkFailed;
      const int tail = end >= 0 ? sc.dist[end] : 0;  // dist of the first known switch
      if (failed || tail + static_cast<int>(path.size()) > kMaxSwitchHops) {
        absl::Status s = Walk(host_port_[a], dlid, /*links_only=*/true, &r);
        if (s.ok()) {
          s = absl::FailedPreconditionError(absl::StrCat("routing loop: the route to LID ", dlid,
                                                         " exceeds ", kMaxSwitchHops, " switches"));
        }
        return s;
      }
      for (size_t i = 0; i < path.size(); ++i) {
        const int node = path[i];
        sc.state[node] = 2;
        sc.dist[node] = tail + static_cast<int>(path.size() - i);
        acc[node] = 0;
        by_dist[sc.dist[node]].push_back(node);
      }
    }
    // Push the source counts down the tree, farthest switches first.
    for (int d = kMaxSwitchHops; d >= 1; --d) {
      for (int node : by_dist[d]) acc[node] += sources_at[node];
    }
    const PortRef bp = host_port_[b];
    const Peer* bup = PeerOf(bp.node, bp.port);
    for (int d = kMaxSwitchHops; d >= 1; --d) {
      for (int node : by_dist[d]) {
        int64_t flow = acc[node];
        if (node == bup->node) flow -= 1;  // b is no source to itself
        if (sc.link[node] >= 0) count[sc.link[node]] += flow;
        if (sc.next[node] >= 0) acc[sc.next[node]] += flow;
      }
    }
    // Sources cabled to another CA.
    for (int a : direct) {
      if (a == b) continue;
      absl::Status s = Walk(host_port_[a], dlid, /*links_only=*/true, &r);
      if (!s.ok()) return s;
      for (int32_t l : r.directed_links) ++count[l];
    }
  }
  // Every switch-attached source's cable carries its routes to all other hosts.
  for (int a : routed) {
    const Peer* up = PeerOf(host_port_[a].node, host_port_[a].port);
    if (fabric_.nodes[up->node].type == NodeType::kSwitch) count[up->link] += others;
  }
  return count;
}

LftRoutes::SwitchRouteTable LftRoutes::BuildSwitchRouteTable() const {
  SwitchRouteTable t;
  const int n = static_cast<int>(fabric_.nodes.size());
  t.num_hosts = num_hosts();
  t.row_of_node.assign(n, -1);
  int rows = 0;
  for (int a = 0; a < num_hosts(); ++a) {
    if (host_port_[a].node < 0) continue;
    const Peer* up = PeerOf(host_port_[a].node, host_port_[a].port);
    if (up == nullptr || fabric_.nodes[up->node].type != NodeType::kSwitch) continue;
    if (t.row_of_node[up->node] < 0) t.row_of_node[up->node] = rows++;
  }
  const size_t cells = static_cast<size_t>(rows) * t.num_hosts;
  t.switches.assign(cells, SwitchRouteTable::kNoRoute);
  t.rate.assign(cells, 0);
  // Rates are compared as doubles (min) and stored as palette indices.
  std::map<double, uint16_t> rate_index;
  std::vector<int> row_nodes(rows);
  for (int node = 0; node < n; ++node)
    if (t.row_of_node[node] >= 0) row_nodes[t.row_of_node[node]] = node;

  // Per destination: dist/wide of each switch on some route, memoised by epoch.
  DestinationScratch sc(n);
  std::vector<double> wide(n, 0.0);
  std::vector<int32_t> path;
  for (int b = 0; b < num_hosts(); ++b) {
    const uint32_t dlid = HostLid(b);
    if (dlid == 0) continue;
    const PortRef owner = LidOwner(dlid);
    ++sc.now;
    for (int r = 0; r < rows; ++r) {
      path.clear();
      // need_link: a dead end, or a switch owning a host's LID, is no host route.
      const int end = WalkToSettled(row_nodes[r], dlid, owner, /*need_link=*/true, sc, &path);
      bool failed = end == kWalkFailed;
      int tail = 0;
      double tail_wide = 0.0;
      if (end >= 0) {
        tail = sc.dist[end];
        tail_wide = wide[end];
        failed = tail < 0;
      } else if (end == kWalkDelivered) {
        // The delivering switch is settled here (1 switch, its cable to b); the walk's
        // earlier switches are settled below from it.
        const int last = path.back();
        sc.state[last] = 2;
        sc.dist[last] = 1;
        wide[last] = link_gbps(sc.link[last]);
        path.pop_back();
        tail = 1;
        tail_wide = wide[last];
      }
      // Unwind the walk from its far end, closest switches first.
      for (size_t i = path.size(); i-- > 0;) {
        const int node = path[i];
        sc.state[node] = 2;
        if (failed) {
          sc.dist[node] = -1;
          continue;
        }
        const int d = tail + static_cast<int>(path.size() - i);
        const double w =
            std::min(link_gbps(sc.link[node]), i + 1 < path.size() ? wide[path[i + 1]] : tail_wide);
        sc.dist[node] = d;
        wide[node] = w;
      }
      const int start = row_nodes[r];
      const size_t cell = static_cast<size_t>(r) * t.num_hosts + b;
      if (!failed && sc.dist[start] > 0 && sc.dist[start] < SwitchRouteTable::kNoRoute) {
        t.switches[cell] = static_cast<uint8_t>(sc.dist[start]);
        auto [it, added] = rate_index.emplace(wide[start], t.rates.size());
        if (added) t.rates.push_back(wide[start]);
        t.rate[cell] = it->second;
      }
    }
  }
  return t;
}

}  // namespace toporr::mapping
