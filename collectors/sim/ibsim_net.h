// Reader for ibsim `.net` fabric descriptions: the ground truth the golden tests compare the
// real tools' output against (tests and benchmarks only).
//
// It follows ibsim 0.10/0.11 `sim_net.c: parse_netconf` closely enough to predict what ibsim
// simulates:
//   * records start with a line beginning "Switch", "Hca", "Ca" or "Rt":
//     `Switch 18 "id" # "desc" enhanced port 0`; the node id is the first quoted string, the
//     description the quoted text after `#` (or the bare text up to " enhanced port ",
//     " base port ", " lid ", " lmc "); without `#` the description is the id;
//   * port lines `[P](guid) "remote"[RP] opt=v ... # ... lid L <w>x<SPEED>` follow the header;
//     the remote port defaults to 1; lines starting with `#` inside a record are skipped; the
//     record ends after NPORTS port lines or at the first other line, which ibsim consumes;
//   * GUIDs: `switchguid=`/`caguid=`/`hcaguids=`/`rtguid=` set an absolute base ("=0x..") or a
//     relative one ("+N" from the last absolute base); each node takes the current value and
//     advances it (switch +1, CA/router +NPORTS+1); defaults 0x200000 (switches), 0x100000
//     (CAs), 0 (routers); a switch's ports report the switch GUID, CA/router port p reports
//     GUID+p;
//   * `vendid=`/`sysimgguid=` apply to the next node only, `devid=` until changed;
//     `width=`/`speed=`/`extspeed=` set the enabled masks of ports created afterwards;
//   * enabled masks of a port: the globals, then the line's `w=`/`s=`/`e=` options, then the
//     `lid L <w>x<SPEED>` tail of an ibnetdiscover-style comment (ibsim's order).
// Every cable must be listed from both ends (ibsim refuses a one-sided port line); a link's
// active width/speed is the highest value enabled at both ends (ibsim's rule: width
// 12x > 8x > 4x > 2x > 1x; an extended speed NDR > HDR > EDR > FDR wins over FDR10, which wins
// over the basic QDR > DDR > SDR).
//
// Refused with kInvalidArgument and "<file>:<line>: <what>": `include`, `module=`, `do`
// console commands and `@` port aliases (outside the subset toporr's fabrics use; expand
// them first), unknown remote nodes, one-sided or contradictory cables, ports outside
// 1..NPORTS, duplicate node ids or GUIDs, masks ibsim rejects, ends without a common width
// or basic speed (ibsim aborts on those), and a record ended by a meaningful line (ibsim
// would silently swallow it, e.g. a `Switch` line right after the last port line).
//
// Thread-safety: pure function, no shared state.
#ifndef TOPORR_COLLECTORS_SIM_IBSIM_NET_H_
#define TOPORR_COLLECTORS_SIM_IBSIM_NET_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fabric/fabric.h"

namespace toporr::collectors::sim {

struct IbsimPort {
  int number = 0;
  std::string remote_id;  // node id as written (quotes stripped)
  int remote_port = 1;
  // Enabled masks in ibsim's PortInfo encoding: width 1=1x 2=4x 4=8x 8=12x 16=2x; speed
  // 1=SDR 2=DDR 4=QDR; extended 1=FDR 2=EDR 4=HDR 8=NDR; fdr10 = Mellanox FDR10 enabled.
  int width_enabled = 0;
  int speed_enabled = 0;
  int ext_speed_enabled = 0;
  bool fdr10_enabled = false;
  int line = 0;  // 1-based line of the port line
};

struct IbsimNode {
  fabric::NodeType type = fabric::NodeType::kCa;  // kSwitch, kCa or kRouter
  std::string id;                                 // the quoted id of the header line
  std::string description;  // NodeDescription ibsim reports (at most 63 bytes)
  uint64_t guid = 0;
  uint64_t system_image_guid = 0;  // equals guid unless `sysimgguid=` preceded the node
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  int num_ports = 0;
  bool enhanced_port0 = false;   // header says "enhanced port 0" (switches)
  std::vector<IbsimPort> ports;  // the port lines, ascending by number
  int line = 0;                  // 1-based line of the header

  // GUID ibsim reports for port `number` (switch: the node GUID; CA/router: guid + number).
  uint64_t PortGuid(int number) const;
};

// One cable with the width and speed ibsim makes active on it. `a` is the end with the
// smaller (node index, port) pair.
struct IbsimLink {
  int node_a = -1, port_a = 0;
  int node_b = -1, port_b = 0;
  int width_lanes = 0;  // 1, 2, 4, 8 or 12
  fabric::LinkSpeed speed = fabric::LinkSpeed::kUnknown;
};

struct IbsimNet {
  std::vector<IbsimNode> nodes;  // file order
  std::vector<IbsimLink> links;  // ordered by (node_a, port_a)

  // Index into `nodes`, -1 when absent.
  int FindNode(std::string_view id) const;
};

// Parses a whole `.net` text. `file_name` only prefixes error messages.
absl::StatusOr<IbsimNet> ParseIbsimNet(std::string_view text,
                                       std::string_view file_name = "ibsim.net");

}  // namespace toporr::collectors::sim

#endif  // TOPORR_COLLECTORS_SIM_IBSIM_NET_H_
