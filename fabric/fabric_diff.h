// What changed between two fabric snapshots: nodes, cables, link rates, hosts, and (when both
// snapshots carry linear forwarding tables) routes. Serves `toporrctl diff SNAP_A SNAP_B` and
// the daemon's GetDiff RPC (the text report: fabric_diff_report.h).
//
// Identity across snapshots is by GUID, never by index (node, link and host indices of two
// Fabric values are unrelated):
//   * a node is its node GUID;
//   * a link is the unordered pair of its ends, each end (node GUID, port number). Parallel
//     cables between the same two switches are therefore distinct, and a cable whose ends
//     moved to other ports (same two nodes) is one link removed plus one link added;
//   * a host is its name (Host::name); it "moved" when the set of switch GUIDs its CA ports
//     are cabled to differs between the snapshots (a move to another port of the same
//     switch is not a host move; it shows as a link removed + added);
//   * a LID is compared only when both snapshots assign it to the same port GUID.
//
// Direction: everything is stated from A (before) to B (after): "added" = in B only,
// "removed" = in A only, "degraded" = slower in B.
//
// Performance: one pass over each side's nodes and links with hash maps keyed by GUID and
// (GUID, port); the LFT comparison is a byte compare per (switch, LID) plus a memoised path
// walk (each switch evaluated at most once per LID) for the LIDs whose routes can have
// changed: those with a changed entry, or all of them when some switch port leads elsewhere
// in B. Apart from that walk, time is linear in nodes + links + switches x LIDs.
// bench/scale_bench (bench/run_scale_bench.sh) measures topology only, LFTs with one changed
// entry, and an unplugged host on a large fat tree, against the time to parse that fabric.
// Thread-safety: the functions are pure; the result is a plain value.
#ifndef TOPORR_FABRIC_FABRIC_DIFF_H_
#define TOPORR_FABRIC_FABRIC_DIFF_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fabric/fabric.h"
#include "fabric/forwarding_tables.h"

namespace toporr::fabric {

// One end of a link, identified by node GUID and port number; type and description are for
// display and come from the snapshot the link belongs to (B for added links, A otherwise).
struct LinkEndRef {
  uint64_t node_guid = 0;
  int port = 0;
  NodeType node_type = NodeType::kCa;
  std::string node_description;
};

// A cable present in one snapshot only. `a` is the end with the smaller (GUID, port).
struct LinkChange {
  LinkEndRef a;
  LinkEndRef b;
  int width_lanes = 0;  // 0 = unknown
  LinkSpeed speed = LinkSpeed::kUnknown;
  double data_rate_gbps = 0.0;
};

// The same cable (same two ends) at a different width, speed or data rate.
struct LinkRateChange {
  LinkEndRef a;  // descriptions from B
  LinkEndRef b;
  int width_before = 0;
  int width_after = 0;
  LinkSpeed speed_before = LinkSpeed::kUnknown;
  LinkSpeed speed_after = LinkSpeed::kUnknown;
  double rate_before_gbps = 0.0;
  double rate_after_gbps = 0.0;
};

// Where one CA port is cabled in one snapshot. switch_guid 0 means "not cabled to a switch"
// (port absent, unconnected, or cabled to a non-switch).
struct SwitchAttachment {
  uint64_t switch_guid = 0;
  std::string switch_description;
  int switch_port = 0;
};

struct HostPortMove {
  uint64_t ca_guid = 0;  // node GUID of the host's CA
  int ca_port = 0;
  SwitchAttachment before;
  SwitchAttachment after;
};

// A host present in both snapshots whose set of attachment switch GUIDs changed. `ports`
// lists the CA ports (by CA GUID, port) whose attachment (switch GUID or switch port)
// differs, ascending.
struct HostMove {
  std::string host;
  std::vector<HostPortMove> ports;
};

struct NodeChange {
  uint64_t guid = 0;
  NodeType type = NodeType::kCa;
  std::string description;
};

// One changed LFT entry. Ports as in ForwardingTables (0 = the switch itself,
// ForwardingTables::kUnsetPort = unassigned).
struct RouteEntryChange {
  uint32_t lid = 0;
  uint8_t port_before = 0;
  uint8_t port_after = 0;
  std::string destination;  // host name, else node description of the LID's owner (from B)
};

// LFT changes of one switch present (with a table) in both snapshots.
struct SwitchRouteChange {
  uint64_t switch_guid = 0;
  std::string description;                 // from B
  size_t lids_compared = 0;                // LIDs owned by the same port GUID in both snapshots
  size_t entries_changed = 0;              // of those, entries whose out port differs
  std::vector<RouteEntryChange> examples;  // the first changed entries by LID, capped
};

// A destination LID whose route changed from at least one switch.
struct RouteDestination {
  uint32_t lid = 0;
  uint64_t port_guid = 0;
  std::string name;  // host name, else node description
};

struct FabricDiff {
  std::vector<NodeChange> nodes_added, nodes_removed;  // by (type, GUID)
  std::vector<LinkChange> links_added, links_removed;  // by (a, b)
  std::vector<LinkRateChange> links_degraded, links_upgraded;
  std::vector<std::string> hosts_added, hosts_removed;  // ascending
  std::vector<HostMove> hosts_moved;                    // by host name

  // Routes. Compared only when both snapshots have forwarding tables (routes_compared);
  // everything below is zero / empty otherwise.
  bool routes_compared = false;
  size_t switches_compared = 0;  // switches with a table in both snapshots and in both fabrics
  size_t lids_compared = 0;      // LIDs owned by the same port GUID in both snapshots
  // Switches with at least one changed entry, most changes first (then by GUID).
  std::vector<SwitchRouteChange> route_changes;
  // Destination LIDs for which at least one compared switch's entry changed; the list is
  // capped (DiffOptions::max_destinations), the count is not.
  size_t destinations_changed = 0;
  std::vector<RouteDestination> destinations;
  // Ordered host pairs (s, t), s != t, both present and not moved, whose switch path from
  // an attachment switch of s to some LID of t differs: a different (switch GUID, out port,
  // next node GUID) sequence, including changes caused by re-cabling with unchanged LFTs.
  // A path that now ends at an unconnected port or an uncompared switch counts as changed;
  // a forwarding loop identical in both snapshots does not. compared = n x (n - 1) over
  // those n hosts. Moved hosts are left out: hosts_moved already lists them.
  size_t host_pairs_compared = 0;
  size_t host_pairs_changed = 0;

  // True when nothing at all differs (route counters included).
  bool empty() const;
};

struct DiffOptions {
  // At most this many RouteEntryChange examples per switch. Default 8.
  size_t max_route_examples_per_switch = 8;
  // At most this many entries in FabricDiff::destinations. Default 64.
  size_t max_destinations = 64;
  // Count host pairs whose route changed (a memoised walk per affected LID; about
  // switches x affected LIDs steps). Default true.
  bool count_host_pairs = true;
};

// Compares snapshot A (before) with B (after). `routes_a` / `routes_b` may be null (no
// forwarding tables in that snapshot); routes are compared only when both are given. LID
// ownership comes from the fabrics' port LIDs/LMCs; a fabric that carries no LIDs at all
// (e.g. built from a `-p` report) falls back to the owners its tables name
// (ForwardingTables::lid_port_guid).
FabricDiff DiffFabrics(const Fabric& a, const ForwardingTables* routes_a, const Fabric& b,
                       const ForwardingTables* routes_b, const DiffOptions& options = {});

}  // namespace toporr::fabric

#endif  // TOPORR_FABRIC_FABRIC_DIFF_H_
