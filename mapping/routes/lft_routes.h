// Routes as the subnet really forwards them: walks of the switches' linear forwarding tables
// (LFTs, fabric/forwarding_tables.h) over the fabric graph (fabric/fabric.h, e.g. from
// ibnetdiscover). This is what `ibtracert` does hop by hop against live switches.
//
// The walk for destination LID d from a port: leave the source port (a CA/router port, or
// start inside a switch when the source is a switch), then at every switch take
// out = LFT[switch][d]:
//   out == 0      the switch itself must own d (a route to a switch ends there);
//   out 1..254    cross the cable on that port; a switch continues the walk, a CA/router port
//                 must own d (its base LID <= d < base + 2^LMC) and ends it.
// Failures are kFailedPrecondition and name the switch (description and GUID) and the LID:
//   * dead end: the entry is unset, the switch has no table at all, the port is not cabled,
//     or the cable leads to a CA/router port that does not own d, or out 0 on a switch that
//     is not d's owner;
//   * loop: d not delivered after kMaxSwitchHops (64) switches.
// A LID no port of the fabric owns is kNotFound.
//
// Hosts (Fabric::hosts) route through one port each, the host's PORT: the lowest-numbered
// cabled port with a non-zero LID of the first such CA in Host::cas (ascending node index).
// Destination LID of a host = its port's base LID + LftRoutesOptions::path_index (LMC path
// 0 by default; a path index beyond a port's 2^LMC range is refused). Hosts without such a
// port (no cabled port, LID 0 because no SM ran) have no routes.
//
// Nothing here holds an N^2 table: every route is walked when asked for (O(hops)), and the
// all-pairs computations stream over destinations with O(nodes) scratch memory, so Create
// (which checks every ordered host pair) and AllPairsLinkSharing take time proportional to
// host pairs x hops. bench/scale_bench (bench/run_scale_bench.sh) measures Create and
// Route() on large fat trees.
//
// Directed links use the numbering of fabric_routes.h: 2 * link_index + (traversed from
// Link::a to Link::b ? 0 : 1), link_index into Fabric::links; link rates are the effective
// rates of host_graph.h (unknown rate = the slowest known rate).
//
// Immutable after Create; all const methods are safe to call from several threads.
#ifndef TOPORR_MAPPING_ROUTES_LFT_ROUTES_H_
#define TOPORR_MAPPING_ROUTES_LFT_ROUTES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fabric/fabric.h"
#include "fabric/forwarding_tables.h"
#include "mapping/routes/host_graph.h"
#include "mapping/routes/route_source.h"

namespace toporr::mapping {

inline constexpr int kMaxSwitchHops = 64;

struct LftRoutesOptions {
  // LMC path of host routes (HostRoute, Route, LinkSharing, CheckHostRoutes): destination LID
  // = the destination host port's base LID + path_index. 0 <= path_index < 2^LMC of every
  // host port, else Create fails (kInvalidArgument).
  int path_index = 0;
  // Create walks every host-to-host route once (CheckHostRoutes, O(destinations x switches))
  // and fails with the first loop or dead end, so that Route() never meets one. Turn off only
  // to inspect broken tables route by route; Route() then leaves a failing pair's route empty.
  bool check_routes = true;
  // Rate given to every link when no link of the fabric has a known rate (route_source.h promises
  // link_gbps > 0); as in fabric_routes.h.
  double gbps_when_no_rate_known = 100.0;
};

// A port of the fabric: node index into Fabric::nodes and port number (0 = a switch itself).
struct PortRef {
  int32_t node = -1;
  int32_t port = 0;
  bool operator==(const PortRef& o) const { return node == o.node && port == o.port; }
};

struct LftRoute {
  uint32_t dlid = 0;
  // Source node first (in_port -1; out_port its port, -1 for a switch source), then every
  // switch with the port it enters and leaves by, then the destination (in_port its port, or
  // the port it entered by for a switch destination; out_port -1). See host_graph.h PathHop.
  std::vector<PathHop> hops;
  std::vector<int32_t> directed_links;  // in order, one per cable crossed
  int32_t switches = 0;                 // switches on the route (HostPairCost::hops)
  double bottleneck_gbps = 0;           // slowest effective link rate; 0 for an empty route
};

class LftRoutes final : public RouteSource {
 public:
  // Copies what it needs from `fabric` (which may be freed) and takes `tables`.
  // Errors: kInvalidArgument for an inconsistent fabric, two ports claiming one LID, or a
  // bad path_index; kFailedPrecondition when the tables and the fabric disagree on who owns a
  // LID (the dump names another port GUID for it than the fabric: dumps taken at different
  // times) and, with check_routes, the first loop or dead end of a host route.
  static absl::StatusOr<std::unique_ptr<LftRoutes>> Create(const fabric::Fabric& fabric,
                                                           fabric::ForwardingTables tables,
                                                           LftRoutesOptions options = {});

