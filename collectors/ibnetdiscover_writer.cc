#include "collectors/ibnetdiscover_writer.h"

#include <cinttypes>
#include <cstdio>
#include <string>
#include <unordered_map>

namespace toporr::collectors {

using fabric::Fabric;
using fabric::ForwardingTables;
using fabric::Link;
using fabric::LinkEnd;
using fabric::LinkSpeedName;
using fabric::Node;
using fabric::NodeType;
using fabric::Port;
using fabric::SwitchForwardingTable;
namespace {

// printf-style append; the lines written here are short, descriptions are at most 64 bytes
// on the wire but may be longer in hand-built fabrics, hence the second pass.
template <typename... Args>
void Appendf(std::string* out, const char* fmt, Args... args) {
  char buf[256];
  const int n = std::snprintf(buf, sizeof(buf), fmt, args...);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof(buf)) {
    out->append(buf, n);
    return;
  }
  const size_t at = out->size();
  out->resize(at + n + 1);
  std::snprintf(&(*out)[at], n + 1, fmt, args...);
  out->resize(at + n);
}

char TypeLetter(NodeType t) {
  return t == NodeType::kSwitch ? 'S' : t == NodeType::kRouter ? 'R' : 'H';
}

const char* WidthText(int lanes) {
  switch (lanes) {
    case 1:
      return "1x";
    case 2:
      return "2x";
    case 4:
      return "4x";
    case 8:
      return "8x";
    case 12:
      return "12x";
    default:
      return "??";
  }
}

// `"S-0002c90200500300"[9][ext 3](2c90200500301)`: the remote end as a port line names it.
void AppendRemote(std::string* out, const Node& remote, const Port& rport) {
  Appendf(out, "\"%c-%016" PRIx64 "\"[%d]", TypeLetter(remote.type), remote.guid, rport.number);
  if (rport.ext_number != 0) Appendf(out, "[ext %d]", rport.ext_number);
  if (remote.type != NodeType::kSwitch) Appendf(out, "(%" PRIx64 ")", rport.guid);
}

void AppendNode(const Fabric& fabric, const Node& node, std::string* out) {
  const bool is_switch = node.type == NodeType::kSwitch;
  // A CA/router record without port lines reads back as a truncated dump.
  if (!is_switch) {
    bool cabled = false;
    for (const Port& p : node.ports) cabled = cabled || p.link >= 0;
    if (!cabled) return;
  }
  Appendf(out, "\nvendid=0x%x\ndevid=0x%x\n", node.vendor_id, node.device_id);
  if (node.system_image_guid != 0) {
    Appendf(out, "sysimgguid=0x%" PRIx64 "\n", node.system_image_guid);
  }
  const char* keyword = is_switch ? "Switch" : node.type == NodeType::kRouter ? "Rt" : "Ca";
  if (is_switch) {
    Appendf(out, "switchguid=0x%" PRIx64 "(%" PRIx64 ")\n", node.guid, node.guid);
    Appendf(out, "%s\t%d \"S-%016" PRIx64 "\"\t\t# \"", keyword, node.num_ports, node.guid);
    out->append(node.description);
    Appendf(out, "\" %s port 0 lid %u lmc %u\n", node.enhanced_port0 ? "enhanced" : "base",
            node.lid, static_cast<unsigned>(node.lmc));
  } else {
    Appendf(out, "%sguid=0x%" PRIx64 "\n", node.type == NodeType::kRouter ? "rt" : "ca", node.guid);
    Appendf(out, "%s\t%d \"%c-%016" PRIx64 "\"\t\t# \"", keyword, node.num_ports,
            TypeLetter(node.type), node.guid);
    out->append(node.description);
    out->append("\"\n");
  }
  const LinkEnd self{static_cast<int>(&node - fabric.nodes.data()), 0};
  for (const Port& port : node.ports) {
    if (port.link < 0) continue;
    const Link& link = fabric.links[port.link];
    const LinkEnd& peer = fabric.Peer(port.link, LinkEnd{self.node, port.number});
    const Node& remote = fabric.nodes[peer.node];
    const Port* rport = remote.FindPort(peer.port);
    Port fallback;  // a hand-built fabric may lack the remote Port entry
    fallback.number = peer.port;
    if (rport == nullptr) rport = &fallback;
    Appendf(out, "[%d]", port.number);
    if (port.ext_number != 0) Appendf(out, "[ext %d]", port.ext_number);
    if (!is_switch) Appendf(out, "(%" PRIx64 ")", port.guid);
    out->push_back('\t');
    AppendRemote(out, remote, *rport);
    out->append("\t\t# ");
    if (!is_switch) Appendf(out, "lid %u lmc %u ", port.lid, static_cast<unsigned>(port.lmc));
    out->push_back('"');
    out->append(remote.description);
    const uint32_t remote_lid = remote.type == NodeType::kSwitch ? remote.lid : rport->lid;
    Appendf(out, "\" lid %u %s%s\n", remote_lid, WidthText(link.width_lanes),
            LinkSpeedName(link.speed));
  }
}

struct LidOwner {
  uint64_t port_guid = 0;
  int node = -1;
};

const char* DumpFtsTypeName(NodeType t) {
  switch (t) {
    case NodeType::kSwitch:
      return "Switch";
    case NodeType::kRouter:
      return "Router";
    default:
      return "Channel Adapter";
  }
}

}  // namespace

