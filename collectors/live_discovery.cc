#include "collectors/live_discovery.h"

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::FormatGuid;
using fabric::ForwardingTables;
using fabric::kMaxUnicastLid;
using fabric::LinkEnd;
using fabric::LinkSpeed;
using fabric::Node;
using fabric::NodeType;
using fabric::Port;
using fabric::SwitchForwardingTable;
namespace {

// PortInfo:CapabilityMask bit 14, IsExtendedSpeedsSupported (IBA vol. 1, 14.2.5.6).
constexpr uint32_t kCapHasExtendedSpeeds = 1u << 14;
// Mellanox ExtendedPortInfo:LinkSpeedActive bit 0: FDR10.
constexpr uint32_t kMlnxLinkSpeedFdr10 = 1u;
constexpr int kLftBlockEntries = IB_SMP_DATA_SIZE;  // one LinearForwardingTable block

constexpr char kNoDeviceHint[] = "(is ib_umad loaded? run as root)";

struct IbndFabricDeleter {
  void operator()(ibnd_fabric_t* f) const { ibnd_destroy_fabric(f); }
};
struct MadPortDeleter {
  void operator()(ibmad_port* p) const { mad_rpc_close_port(p); }
};

// NodeDescription as ibnetdiscover prints it: up to the first NUL (at most 64 bytes), every
// non-printable byte a blank (infiniband-diags' clean_nodedesc).
std::string CleanDescription(const char* raw) {
  std::string s(raw, strnlen(raw, IB_SMP_DATA_SIZE));
  for (char& c : s) {
    if (!std::isprint(static_cast<unsigned char>(c))) c = ' ';
  }
  return s;
}

// PortInfo:LinkWidthActive bits: 1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x.
int WidthLanes(uint32_t bits) {
  switch (bits) {
    case 1:
      return 1;
    case 2:
      return 4;
    case 4:
      return 8;
    case 8:
      return 12;
    case 16:
      return 2;
    default:
      return 0;
  }
}

LinkSpeed BasicSpeed(uint32_t bits) {
  switch (bits) {
    case 1:
      return LinkSpeed::kSDR;
    case 2:
      return LinkSpeed::kDDR;
    case 4:
      return LinkSpeed::kQDR;
    default:
      return LinkSpeed::kUnknown;
  }
}

// The speed one end of a link reports, decoded as ibnetdiscover (rdma-core 44) prints it.
LinkSpeed EndSpeed(ibnd_port_t* port) {
  ibnd_node_t* node = port->node;
  uint32_t speed = mad_get_field(port->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
  // A switch port's capability mask is its port 0's; a switch without port 0 data reports
  // nothing usable.
  void* cap_info = port->info;
  if (node->type == IB_NODE_SWITCH) {
    if (node->ports == nullptr || node->ports[0] == nullptr) return LinkSpeed::kUnknown;
    cap_info = node->ports[0]->info;
  }
  uint32_t ext = 0;
  if (mad_get_field(cap_info, 0, IB_PORT_CAPMASK_F) & kCapHasExtendedSpeeds) {
    ext = mad_get_field(port->info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
  }
  if (speed != 4 && ext == 0) return BasicSpeed(speed);
  switch (ext) {
    case 0: {
      const uint32_t mlnx = mad_get_field(port->ext_info, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F);
      return (mlnx & kMlnxLinkSpeedFdr10) ? LinkSpeed::kFDR10 : BasicSpeed(speed);
    }
    case 1:
      return LinkSpeed::kFDR;
    case 2:
      return LinkSpeed::kEDR;
    case 4:
      return LinkSpeed::kHDR;
    case 8:
      return LinkSpeed::kNDR;
    default:
      return LinkSpeed::kUnknown;
  }
}

// The parser's rule for ends that disagree (collectors/ibnetdiscover.h): the slower known
// width and speed.
void MergeEnds(int w1, LinkSpeed s1, int w2, LinkSpeed s2, int* w, LinkSpeed* s) {
  *w = (w1 == 0 || w2 == 0) ? std::max(w1, w2) : std::min(w1, w2);
  *s = (s1 == LinkSpeed::kUnknown || s2 == LinkSpeed::kUnknown) ? std::max(s1, s2)
                                                                : std::min(s1, s2);
}

NodeType TypeOf(const ibnd_node_t* n) {
  switch (n->type) {
    case IB_NODE_SWITCH:
      return NodeType::kSwitch;
    case IB_NODE_ROUTER:
      return NodeType::kRouter;
    default:
      return NodeType::kCa;
  }
}

ibnd_port_t* CabledPort(ibnd_node_t* n, int p) {
  if (n->ports == nullptr) return nullptr;
  ibnd_port_t* port = n->ports[p];
  return (port != nullptr && port->remoteport != nullptr) ? port : nullptr;
}

Node ConvertNode(ibnd_node_t* in) {
  Node n;
  n.type = TypeOf(in);
  n.guid = in->guid;
  n.system_image_guid = mad_get_field64(in->info, 0, IB_NODE_SYSTEM_GUID_F);
  n.vendor_id = mad_get_field(in->info, 0, IB_NODE_VENDORID_F);
  n.device_id = mad_get_field(in->info, 0, IB_NODE_DEVID_F);
  n.num_ports = in->numports;
  n.description = CleanDescription(in->nodedesc);
  const bool is_switch = n.type == NodeType::kSwitch;
  if (is_switch) {
    n.lid = in->smalid;
    n.lmc = in->smalmc;
    n.enhanced_port0 = in->smaenhsp0 != 0;
  }
  for (int p = 1; p <= in->numports; ++p) {
    ibnd_port_t* port = CabledPort(in, p);
    if (port == nullptr) continue;
    Port out;
    out.number = p;
    out.ext_number = port->ext_portnum;
    out.guid = is_switch ? in->guid : port->guid;
    out.lid = is_switch ? in->smalid : port->base_lid;
    out.lmc = is_switch ? in->smalmc : port->lmc;
    n.ports.push_back(out);
  }
  if (!is_switch && !n.ports.empty()) {
    n.lid = n.ports.front().lid;
    n.lmc = n.ports.front().lmc;
  }
  if (n.type == NodeType::kCa && n.num_ports == 1 &&
      n.description.find("Aggregation Node") != std::string::npos) {
    n.type = NodeType::kAggregation;
  }
  return n;
}

// Builds the Fabric in canonical order (see the header) from libibnetdisc's nodes, which it
// returns sorted by GUID in `sorted`.
absl::StatusOr<Fabric> ConvertFabric(ibnd_fabric_t* in, std::vector<ibnd_node_t*>* sorted) {
  for (ibnd_node_t* n = in->nodes; n != nullptr; n = n->next) sorted->push_back(n);
  std::sort(sorted->begin(), sorted->end(),
            [](const ibnd_node_t* a, const ibnd_node_t* b) { return a->guid < b->guid; });
  Fabric fabric;
  fabric.nodes.reserve(sorted->size());
  for (ibnd_node_t* n : *sorted) {
    absl::Status added = fabric.AddNode(ConvertNode(n), nullptr);
    if (!added.ok()) {
      return absl::InternalError(absl::StrCat("libibnetdisc: ", added.message()));
    }
  }
  for (size_t i = 0; i < sorted->size(); ++i) {
    ibnd_node_t* n = (*sorted)[i];
    for (int p = 1; p <= n->numports; ++p) {
      ibnd_port_t* port = CabledPort(n, p);
      if (port == nullptr || fabric.nodes[i].FindPort(p)->link >= 0) continue;
      ibnd_port_t* remote = port->remoteport;
      const int rn = fabric.FindNodeByGuid(remote->node->guid);
      if (rn < 0) {
        return absl::InternalError(absl::StrCat("port ", p, " of ", FormatGuid(n->guid),
                                                " leads to a node libibnetdisc did not list"));
      }
      int width;
      LinkSpeed speed;
      MergeEnds(WidthLanes(mad_get_field(port->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F)),
                EndSpeed(port),
                WidthLanes(mad_get_field(remote->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F)),
                EndSpeed(remote), &width, &speed);
      RETURN_IF_ERROR(fabric.Connect(LinkEnd{static_cast<int>(i), p}, LinkEnd{rn, remote->portnum},
                                     width, speed));
    }
  }
  return fabric;
}

// Checks that libibumad sees a CA (and the requested one), so that the common failure on a
// machine without IB says so instead of a sweep timeout. (umad_get_cas_names alone cannot
// tell: without /sys/class/infiniband it returns a made-up default name.)
bool HasCa(const char* name) {
  umad_ca_t ca;
  if (umad_get_ca(name, &ca) < 0) return false;
  umad_release_ca(&ca);
  return true;
}

absl::Status CheckDevices(const std::string& ca_name) {
  if (umad_init() < 0 || !HasCa(nullptr)) {
    return absl::UnavailableError(
        absl::StrCat("no InfiniBand device found: libibumad finds no CA with an active port under "
                     "/sys/class/infiniband ",
                     kNoDeviceHint));
  }
  if (ca_name.empty() || HasCa(ca_name.c_str())) return absl::OkStatus();
  char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
  const int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
  std::vector<std::string> present;
  for (int i = 0; i < n; ++i) present.emplace_back(names[i]);
  return absl::NotFoundError(absl::StrCat("InfiniBand device '", ca_name,
                                          "' not found; present: ", absl::StrJoin(present, ", ")));
}

absl::Status ValidateOptions(const LiveDiscoveryOptions& o) {
  if (o.ca_port < 0 || o.ca_port > 254) {
    return absl::InvalidArgumentError(absl::StrCat("ca_port ", o.ca_port, " is not 0..254"));
  }
  if (o.max_hops < 0 || o.max_hops > 63) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_hops ", o.max_hops, " is not 0..63 (a directed route has 63 hops)"));
  }
  if (o.timeout_ms <= 0 || o.retries < 0 || o.max_outstanding_smps <= 0 || o.probe_pause_us < 0) {
    return absl::InvalidArgumentError(
        "timeout_ms and max_outstanding_smps must be positive, retries and probe_pause_us "
        "not negative");
  }
  return absl::OkStatus();
}

// Reads switch `n`'s LFT into `tables`; returns the number of SMPs sent through `sent`.
absl::Status ReadForwardingTable(ibnd_node_t* n, ibmad_port* port, const LiveDiscoveryOptions& o,
                                 bool* first_probe, ForwardingTables* tables, int64_t* sent) {
  uint32_t top = mad_get_field(n->switchinfo, 0, IB_SW_LINEAR_FDB_TOP_F);
  if (top > kMaxUnicastLid) top = kMaxUnicastLid;
  SwitchForwardingTable* table = tables->Add(n->guid);
  table->lid = n->smalid;
  table->description = CleanDescription(n->nodedesc);
  if (top == 0) return absl::OkStatus();  // no SM has programmed it
  table->out_port.assign(top + 1, ForwardingTables::kUnsetPort);
  const uint32_t blocks = top / kLftBlockEntries + 1;
  for (uint32_t block = 0; block < blocks; ++block) {
    if (!*first_probe && o.probe_pause_us > 0) absl::SleepFor(absl::Microseconds(o.probe_pause_us));
    *first_probe = false;
    uint8_t data[IB_SMP_DATA_SIZE] = {};
    ib_portid_t path = n->path_portid;
    ++*sent;
    if (smp_query_via(data, &path, IB_ATTR_LINEARFORWTBL, block, 0, port) == nullptr) {
      return absl::UnavailableError(absl::StrCat(
          "reading LFT block ", block, " (LIDs ", block * kLftBlockEntries, "-",
          block * kLftBlockEntries + kLftBlockEntries - 1, ") of switch ", FormatGuid(n->guid),
          " ('", table->description, "', DR path ", portid2str(&path), ") failed after ", o.retries,
          " retries of ", o.timeout_ms, " ms"));
    }
    const uint32_t first = block * kLftBlockEntries;
    for (uint32_t lid = first; lid < first + kLftBlockEntries && lid <= top; ++lid) {
      const uint8_t out = data[lid - first];
      if (out <= n->numports) table->out_port[lid] = out;
    }
  }
  return absl::OkStatus();
}

// LID -> port GUID for every LID a discovered port owns (what dump_fts names).
void NoteLidOwners(const std::vector<ibnd_node_t*>& nodes, ForwardingTables* tables) {
  for (ibnd_node_t* n : nodes) {
    if (n->type == IB_NODE_SWITCH) {
      tables->NoteLidOwner(n->smalid, mad_get_field64(n->info, 0, IB_NODE_PORT_GUID_F));
      continue;
    }
    if (n->ports == nullptr) continue;
    for (int p = 1; p <= n->numports; ++p) {
      const ibnd_port_t* port = n->ports[p];
      if (port == nullptr || port->base_lid == 0) continue;
      for (uint32_t l = port->base_lid; l < port->base_lid + (1u << port->lmc); ++l) {
        tables->NoteLidOwner(l, port->guid);
      }
    }
  }
}

}  // namespace

absl::StatusOr<DiscoveredFabric> DiscoverFabric(const LiveDiscoveryOptions& options) {
  const absl::Time start = absl::Now();
  RETURN_IF_ERROR(ValidateOptions(options));
  RETURN_IF_ERROR(CheckDevices(options.ca_name));
  std::string ca = options.ca_name;  // the C APIs take char*
  char* ca_arg = ca.empty() ? nullptr : ca.data();
  const std::string where = absl::StrCat(
      "CA '", ca.empty() ? "(first active)" : ca, "' port ",
      options.ca_port == 0 ? std::string("(first active)") : std::to_string(options.ca_port));

  ibnd_config_t config;
  std::memset(&config, 0, sizeof(config));
  config.max_smps = static_cast<unsigned>(options.max_outstanding_smps);
  config.max_hops = static_cast<unsigned>(options.max_hops);
  config.timeout_ms = static_cast<unsigned>(options.timeout_ms);
  config.retries = static_cast<unsigned>(options.retries);
  config.flags = IBND_CONFIG_MLX_EPI;  // FDR10 detection, as the diagnostic tools do
  std::unique_ptr<ibnd_fabric_t, IbndFabricDeleter> sweep(
      ibnd_discover_fabric(ca_arg, options.ca_port, nullptr, &config));
  if (sweep == nullptr) {
    return absl::UnavailableError(absl::StrCat(
        "libibnetdisc could not sweep the subnet from ", where, " (timeout ", options.timeout_ms,
        " ms, ", options.retries, " retries); is the port active and the subnet up?"));
  }

  DiscoveredFabric out;
  out.mads_sent = sweep->total_mads_used;
  std::vector<ibnd_node_t*> nodes;
  ASSIGN_OR_RETURN(out.fabric, ConvertFabric(sweep.get(), &nodes));

  if (options.read_forwarding_tables) {
    // Opened after the sweep, which opens and closes its own umad port: umad2sim (the
    // simulator's umad shim) crashes when the two are open at once; dump_fts does the same.
    int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS};
    std::unique_ptr<ibmad_port, MadPortDeleter> port(
        mad_rpc_open_port(ca_arg, options.ca_port, classes, 2));
    if (port == nullptr) {
      return absl::UnavailableError(absl::StrCat(
          "cannot open a management port on ", where,
          ": no active port, or no permission on /dev/infiniband/umad* ", kNoDeviceHint));
    }
    mad_rpc_set_timeout(port.get(), options.timeout_ms);
    mad_rpc_set_retries(port.get(), options.retries);
    std::vector<ibnd_node_t*> switches;
    for (ibnd_node_t* n : nodes)
      if (n->type == IB_NODE_SWITCH) switches.push_back(n);
    const int total = static_cast<int>(switches.size());
    if (options.progress) options.progress(0, total);
    bool first_probe = true;
    for (int i = 0; i < total; ++i) {
      RETURN_IF_ERROR(ReadForwardingTable(switches[i], port.get(), options, &first_probe,
                                          &out.forwarding_tables, &out.mads_sent));
      if (options.progress) options.progress(i + 1, total);
    }
    NoteLidOwners(nodes, &out.forwarding_tables);
  }
  out.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  return out;
}

}  // namespace toporr::collectors
