// The part of a fabric that host-to-host paths can use, in a compact form shared by
// HostCosts (mapping/costs/host_costs.h) and FabricRoutes (fabric_routes.h), so that both pick
// exactly the same path for a pair of hosts.
//
// What may carry host traffic:
//   - Transit nodes are switches only. CAs (hosts, anonymous endpoints, SHARP aggregation
//     nodes) never forward, and routers are treated as endpoints: a host path never crosses a
//     router (inter-subnet routing is out of scope).
//   - A switch port cabled to another port of the same switch is ignored.
//   - A host attaches through each port of each of its CAs that is cabled to a switch
//     (multi-rail and dual-homed hosts have several attachments). A CA port cabled straight to
//     a CA port of another host is a direct link (0 switches).
//
// Link rates: every link gets an effective rate. A link whose data rate is unknown (0 in the
// Fabric: width or speed not reported) counts as the SLOWEST KNOWN rate in the fabric, a
// conservative guess that keeps it from looking faster than its neighbours. Only when no link
// of the fabric has a known rate are all effective rates 0. Rates are stored as ranks into a
// sorted table of the distinct effective rates, so bottleneck comparisons are exact.
//
// Path choice (the contract both users rely on):
//   1. Among the attachment pairs of hosts a and b (source attachments in ascending
//      (CA node index, CA port), destination ones likewise, source-major), take the pair with
//      the fewest switches, then the widest bottleneck, then the first in that order. A direct
//      link, if any, beats every switched pair (the widest direct link, then the first).
//   2. Between the two attachment switches, follow destination-based next hops, as an LFT
//      would. At switch u the candidate ports are those whose link leads one step closer to
//      the destination switch t and keeps the widest bottleneck still achievable from u;
//      every path made of candidates is a widest-shortest path (fewest switches, then largest
//      bottleneck). Among the k candidates (ascending port number) u takes number
//      (p mod k), p = the destination host's port number on t. With k = 1 that is the only
//      candidate; otherwise destinations on one leaf spread over the up-links the way
//      OpenSM's min-hop / D-mod-k routing spreads them. (Always taking the lowest port would
//      send every leaf-to-leaf message through the same spine and show the contention
//      predictor hot spots a routed fabric does not have.) The choice depends only on the
//      destination port, never on the source, as with real forwarding tables.
//
// Immutable after Build(); const methods are safe from several threads.
#ifndef TOPORR_MAPPING_ROUTES_HOST_GRAPH_H_
#define TOPORR_MAPPING_ROUTES_HOST_GRAPH_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "fabric/fabric.h"

namespace toporr::mapping {

// One node of a host path. `node` indexes Fabric::nodes. The first element is the source CA
// (in_port -1, out_port its port), the last the destination CA (in_port its port,
// out_port -1); switches in between carry the port the path enters and leaves by.
struct PathHop {
  int32_t node = -1;
  int32_t in_port = -1;
  int32_t out_port = -1;
};

class HostGraph {
 public:
  // Rank meaning "no link yet" (the bottleneck of an empty switch path): wider than any rate.
  static constexpr uint16_t kInfiniteRank = 0xFFFF;

  // One direction of a switch-to-switch cable, stored with its source switch.
  struct Edge {
    int32_t to = -1;             // switch index (not node index)
    int32_t port = 0;            // port on the source switch
    int32_t peer_port = 0;       // port on `to`
    int32_t directed_link = -1;  // 2 * link + (source switch is Link::a ? 0 : 1)
    uint16_t rank = 0;           // effective rate rank
  };

  // A host port cabled to a switch.
  struct Attachment {
    int32_t ca_node = -1;
    int32_t ca_port = 0;
    int32_t sw = -1;  // switch index
    int32_t sw_port = 0;
    int32_t att = -1;      // index into the attachment switches
    int32_t up_link = -1;  // directed link CA -> switch
    uint16_t rank = 0;
  };

  // A host port cabled to a port of another host's CA.
  struct DirectLink {
    int32_t ca_node = -1;
    int32_t ca_port = 0;
    int32_t peer_host = -1;
    int32_t peer_node = -1;
    int32_t peer_port = 0;
    int32_t directed_link = -1;  // this host -> peer
    uint16_t rank = 0;
  };

  // How hosts a and b are best connected; hops < 0 when they are not.
  struct PairChoice {
    int32_t hops = -1;           // switches on the path
    uint16_t rank = 0;           // bottleneck rank
    int32_t src = -1, dst = -1;  // attachment indices (global), when switched
    int32_t direct = -1;         // direct-link index (global), when hops == 0
  };

  // Copies what it needs; `fabric` may be freed afterwards. kInvalidArgument when the fabric
  // is inconsistent (a host lists a node that is not a CA, a port names a missing link...).
  static absl::StatusOr<HostGraph> Build(const fabric::Fabric& fabric);

