// Hosts: which compute node (as MPI's gethostname() short name sees it) owns each CA.
//
// InfiniBand knows no hosts, only channel adapters with a NodeDescription. By convention the
// SMA (rdma-core's rdma-ndd, or the driver) sets it to "<hostname> <device>", e.g.
// "node017 mlx5_0", "a08-p1-dgx-04-c01 mlx5_5", "compute-00-01 HCA-1". A CA whose
// description was never set shows the vendor default ("MT4129 ConnectX7   Mellanox
// Technologies", "MT23108 InfiniHost Mellanox Technologies") and is an anonymous endpoint.
// Where descriptions are unreliable an admin supplies a GUID -> host map, which wins.
//
// Everything here is pure (no I/O); thread-compatible.
#ifndef TOPORR_COLLECTORS_HOSTS_H_
#define TOPORR_COLLECTORS_HOSTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fabric/fabric.h"

namespace toporr::collectors {

// How a CA description names a host. A description names host H when it is
//   <H> <blanks> <device>
// where <H> is a host name ([A-Za-z0-9] then [A-Za-z0-9._-], at most 253 characters) and
// <device> (everything after the first run of blanks, trailing blanks ignored) is one of the
// device-name forms below (D = one or more decimal digits, A = one or more of [A-Za-z0-9],
// matched case-sensitively and completely):
//   mlx4_D  mlx5_D  mlx5_bond_D   (Mellanox/NVIDIA ConnectX, mlx4/mlx5 drivers)
//   mthcaD                        (Mellanox InfiniHost, mthca driver)
//   hfi1_D                        (Intel/Cornelis Omni-Path HFI)
//   qibD  qib_D  "qib D"          (QLogic/Intel TrueScale; one blank allowed before D)
//   HCA-D                         (OFED 1.x / MLNX_OFED style "hostF HCA-1")
//   ibpDA?   i.e. "ibp" + digit + optional A   (netdev-style names: ibp65s0, ibp0s8f1)
//   irdmaA?  irdma-A                            (Intel E810 RDMA: irdma0, irdma-rocep1s0)
//   bnxt_reD  bnxt_re_D  "bnxt_re D"            (Broadcom)
//   any prefix in `extra_hca_prefixes` followed by at least one character of [A-Za-z0-9_-]
struct HostRule {
  // Site-specific device-name prefixes accepted in addition to the built-in forms
  // (e.g. "ionic_" or "efa_"). Default: none.
  std::vector<std::string> extra_hca_prefixes;

  // Also accept a description that is a single host-name word ("node017"), as set by sites
  // that write the bare hostname into NodeDescription. Default false: a lone word is as often
  // a vendor or placeholder string.
  bool accept_bare_hostname = false;

  // Cut the host at its first '.' ("node017.cluster.local" -> "node017"): MPI and PMIx use
  // short names. Default true.
  bool strip_domain = true;

  // Descriptions containing any of these substrings never name hosts, whatever their shape:
  // vendor defaults and SHARP aggregation nodes. Default: the two below.
  std::vector<std::string> vendor_default_markers = {"Mellanox Technologies", "Aggregation Node"};
};

// The host a CA description names under `rule`, or nullopt (anonymous).
// "node017 mlx5_0" -> "node017"; "MT4129 ConnectX7   Mellanox Technologies" -> nullopt.
std::optional<std::string> HostFromDescription(const HostRule& rule, std::string_view description);

// Where a parsed host map came from, so that AssignHosts can refuse an entry at its line
// ("hosts.map:7: ..."), as ParseHostMap does.
struct HostMapOrigin {
  std::string file_name;
  std::unordered_map<uint64_t, int> line;  // GUID -> line of its first entry
};

// Parses a GUID -> host map file: one "<guid> <host>" per line, the GUID with or without
// "0x" (node GUID or port GUID of a CA), the host bare or in double quotes; '#' starts a
// comment; blank lines are ignored. The same GUID twice with the same host is accepted; with
// different hosts it is an error. Errors: kInvalidArgument "<file_name>:<line>: <problem>".
// When `origin` is given it receives the file name and the line of every GUID.
absl::StatusOr<std::unordered_map<uint64_t, std::string>> ParseHostMap(
    std::string_view text, std::string_view file_name, HostMapOrigin* origin = nullptr);

// Derives hosts for `fabric` (replacing any earlier assignment):
//   * a CA whose node GUID, or the GUID of one of its ports, is in `guid_map` belongs to that
//     host (map entries win over the rule; two ports of one CA mapped to different hosts is
//     kInvalidArgument);
//   * otherwise HostFromDescription(rule, description) decides; a CA it names no host for is
//     appended to fabric->anonymous_endpoints (ascending node index);
//   * switches, routers and aggregation nodes are never hosts and never anonymous endpoints;
//     a map entry naming one of them is kInvalidArgument (a map file typo would otherwise
//     silently misplace a host). Map entries for GUIDs not in this fabric are ignored: one map
//     may cover several fabrics.
// Result: fabric->hosts sorted by name, each with its CAs in ascending node index (a
// multi-rail host lists several), and Node::host set for those CAs (-1 for every other node).
// Errors name the map entry: "<file>:<line>: ..." when `origin` (from ParseHostMap) is given,
// "host map: ..." otherwise; they quote at most 80 bytes of a node description.
absl::Status AssignHosts(const HostRule& rule,
                         const std::unordered_map<uint64_t, std::string>& guid_map,
                         fabric::Fabric* fabric, const HostMapOrigin* origin = nullptr);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_HOSTS_H_
