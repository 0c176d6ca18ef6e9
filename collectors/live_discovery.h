// Live discovery of an InfiniBand subnet through rdma-core's libibnetdisc and libibmad: the
// same SMP sweep `ibnetdiscover` does, followed by reading every switch's linear forwarding
// table the way `dump_fts` does. Needs a local HCA port and access to its umad device
// (/dev/infiniband/umad*: root, or a udev rule granting it), with ib_umad loaded.
//
// What the result holds (DiscoveredFabric):
//   * `fabric`: exactly what ParseIbnetdiscover (collectors/ibnetdiscover.h) builds from the
//     plain `ibnetdiscover` output of the same subnet, with rdma-core 44's rules:
//       - node type (a 1-port CA whose description contains "Aggregation Node" is
//         kAggregation), node GUID, vendor/device id, system image GUID, NodeInfo port count,
//         description (NodeDescription up to its first NUL, non-printable bytes turned into
//         blanks as ibnetdiscover's clean_nodedesc does);
//       - switches: port-0 LID/LMC and enhanced port 0 from SwitchInfo, every cabled port
//         (1..N) with the switch GUID as port GUID and the port-0 LID/LMC;
//       - CAs/routers/aggregation nodes: every cabled port with its own port GUID, base LID
//         and LMC; Node::lid/lmc from the lowest-numbered cabled port;
//       - Port::ext_number from libibnetdisc's chassis decoding (what `ibnetdiscover -g`
//         prints as `[ext N]`; 0 outside Voltaire/Mellanox chassis);
//       - each physical link once, width and speed decoded per end as ibnetdiscover prints
//         them (LinkWidthActive 1x/4x/8x/12x/2x; LinkSpeedActive SDR/DDR/QDR; extended
//         speeds FDR/EDR/HDR/NDR when the capability mask says the port supports them, a
//         switch port reading its switch's port-0 capability mask; FDR10 from the Mellanox
//         extended port info), the slower known value kept when the two ends disagree, the
//         rule of the parser. XDR needs LinkSpeedExtActive2, which rdma-core 44's libibmad
//         does not decode (its ibnetdiscover prints `???`), so it reads as kUnknown too.
//     Hosts are NOT assigned (as with the parser): call AssignHosts (collectors/hosts.h).
//   * `forwarding_tables`: per switch (node GUID, SMA LID, description) the LFT as
//     ParseForwardingTables reads it from `dump_fts`: LIDs 0..LinearFDBTop (from SwitchInfo)
//     read in blocks of 64 entries with SubnGet(LinearForwardingTable) along the switch's
//     directed-route path; entries above the switch's port count (255 = unassigned) are left
//     unassigned. Unlike dump_fts, the block holding LinearFDBTop is always read (dump_fts
//     skips it when LinearFDBTop is a multiple of 64). lid_port_guid names the owner of
//     every LID of every discovered port (2^LMC LIDs per CA/router port, the SMA LID of a
//     switch with its port-0 GUID).
//   * `mads_sent`: SMPs libibnetdisc reports for the sweep plus one per LFT block read.
//   * `seconds`: wall time of the whole call.
//
// Determinism: nodes are ordered by node GUID, ports by number, links in the order their
// first end appears walking nodes then ports ascending, forwarding tables by switch GUID. The
// result depends only on the subnet's state, never on the order the sweep found things, so a
// caller can hash it (e.g. FormatIbnetdiscover + FormatDumpFts) to detect an unchanged
// fabric.
//
// Load on the fabric: the sweep keeps at most `max_outstanding_smps` SMPs in flight
// (libibnetdisc's own throttle); LFT reads are sequential with `probe_pause_us` between
// them. The SMP count grows with the subnet: the sweep's queries per node and port, plus one
// read per 64-LID LFT block of every switch (up to its LinearFDBTop). collectors/sim/ runs
// discovery against simulated subnets (ibsim + opensm) to measure it.
//
// Errors: kUnavailable "no InfiniBand device found: ..." when libibumad sees no CA (ib_umad
// not loaded, no HCA), kNotFound for a `ca_name` that does not exist, kUnavailable when the
// umad port cannot be opened (no active port, no permission: run as root) or the sweep or an
// LFT read fails (timeouts; the message names the switch and block), kInvalidArgument for
// bad options. Nothing is returned on failure: no partial fabric.
//
// Thread-safety: libibmad keeps process-wide state; call DiscoverFabric from one thread at a
// time. The progress callback runs on the calling thread.
#ifndef TOPORR_COLLECTORS_LIVE_DISCOVERY_H_
#define TOPORR_COLLECTORS_LIVE_DISCOVERY_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "collectors/forwarding_tables.h"
#include "fabric/fabric.h"

namespace toporr::collectors {

// A pause between LFT probes that keeps a large sweep gentle on switch management CPUs. The
// pauses add up to switches x LFT blocks x this value, so a large fabric's discovery takes
// correspondingly longer.
inline constexpr int kProductionProbePauseUs = 200;

struct LiveDiscoveryOptions {
  // Local HCA to sweep from (e.g. "mlx5_0"); empty: the first CA with an active port, as
  // libibumad chooses for the diagnostic tools.
  std::string ca_name;
  // Port of that CA (1-based); 0: its first active port.
  int ca_port = 0;
  // Stop the sweep this many hops from the local port; 0: no limit.
  int max_hops = 0;
  // Per-SMP timeout and retries (libibmad's defaults: 1000 ms, 3).
  int timeout_ms = 1000;
  int retries = 3;
  // SMPs libibnetdisc keeps in flight during the sweep (its default: 2).
  int max_outstanding_smps = 2;
  // Read every switch's LFT after the sweep. Default true.
  bool read_forwarding_tables = true;
  // Microseconds to wait between two LFT block reads. Default 0 (tests, simulators);
  // production sweeps should use kProductionProbePauseUs.
  int probe_pause_us = 0;
  // Called after the sweep with (0, switches) and after each switch's LFT with
  // (switches done, switches); optional.
  std::function<void(int switches_done, int switches_total)> progress;
};

struct DiscoveredFabric {
  fabric::Fabric fabric;
  fabric::ForwardingTables forwarding_tables;
  int64_t mads_sent = 0;
  double seconds = 0.0;
};

absl::StatusOr<DiscoveredFabric> DiscoverFabric(const LiveDiscoveryOptions& options);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_LIVE_DISCOVERY_H_
