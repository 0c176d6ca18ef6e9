// The fabric model: what toporr knows about an InfiniBand / Omni-Path subnet.
//
// A `Fabric` is a plain value: nodes (switches, channel adapters, routers, SHARP aggregation
// nodes), their ports, the physical links between ports (each link exactly once), and the
// hosts derived from CA node descriptions. Parsers build it; the store persists it; the cost
// model reads it. It holds no I/O and is cheap to move. It is not thread-safe to mutate;
// const access from many threads is fine.
//
// Indices (`node`, `link`, `host`) are positions in the vectors below and are stable for the
// lifetime of one Fabric value (a snapshot). GUIDs are the stable identities across
// snapshots.
#ifndef TOPORR_FABRIC_FABRIC_H_
#define TOPORR_FABRIC_FABRIC_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"

namespace toporr::fabric {

enum class NodeType : uint8_t {
  kSwitch = 1,
  kCa = 2,  // channel adapter (HCA / Omni-Path HFI)
  kRouter = 3,
  kAggregation = 4,  // SHARP aggregation node: a 1-port CA that is never a host
};
const char* NodeTypeName(NodeType t);  // "switch", "ca", "router", "aggregation"

// Link speed as reported by the SMA (basic or extended speed).
enum class LinkSpeed : uint8_t {
  kUnknown = 0,
  kSDR,
  kDDR,
  kQDR,
  kFDR10,
  kFDR,
  kEDR,
  kHDR,
  kNDR,
  kXDR,
};
const char* LinkSpeedName(LinkSpeed s);  // "SDR" ... "XDR", "???" for unknown
// Parses "SDR".."XDR", "FDR10"; kUnknown for anything else (including "???").
LinkSpeed ParseLinkSpeed(const std::string& s);

// Usable data rate of one lane in Gb/s, after line encoding:
//   SDR 2.5 Gbaud 8b/10b = 2.0, DDR 4.0, QDR 8.0, FDR10 10.3125 64b/66b = 10.0,
//   FDR 14.0625 64b/66b = 13.636, EDR 25.78125 64b/66b = 25.0, HDR 50.0, NDR 100.0,
//   XDR 200.0 (PAM4 generations quoted at their nominal data rate). 0 for kUnknown.
double LaneDataRateGbps(LinkSpeed s);

// Data rate of a link in Gb/s: lanes (1, 2, 4, 8, 12) x lane data rate. A link of unknown
// width or speed gets 0; consumers treat 0 as "slowest known" (see mapping/costs/host_costs.h).
double LinkDataRateGbps(int width_lanes, LinkSpeed s);

struct Port {
  int number = 0;      // physical port number; 0 is a switch's management port
  int ext_number = 0;  // external (faceplate) number from `[ext N]`, 0 if none
  uint64_t guid = 0;   // port GUID (all ports of a switch report the switch GUID)
  uint32_t lid = 0;    // base LID (a switch port carries its port-0 LID)
  uint8_t lmc = 0;     // the port owns LIDs lid .. lid + 2^lmc - 1
  int link = -1;       // index into Fabric::links, -1 when unconnected
};

struct Node {
  NodeType type = NodeType::kCa;
  uint64_t guid = 0;               // node GUID
  uint64_t system_image_guid = 0;  // 0 when not reported
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  int num_ports = 0;        // as declared by the node (ports may be unconnected)
  std::string description;  // NodeDescription, verbatim ("node017 mlx5_0")
  uint32_t lid = 0;         // switches: port-0 LID; CAs/routers: LID of first port
  uint8_t lmc = 0;
  bool enhanced_port0 = false;  // switches only
  int host = -1;                // index into Fabric::hosts, -1 if none
  std::vector<Port> ports;      // ports toporr knows about, ascending by number

  const Port* FindPort(int number) const;
  Port* FindPort(int number);
};

struct LinkEnd {
  int node = -1;  // index into Fabric::nodes
  int port = 0;   // port number on that node
  bool operator==(const LinkEnd& o) const { return node == o.node && port == o.port; }
};

// One physical cable. `a` is the end with the smaller (node index, port) pair; a switch
// port cabled to another port of the same switch is a link with a.node == b.node.
struct Link {
  LinkEnd a;
  LinkEnd b;
  int width_lanes = 0;  // 1, 2, 4, 8, 12; 0 when unknown
  LinkSpeed speed = LinkSpeed::kUnknown;
  double data_rate_gbps = 0.0;  // LinkDataRateGbps(width_lanes, speed)
};

// A compute node as MPI sees it (its short hostname). Multi-rail hosts have several CAs.
struct Host {
  std::string name;
  std::vector<int> cas;  // node indices of its CAs, ascending
};

class Fabric {
 public:
  std::vector<Node> nodes;
  std::vector<Link> links;
  std::vector<Host> hosts;               // sorted by name
  std::vector<int> anonymous_endpoints;  // CAs with a vendor-default description

  // Adds a node; fails with kInvalidArgument if its GUID is already present or its
  // description is not printable UTF-8 (common/printable.h: the policy for text from dumps).
  absl::Status AddNode(Node node, int* index);
  // Connects two ports (creating the Port entries if absent). Fails with kInvalidArgument
  // when either port already has a different link, or the indices are out of range.
  // Connecting the same pair twice is idempotent (returns the existing link).
  absl::Status Connect(LinkEnd x, LinkEnd y, int width_lanes, LinkSpeed speed,
                       int* link_index = nullptr);

  // -1 when absent.
  int FindNodeByGuid(uint64_t guid) const;
  int FindHost(const std::string& name) const;

  // The other end of a link seen from `end`.
  const LinkEnd& Peer(int link, const LinkEnd& end) const;

  size_t CountNodes(NodeType t) const;

  // Rebuilds the GUID index after `nodes` was modified directly (deserialisation).
  void RebuildIndex();

 private:
  std::unordered_map<uint64_t, int> by_guid_;
};

// "0x0002c90300001234" style, 16 hex digits.
std::string FormatGuid(uint64_t guid);

}  // namespace toporr::fabric

#endif  // TOPORR_FABRIC_FABRIC_H_
