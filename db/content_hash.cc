#include "db/content_hash.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <vector>

namespace toporr::db {
namespace {

using fabric::Fabric;

// Little-endian, length-prefixed: no two different contents share an encoding.
class Encoder {
 public:
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void I32(int v) { U32(static_cast<uint32_t>(v)); }
  void F64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    U64(bits);
  }
  void Str(const std::string& s) {
    U64(s.size());
    out_.append(s);
  }
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

std::string Sha256Hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

}  // namespace

std::string FabricContentHash(const Fabric& fabric) {
  const int n = static_cast<int>(fabric.nodes.size());
  auto guid_of = [&](int node) -> uint64_t {
    return node >= 0 && node < n ? fabric.nodes[node].guid : 0;
  };

  Encoder e;
  e.Str("toporr-fabric-content-v1");

  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return fabric.nodes[x].guid < fabric.nodes[y].guid; });
  e.U8('N');
  e.U64(order.size());
  for (int i : order) {
    const fabric::Node& node = fabric.nodes[i];
    e.U8(static_cast<uint8_t>(node.type));
    e.U64(node.guid);
    e.U64(node.system_image_guid);
    e.U32(node.vendor_id);
    e.U32(node.device_id);
    e.I32(node.num_ports);
    e.Str(node.description);
    e.U32(node.lid);
    e.U8(node.lmc);
    e.U8(node.enhanced_port0 ? 1 : 0);
    std::vector<const fabric::Port*> ports;
    for (const fabric::Port& p : node.ports) ports.push_back(&p);
    std::stable_sort(ports.begin(), ports.end(),
                     [](auto* a, auto* b) { return a->number < b->number; });
    e.U64(ports.size());
    for (const fabric::Port* p : ports) {
      e.I32(p->number);
      e.I32(p->ext_number);
      e.U64(p->guid);
      e.U32(p->lid);
      e.U8(p->lmc);
    }
  }

  using End = std::pair<uint64_t, int>;  // (node GUID, port number)
  struct CanonicalLink {
    End a, b;
    int width;
    fabric::LinkSpeed speed;
    double rate;
  };
  std::vector<CanonicalLink> links;
  links.reserve(fabric.links.size());
  for (const fabric::Link& l : fabric.links) {
    End a{guid_of(l.a.node), l.a.port};
    End b{guid_of(l.b.node), l.b.port};
    if (b < a) std::swap(a, b);
    links.push_back({a, b, l.width_lanes, l.speed, l.data_rate_gbps});
  }
  std::sort(links.begin(), links.end(), [](const CanonicalLink& x, const CanonicalLink& y) {
    return std::tie(x.a, x.b, x.width, x.speed, x.rate) <
           std::tie(y.a, y.b, y.width, y.speed, y.rate);
  });
  e.U8('L');
  e.U64(links.size());
  for (const CanonicalLink& l : links) {
    e.U64(l.a.first);
    e.I32(l.a.second);
    e.U64(l.b.first);
    e.I32(l.b.second);
    e.I32(l.width);
    e.U8(static_cast<uint8_t>(l.speed));
    e.F64(l.rate);
  }

  std::vector<const fabric::Host*> hosts;
  for (const fabric::Host& h : fabric.hosts) hosts.push_back(&h);
  std::stable_sort(hosts.begin(), hosts.end(), [](auto* a, auto* b) { return a->name < b->name; });
  e.U8('H');
  e.U64(hosts.size());
  for (const fabric::Host* h : hosts) {
    e.Str(h->name);
    std::vector<uint64_t> cas;
    for (int ca : h->cas) cas.push_back(guid_of(ca));
    std::sort(cas.begin(), cas.end());
    e.U64(cas.size());
    for (uint64_t g : cas) e.U64(g);
  }

  std::vector<uint64_t> anonymous;
  for (int node : fabric.anonymous_endpoints) anonymous.push_back(guid_of(node));
  std::sort(anonymous.begin(), anonymous.end());
  e.U8('A');
  e.U64(anonymous.size());
  for (uint64_t g : anonymous) e.U64(g);

  return Sha256Hex(e.bytes());
}

std::string SnapshotContentHash(const Fabric& fabric, const fabric::ForwardingTables* tables) {
  const std::string fabric_hash = FabricContentHash(fabric);
  if (tables == nullptr || tables->switches().empty()) return fabric_hash;
  std::vector<const fabric::SwitchForwardingTable*> switches;
  for (const auto& t : tables->switches()) switches.push_back(&t);
  std::sort(switches.begin(), switches.end(), [](auto* a, auto* b) { return a->guid < b->guid; });
  Encoder e;
  e.Str("toporr-snapshot-v1");
  e.Str(fabric_hash);
  e.U64(switches.size());
  for (const auto* t : switches) {
    e.U64(t->guid);
    e.U32(t->lid);
    e.U64(t->out_port.size());
    e.Str(std::string(t->out_port.begin(), t->out_port.end()));
  }
  e.U64(tables->lid_port_guid().size());
  for (uint64_t g : tables->lid_port_guid()) e.U64(g);
  return Sha256Hex(e.bytes());
}

}  // namespace toporr::db
