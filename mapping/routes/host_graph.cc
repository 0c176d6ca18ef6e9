#include "mapping/routes/host_graph.h"

#include <algorithm>
#include <string>
#include <tuple>

namespace toporr::mapping {

using fabric::Fabric;
using fabric::LinkEnd;
using fabric::NodeType;

namespace {

// 0 for the `a` end of a link, 1 for the `b` end: the direction bit of a directed link
// leaving through `from`.
int DirectedLink(const Fabric& fabric, int link, const LinkEnd& from) {
  return 2 * link + (fabric.links[link].a == from ? 0 : 1);
}

absl::Status CheckLinks(const Fabric& fabric) {
  const int n = static_cast<int>(fabric.nodes.size());
  for (size_t i = 0; i < fabric.links.size(); ++i) {
    const auto& l = fabric.links[i];
    if (l.a.node < 0 || l.a.node >= n || l.b.node < 0 || l.b.node >= n) {
      return absl::InvalidArgumentError("link " + std::to_string(i) +
                                        " refers to a node outside 0.." + std::to_string(n - 1));
    }
  }
  for (size_t i = 0; i < fabric.nodes.size(); ++i) {
    for (const auto& p : fabric.nodes[i].ports) {
      if (p.link >= static_cast<int>(fabric.links.size())) {
        return absl::InvalidArgumentError(
            "port " + std::to_string(p.number) + " of node " + std::to_string(i) + " (\"" +
            fabric.nodes[i].description + "\") refers to link " + std::to_string(p.link) +
            ", but the fabric has " + std::to_string(fabric.links.size()) + " links");
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HostGraph> HostGraph::Build(const Fabric& fabric) {
  if (absl::Status s = CheckLinks(fabric); !s.ok()) return s;
  HostGraph g;

  // Effective rates: unknown (0) counts as the slowest known rate.
  double slowest_known = 0;
  for (const auto& l : fabric.links) {
    if (l.data_rate_gbps > 0 && (slowest_known == 0 || l.data_rate_gbps < slowest_known)) {
      slowest_known = l.data_rate_gbps;
    }
  }
  std::vector<double> eff(fabric.links.size());
  for (size_t i = 0; i < eff.size(); ++i) {
    eff[i] = fabric.links[i].data_rate_gbps > 0 ? fabric.links[i].data_rate_gbps : slowest_known;
  }
  g.rates_ = eff;
  std::sort(g.rates_.begin(), g.rates_.end());
  g.rates_.erase(std::unique(g.rates_.begin(), g.rates_.end()), g.rates_.end());
  if (g.rates_.size() >= kInfiniteRank) {
    return absl::InvalidArgumentError("the fabric has " + std::to_string(g.rates_.size()) +
                                      " distinct link rates; at most 65534 are supported");
  }
  g.link_rank_.resize(eff.size());
  for (size_t i = 0; i < eff.size(); ++i) {
    g.link_rank_[i] = static_cast<uint16_t>(
        std::lower_bound(g.rates_.begin(), g.rates_.end(), eff[i]) - g.rates_.begin());
  }

  // Switches and the switch-to-switch edges (self-cabled switch ports ignored).
  std::vector<int32_t> switch_of_node(fabric.nodes.size(), -1);
  for (size_t i = 0; i < fabric.nodes.size(); ++i) {
    if (fabric.nodes[i].type == NodeType::kSwitch) {
      switch_of_node[i] = static_cast<int32_t>(g.switch_node_.size());
      g.switch_node_.push_back(static_cast<int32_t>(i));
    }
  }
  std::vector<std::pair<int32_t, Edge>> edges;  // (source switch, edge)
  for (size_t li = 0; li < fabric.links.size(); ++li) {
    const auto& l = fabric.links[li];
    const int sa = switch_of_node[l.a.node], sb = switch_of_node[l.b.node];
    if (sa < 0 || sb < 0 || sa == sb) continue;
    const int link = static_cast<int>(li);
    edges.push_back({sa, Edge{sb, l.a.port, l.b.port, 2 * link, g.link_rank_[li]}});
    edges.push_back({sb, Edge{sa, l.b.port, l.a.port, 2 * link + 1, g.link_rank_[li]}});
  }
  std::sort(edges.begin(), edges.end(), [](const auto& x, const auto& y) {
    return std::tie(x.first, x.second.port) < std::tie(y.first, y.second.port);
  });
  g.edge_begin_.assign(g.switch_node_.size() + 1, 0);
  for (const auto& e : edges) ++g.edge_begin_[e.first + 1];
  for (size_t s = 0; s < g.switch_node_.size(); ++s) g.edge_begin_[s + 1] += g.edge_begin_[s];
  g.edges_.reserve(edges.size());
  for (const auto& e : edges) g.edges_.push_back(e.second);

  // Host attachments and direct host-to-host links.
  g.host_att_begin_.push_back(0);
  g.host_direct_begin_.push_back(0);
  std::vector<int32_t> att_of_switch(g.switch_node_.size(), -1);
  for (size_t h = 0; h < fabric.hosts.size(); ++h) {
    std::vector<int> cas = fabric.hosts[h].cas;
    std::sort(cas.begin(), cas.end());
    for (int ca : cas) {
      if (ca < 0 || ca >= static_cast<int>(fabric.nodes.size()) ||
          fabric.nodes[ca].type != NodeType::kCa) {
        return absl::InvalidArgumentError("host " + fabric.hosts[h].name + " lists node " +
                                          std::to_string(ca) + ", which is not a CA");
      }
      for (const auto& p : fabric.nodes[ca].ports) {  // ascending by number
        if (p.link < 0) continue;
        const LinkEnd self{ca, p.number};
        const LinkEnd& peer = fabric.Peer(p.link, self);
        const uint16_t rank = g.link_rank_[p.link];
        const int up = DirectedLink(fabric, p.link, self);
        if (switch_of_node[peer.node] >= 0) {
          const int sw = switch_of_node[peer.node];
          att_of_switch[sw] = 0;  // numbered below, ascending by switch
          g.atts_.push_back(Attachment{ca, p.number, sw, peer.port, -1, up, rank});
        } else if (fabric.nodes[peer.node].type == NodeType::kCa &&
                   fabric.nodes[peer.node].host >= 0 &&
                   fabric.nodes[peer.node].host != static_cast<int>(h)) {
          g.directs_.push_back(DirectLink{ca, p.number, fabric.nodes[peer.node].host, peer.node,
                                          peer.port, up, rank});
        }
      }
    }
    g.host_att_begin_.push_back(static_cast<int32_t>(g.atts_.size()));
    g.host_direct_begin_.push_back(static_cast<int32_t>(g.directs_.size()));
  }
  for (size_t s = 0; s < att_of_switch.size(); ++s) {
    if (att_of_switch[s] < 0) continue;
    att_of_switch[s] = static_cast<int32_t>(g.att_switch_.size());
    g.att_switch_.push_back(static_cast<int32_t>(s));
  }
  for (auto& a : g.atts_) a.att = att_of_switch[a.sw];
  return g;
}

void HostGraph::Search(int s, std::vector<int32_t>* dist, std::vector<uint16_t>* wide) const {
  const int n = num_switches();
  dist->assign(n, -1);
  wide->assign(n, 0);
  std::vector<int32_t> queue;
  queue.reserve(n);
  (*dist)[s] = 0;
  (*wide)[s] = kInfiniteRank;
  queue.push_back(s);
  // FIFO order finishes every switch at distance d before any at d + 1, so wide[u] is final
  // when u is expanded.
  for (size_t qi = 0; qi < queue.size(); ++qi) {
    const int u = queue[qi];
    const int32_t du = (*dist)[u];
    const uint16_t wu = (*wide)[u];
    for (int ei = edge_begin_[u]; ei < edge_begin_[u + 1]; ++ei) {
      const Edge& e = edges_[ei];
      const uint16_t w = std::min(wu, e.rank);
      int32_t& dv = (*dist)[e.to];
      if (dv < 0) {
        dv = du + 1;
        (*wide)[e.to] = w;
        queue.push_back(e.to);
      } else if (dv == du + 1 && w > (*wide)[e.to]) {
        (*wide)[e.to] = w;
      }
    }
  }
}

void HostGraph::ComputeToward(int t, Toward* toward) const {
  Search(t, &toward->dist, &toward->wide);
  const int n = num_switches();
  toward->first.assign(n, -1);
  toward->count.assign(n, 0);
  for (int u = 0; u < n; ++u) {
    if (toward->dist[u] <= 0) continue;
    for (int ei = edge_begin_[u]; ei < edge_begin_[u + 1]; ++ei) {
      if (!IsCandidate(edges_[ei], u, *toward)) continue;
      if (toward->first[u] < 0) toward->first[u] = ei;
      ++toward->count[u];
    }
  }
}

void HostGraph::AttachmentTables(std::vector<int32_t>* hops, std::vector<uint16_t>* wide,
                                 std::vector<Toward>* toward) const {
  const size_t na = att_switch_.size();
  hops->assign(na * na, -1);
  wide->assign(na * na, 0);
  if (toward) toward->resize(na);
  Toward local;
  for (size_t i = 0; i < na; ++i) {
    Toward& tw = toward ? (*toward)[i] : local;
    if (toward) {
      ComputeToward(att_switch_[i], &tw);
    } else {
      Search(att_switch_[i], &tw.dist, &tw.wide);
    }
    for (size_t j = 0; j < na; ++j) {
      (*hops)[i * na + j] = tw.dist[att_switch_[j]];
      (*wide)[i * na + j] = tw.wide[att_switch_[j]];
    }
  }
}

int HostGraph::NextEdge(int u, int key, const Toward& toward) const {
  const int count = toward.count[u];
  if (count <= 1) return toward.first[u];
  int pick = key % count;
  for (int ei = toward.first[u];; ++ei) {
    if (IsCandidate(edges_[ei], u, toward) && pick-- == 0) return ei;
  }
}

void HostGraph::ChoiceKey(int h, std::vector<uint32_t>* key) const {
  key->clear();
  if (host_direct_begin_[h] != host_direct_begin_[h + 1]) return;
  for (int i = host_att_begin_[h]; i < host_att_begin_[h + 1]; ++i) {
    key->push_back(static_cast<uint32_t>(atts_[i].att));
    key->push_back(atts_[i].rank);
  }
  // Hosts with no attachment share the key "unreachable from everything".
  key->push_back(0xFFFFFFFFu);
}

HostGraph::PairChoice HostGraph::Choose(int a, int b, const int32_t* att_hops,
                                        const uint16_t* att_wide) const {
  PairChoice best;
  for (int i = host_direct_begin_[a]; i < host_direct_begin_[a + 1]; ++i) {
    const DirectLink& d = directs_[i];
    if (d.peer_host == b && (best.direct < 0 || d.rank > best.rank)) {
      best.hops = 0;
      best.rank = d.rank;
      best.direct = i;
    }
  }
  if (best.direct >= 0) return best;
  const int na = num_attachment_switches();
  for (int i = host_att_begin_[a]; i < host_att_begin_[a + 1]; ++i) {
    const Attachment& x = atts_[i];
    const int32_t* hop_row = att_hops + static_cast<size_t>(x.att) * na;
    const uint16_t* wide_row = att_wide + static_cast<size_t>(x.att) * na;
    for (int j = host_att_begin_[b]; j < host_att_begin_[b + 1]; ++j) {
      const Attachment& y = atts_[j];
      const int32_t links = hop_row[y.att];
      if (links < 0) continue;
      const int32_t hops = links + 1;
      const uint16_t rank = std::min({x.rank, y.rank, wide_row[y.att]});
      if (best.hops < 0 || hops < best.hops || (hops == best.hops && rank > best.rank)) {
        best.hops = hops;
        best.rank = rank;
        best.src = i;
        best.dst = j;
      }
    }
  }
  return best;
}

void HostGraph::Walk(const PairChoice& choice, const Toward* toward, std::vector<PathHop>* hops,
                     std::vector<int32_t>* links) const {
  if (hops) hops->clear();
  if (links) links->clear();
  if (choice.direct >= 0) {
    const DirectLink& d = directs_[choice.direct];
    if (hops) *hops = {{d.ca_node, -1, d.ca_port}, {d.peer_node, d.peer_port, -1}};
    if (links) links->push_back(d.directed_link);
    return;
  }
  const Attachment& s = atts_[choice.src];
  const Attachment& t = atts_[choice.dst];
  if (hops) hops->push_back({s.ca_node, -1, s.ca_port});
  if (links) links->push_back(s.up_link);
  int u = s.sw;
  int in = s.sw_port;
  while (u != t.sw) {
    const Edge& e = edges_[NextEdge(u, t.sw_port, *toward)];
    if (hops) hops->push_back({switch_node_[u], in, e.port});
    if (links) links->push_back(e.directed_link);
    in = e.peer_port;
    u = e.to;
  }
  if (hops) {
    hops->push_back({switch_node_[u], in, t.sw_port});
    hops->push_back({t.ca_node, t.ca_port, -1});
  }
  if (links) links->push_back(t.up_link ^ 1);
}

}  // namespace toporr::mapping