  // --- single routes ---------------------------------------------------------------------
  // The walk from `src` (a CA/router port, or a switch {node, 0}) to LID `dlid`.
  // kInvalidArgument for a bad node/port or LID 0; kNotFound for a LID nobody owns;
  // kFailedPrecondition for dead ends and loops (see the file comment).
  absl::StatusOr<LftRoute> RouteToLid(PortRef src, uint32_t dlid) const;
  // From `src` to port `dst` (a switch destination is {node, 0}) using its LID base + path.
  absl::StatusOr<LftRoute> PortRoute(PortRef src, PortRef dst, int path_index = 0) const;
  // Between two hosts (Fabric::hosts indices) through their ports, LMC path from options.
  // a == b gives an empty route. kNotFound when a host has no routable port.
  absl::StatusOr<LftRoute> HostRoute(int host_a, int host_b) const;
  // The port host h routes through; node -1 when it has none (or h is out of range).
  PortRef HostPort(int host) const;
  // Destination LID of host h for options().path_index; 0 when it has no port.
  uint32_t HostLid(int host) const;

  // Walks every ordered pair of hosts with ports, streaming per destination: each switch's
  // next hop toward a LID is walked once, O(hosts x switches) time, O(nodes) memory (it is
  // AllPairsLinkSharing with the counts dropped). Returns the first failure (the error
  // RouteToLid gives for that source and LID).
  absl::Status CheckHostRoutes() const;

  // --- link sharing -----------------------------------------------------------------------
  // For each directed link, how many of the given (source host, destination host) pairs route
  // over it. Pairs with a == b cross nothing. Result size num_directed_links(). Fails with
  // the first failing route (kNotFound for a host without a port).
  absl::StatusOr<std::vector<int64_t>> LinkSharing(
      const std::vector<std::pair<int, int>>& host_pairs) const;
  // The same over ALL ordered pairs of hosts with ports, without materialising the pairs:
  // per destination, the routes toward it form a tree; sources are counted per switch and
  // pushed down the tree. O(hosts x switches) time, O(nodes + links) memory.
  absl::StatusOr<std::vector<int64_t>> AllPairsLinkSharing() const;

  // --- switch-to-host table ---------------------------------------------------------------
  // For every switch some host hangs off (a "row") and every host b: the switches on the LFT
  // route from that switch to b's LID (the switch included) and the slowest link rate on
  // it, b's cable included. A host-pair cost is then one lookup plus the source's own cable
  // (LftHostCosts). Built streaming per destination with each switch evaluated once:
  // O(hosts x switches) time, rows x hosts x 3 bytes of memory (~20 MB at 10,240 hosts on
  // 640 leaf switches). Entries without a route (no port, dead end, loop) are kNoRoute.
  struct SwitchRouteTable {
    static constexpr uint8_t kNoRoute = 255;
    std::vector<int32_t> row_of_node;  // node index -> row; -1 for other nodes
    int num_hosts = 0;
    std::vector<uint8_t> switches;  // row-major rows x num_hosts
    std::vector<uint16_t> rate;     // same layout: index into `rates`
    std::vector<double> rates;      // the distinct bottleneck rates, Gb/s
  };
  SwitchRouteTable BuildSwitchRouteTable() const;