std::string FormatIbnetdiscover(const Fabric& fabric) {
  std::string out;
  out.reserve(fabric.nodes.size() * 160 + fabric.links.size() * 2 * 90);
  out.append("#\n# Topology file: written by toporr (ibnetdiscover layout)\n#\n");
  for (const Node& node : fabric.nodes) AppendNode(fabric, node, &out);
  return out;
}

std::string FormatDumpFts(const ForwardingTables& tables, const Fabric& fabric) {
  // Who owns each LID, and which node each port GUID belongs to, from the fabric.
  std::unordered_map<uint32_t, LidOwner> by_lid;
  std::unordered_map<uint64_t, int> node_of_port;
  for (size_t i = 0; i < fabric.nodes.size(); ++i) {
    const Node& n = fabric.nodes[i];
    const int index = static_cast<int>(i);
    if (n.type == NodeType::kSwitch) {
      node_of_port.emplace(n.guid, index);
      if (n.lid != 0) by_lid.emplace(n.lid, LidOwner{n.guid, index});
      continue;
    }
    for (const Port& p : n.ports) {
      node_of_port.emplace(p.guid, index);
      if (p.lid == 0) continue;
      for (uint32_t l = p.lid; l < p.lid + (1u << p.lmc); ++l) {
        by_lid.emplace(l, LidOwner{p.guid, index});
      }
    }
  }
  const std::vector<uint64_t>& named = tables.lid_port_guid();

  std::string out;
  for (const SwitchForwardingTable& sw : tables.switches()) {
    const size_t top = sw.out_port.empty() ? 0 : sw.out_port.size() - 1;
    Appendf(&out, "Unicast lids [0x0-0x%zx] of switch Lid %u guid 0x%016" PRIx64 " ('", top, sw.lid,
            sw.guid);
    out.append(sw.description);
    out.append("'):\n  Lid  Out   Destination\n       Port     Info \n");
    int entries = 0;
    for (size_t lid = 0; lid < sw.out_port.size(); ++lid) {
      const uint8_t port = sw.out_port[lid];
      if (port == ForwardingTables::kUnsetPort) continue;
      ++entries;
      Appendf(&out, "0x%04zx %03u : (", lid, static_cast<unsigned>(port));
      LidOwner owner;
      auto it = by_lid.find(static_cast<uint32_t>(lid));
      if (it != by_lid.end()) owner = it->second;
      if (lid < named.size() && named[lid] != 0 && named[lid] != owner.port_guid) {
        owner.port_guid = named[lid];
        auto n = node_of_port.find(owner.port_guid);
        owner.node = n == node_of_port.end() ? -1 : n->second;
      }
      if (owner.port_guid == 0) {
        out.append("node info not available fabric scan)\n");
      } else if (owner.node < 0) {
        Appendf(&out, "portguid 0x%016" PRIx64 ")\n", owner.port_guid);
      } else {
        const Node& n = fabric.nodes[owner.node];
        Appendf(&out, "%s portguid 0x%016" PRIx64 ": '", DumpFtsTypeName(n.type), owner.port_guid);
        out.append(n.description);
        out.append("')\n");
      }
    }
    Appendf(&out, "%d valid lids dumped \n", entries);
  }
  return out;
}

}  // namespace toporr::collectors