  int num_hosts() const { return static_cast<int>(host_att_begin_.size()) - 1; }
  int num_switches() const { return static_cast<int>(switch_node_.size()); }
  int num_attachment_switches() const { return static_cast<int>(att_switch_.size()); }
  int num_links() const { return static_cast<int>(link_rank_.size()); }
  // Switch index of attachment switch `att`.
  int attachment_switch(int att) const { return att_switch_[att]; }
  int switch_node(int sw) const { return switch_node_[sw]; }

  // Effective rate of a rank (kInfiniteRank is not a rate).
  double rate(uint16_t rank) const { return rates_[rank]; }
  // Effective rate of directed link `dl`.
  double directed_link_rate(int dl) const { return rates_[link_rank_[dl / 2]]; }

  // Widest-shortest search from switch `s` over all switches: (*dist)[u] = switch-to-switch
  // links from s to u (-1 unreachable), (*wide)[u] = largest bottleneck rank over those
  // shortest paths (kInfiniteRank at s itself).
  void Search(int s, std::vector<int32_t>* dist, std::vector<uint16_t>* wide) const;

  // Everything rule 2 needs to route toward destination switch t, per switch u: Search(t)
  // (`dist`, `wide`) and the candidate edges, which are the first `count[u]` edges of u from
  // index `first[u]` on that satisfy rule 2 (count 0: t itself or unreachable).
  struct Toward {
    std::vector<int32_t> dist;
    std::vector<uint16_t> wide;
    std::vector<int32_t> first;
    std::vector<uint16_t> count;
  };
  void ComputeToward(int t, Toward* toward) const;

  // The attachment-switch tables Choose needs, row-major num_attachment_switches()^2:
  // switch-to-switch links (-1 unreachable) and widest bottleneck rank. When `toward` is not
  // null it receives ComputeToward of every attachment switch, by attachment index.
  void AttachmentTables(std::vector<int32_t>* hops, std::vector<uint16_t>* wide,
                        std::vector<Toward>* toward) const;

  // True when host h reaches the fabric through exactly one switch port and has no direct
  // CA-to-CA cable: Choose(h, g) for another such host g is then
  //   hops = att_hops[att_h][att_g] + 1, rank = min(rank_h, rank_g, att_wide[att_h][att_g])
  // (unreachable when att_hops < 0), which table fills use without calling Choose.
  bool SingleAttachment(int h, int* att, uint16_t* rank) const {
    if (host_direct_begin_[h] != host_direct_begin_[h + 1] ||
        host_att_begin_[h + 1] - host_att_begin_[h] != 1) {
      return false;
    }
    *att = atts_[host_att_begin_[h]].att;
    *rank = atts_[host_att_begin_[h]].rank;
    return true;
  }

  // Rule 1 above, given the AttachmentTables. Host indices must be valid.
  PairChoice Choose(int a, int b, const int32_t* att_hops, const uint16_t* att_wide) const;

  // Expands a choice into nodes and ports (`hops`, may be null) and directed links
  // (`links`, may be null), following rule 2. `toward` is ComputeToward of the destination
  // attachment's switch (may be null for a direct link). Both vectors are cleared first.
  // Precondition: choice.hops >= 0.
  void Walk(const PairChoice& choice, const Toward* toward, std::vector<PathHop>* hops,
            std::vector<int32_t>* links) const;

  const Attachment& attachment(int i) const { return atts_[i]; }

  // What Choose looks at for host h, as a key: two hosts with equal non-empty keys have the
  // same cost to every other host, and Choose(h, h) is then their cost to each other. Empty
  // (no sharing possible) when h has a direct link to another host.
  void ChoiceKey(int h, std::vector<uint32_t>* key) const;

 private:
  // Rule 2 at switch u for destination key `key`; index into edges_.
  int NextEdge(int u, int key, const Toward& toward) const;
  bool IsCandidate(const Edge& e, int u, const Toward& toward) const {
    return toward.dist[e.to] == toward.dist[u] - 1 &&
           std::min(e.rank, toward.wide[e.to]) == toward.wide[u];
  }

  std::vector<double> rates_;         // distinct effective rates, ascending
  std::vector<uint16_t> link_rank_;   // per Fabric link
  std::vector<int32_t> switch_node_;  // switch index -> node index
  std::vector<int32_t> edge_begin_;   // CSR over switches, edges ascending by port
  std::vector<Edge> edges_;
  std::vector<int32_t> att_switch_;      // attachment switch -> switch index
  std::vector<int32_t> host_att_begin_;  // per host, into atts_
  std::vector<Attachment> atts_;
  std::vector<int32_t> host_direct_begin_;  // per host, into directs_
  std::vector<DirectLink> directs_;
};

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_ROUTES_HOST_GRAPH_H_