  // --- RouteSource over all fabric hosts ------------------------------------------------
  int num_hosts() const { return static_cast<int>(host_port_.size()); }
  int num_directed_links() const override { return 2 * static_cast<int>(fabric_.links.size()); }
  double link_gbps(int directed_link) const override;
  // Fabric host indices. Leaves `directed_links` empty when a == b, an index is out of range,
  // a host has no port, or (only with check_routes off) the walk fails.
  void Route(int host_a, int host_b, std::vector<int32_t>* directed_links) const override;
  // A RouteSource over a job's host list (job host i = fabric host fabric_hosts[i]) that
  // points to this LftRoutes, which must outlive it. kInvalidArgument for an index out of
  // range or a repeated host; kFailedPrecondition for a host without a port or (check_routes
  // off) a failing route between two of them.
  absl::StatusOr<std::unique_ptr<RouteSource>> ForJob(const std::vector<int>& fabric_hosts) const;

  const fabric::Fabric& fabric() const { return fabric_; }
  const fabric::ForwardingTables& tables() const { return tables_; }
  const LftRoutesOptions& options() const { return options_; }
  // The port owning `lid`; node -1 when none.
  PortRef LidOwner(uint32_t lid) const;
  // "'<description>' (0x<guid>)", for messages.
  std::string NodeName(int node) const;

 private:
  struct Peer {
    int32_t link = -1;
    int32_t node = -1;
    int32_t port = 0;
  };
  struct Step {             // one switch's decision for one LID
    int32_t out_port = -1;  // -1 when the switch itself owns the LID
    int32_t next_node = -1;
    int32_t next_port = 0;
    int32_t link = -1;       // directed
    bool delivered = false;  // the switch itself, or the next node's port, owns the LID
  };

  LftRoutes(fabric::Fabric fabric, fabric::ForwardingTables tables, HostGraph graph,
            LftRoutesOptions options);
  absl::Status Init();
  const Peer* PeerOf(int node, int port) const;
  // The decision of switch `sw` (entered by in_port, -1 at a source switch) for `dlid`, whose
  // owner is `owner`; errors as in the file comment.
  absl::Status SwitchStep(int sw, uint32_t dlid, PortRef owner, Step* step) const;
  // The walk behind RouteToLid; `route` may hold only the links when `links_only`.
  absl::Status Walk(PortRef src, uint32_t dlid, bool links_only, LftRoute* route) const;

  // Per-destination scratch over all nodes, reset in O(touched) by an epoch stamp.
  struct DestinationScratch {
    std::vector<uint32_t> epoch;
    std::vector<int8_t> state;  // 1 = on the current walk, 2 = done
    std::vector<int32_t> dist;  // switches still to cross, this one included
    std::vector<int32_t> next;  // next switch node, -1 when this switch delivers
    std::vector<int32_t> link;  // directed link out (-1 when the switch itself is the owner)
    uint32_t now = 0;
    explicit DestinationScratch(size_t n);
    void Touch(int node);
  };
  static constexpr int kWalkDelivered = -1;
  static constexpr int kWalkFailed = -2;
  // The hop-by-hop LFT walk toward `dlid` (owned by `owner`) from switch `start`, memoised
  // per destination in `sc`: follows SwitchStep until the route is delivered or meets a
  // switch already settled (state 2) for this destination. Appends the switches it walks to
  // `path` (state 1, with sc.link and sc.next set; next = -1 where delivered). Returns that
  // settled switch, kWalkDelivered, or kWalkFailed for a loop, a walk beyond
  // kMaxSwitchHops, a step SwitchStep refuses, or (with `need_link`) one leaving by no link.
  int WalkToSettled(int start, uint32_t dlid, PortRef owner, bool need_link, DestinationScratch& sc,
                    std::vector<int32_t>* path) const;

  fabric::Fabric fabric_;
  fabric::ForwardingTables tables_;
  HostGraph graph_;
  LftRoutesOptions options_;
  std::vector<int32_t> peer_begin_;  // per node, into peers_ (ports 0..max)
  std::vector<Peer> peers_;
  std::vector<int32_t> node_table_;  // per node, index into tables_.switches() or -1
  std::vector<PortRef> lid_owner_;   // by LID
  std::vector<PortRef> host_port_;   // by host
};

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_ROUTES_LFT_ROUTES_H_
