#include "fabric/fabric_compare.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace toporr::fabric {
namespace {

class Differences {
 public:
  explicit Differences(size_t max) : max_(max) {}
  std::ostream& Add() {
    ++count_;
    scratch_.str("");
    return scratch_;
  }
  void Commit() {
    if (out_.size() < max_) out_.push_back(scratch_.str());
  }
  std::vector<std::string> Take() {
    if (count_ > out_.size()) {
      out_.push_back("... and " + std::to_string(count_ - out_.size()) + " more");
    }
    return std::move(out_);
  }

 private:
  size_t max_;
  size_t count_ = 0;
  std::ostringstream scratch_;
  std::vector<std::string> out_;
};

#define TOPORR_DIFF(diffs, expr) \
  do {                           \
    (diffs).Add() << expr;       \
    (diffs).Commit();            \
  } while (0)

using Cable = std::tuple<uint64_t, int, uint64_t, int, int, LinkSpeed, double>;

std::multiset<Cable> Cables(const Fabric& f) {
  std::multiset<Cable> out;
  for (const Link& l : f.links) {
    uint64_t ga = f.nodes[l.a.node].guid, gb = f.nodes[l.b.node].guid;
    int pa = l.a.port, pb = l.b.port;
    if (std::make_pair(gb, pb) < std::make_pair(ga, pa)) {
      std::swap(ga, gb);
      std::swap(pa, pb);
    }
    out.insert({ga, pa, gb, pb, l.width_lanes, l.speed, l.data_rate_gbps});
  }
  return out;
}

std::string Describe(const Cable& c) {
  std::ostringstream s;
  s << FormatGuid(std::get<0>(c)) << "[" << std::get<1>(c) << "] - " << FormatGuid(std::get<2>(c))
    << "[" << std::get<3>(c) << "] " << std::get<4>(c) << "x" << LinkSpeedName(std::get<5>(c))
    << " " << std::get<6>(c) << " Gb/s";
  return s.str();
}

void ComparePorts(const Node& w, const Node& g, Differences* d) {
  auto cabled = [](const Node& n) {
    std::map<int, const Port*> out;
    for (const Port& p : n.ports)
      if (p.link >= 0) out[p.number] = &p;
    return out;
  };
  const auto wp = cabled(w), gp = cabled(g);
  const std::string id = FormatGuid(w.guid) + " (\"" + w.description + "\")";
  for (const auto& [number, p] : wp) {
    auto it = gp.find(number);
    if (it == gp.end()) {
      TOPORR_DIFF(*d, id << " port " << number << " is cabled only in want");
      continue;
    }
    const Port& q = *it->second;
    if (p->guid != q.guid || p->lid != q.lid || p->lmc != q.lmc || p->ext_number != q.ext_number) {
      TOPORR_DIFF(*d, id << " port " << number << ": want guid " << FormatGuid(p->guid) << " lid "
                         << p->lid << " lmc " << int{p->lmc} << " ext " << p->ext_number
                         << ", got guid " << FormatGuid(q.guid) << " lid " << q.lid << " lmc "
                         << int{q.lmc} << " ext " << q.ext_number);
    }
  }
  for (const auto& [number, p] : gp) {
    if (wp.count(number) == 0)
      TOPORR_DIFF(*d, id << " port " << number << " is cabled only in got");
  }
}

}  // namespace

std::vector<std::string> FabricDifferences(const Fabric& want, const Fabric& got,
                                           size_t max_differences) {
  Differences d(max_differences);
  std::map<uint64_t, const Node*> wn, gn;
  for (const Node& n : want.nodes) wn[n.guid] = &n;
  for (const Node& n : got.nodes) gn[n.guid] = &n;
  for (const auto& [guid, w] : wn) {
    auto it = gn.find(guid);
    if (it == gn.end()) {
      TOPORR_DIFF(d,
                  "node " << FormatGuid(guid) << " (\"" << w->description << "\") is only in want");
      continue;
    }
    const Node& g = *it->second;
    const std::string id = FormatGuid(guid) + " (\"" + w->description + "\")";
    if (w->type != g.type) {
      TOPORR_DIFF(d, id << ": type " << NodeTypeName(w->type) << " vs " << NodeTypeName(g.type));
    }
    if (w->description != g.description) {
      TOPORR_DIFF(d, id << ": description vs \"" << g.description << "\"");
    }
    if (w->vendor_id != g.vendor_id || w->device_id != g.device_id ||
        w->system_image_guid != g.system_image_guid || w->num_ports != g.num_ports) {
      TOPORR_DIFF(d, id << ": vendor/device/sysimg/ports " << w->vendor_id << "/" << w->device_id
                        << "/" << FormatGuid(w->system_image_guid) << "/" << w->num_ports << " vs "
                        << g.vendor_id << "/" << g.device_id << "/"
                        << FormatGuid(g.system_image_guid) << "/" << g.num_ports);
    }
    if (w->lid != g.lid || w->lmc != g.lmc || w->enhanced_port0 != g.enhanced_port0) {
      TOPORR_DIFF(d, id << ": lid/lmc/enhanced " << w->lid << "/" << int{w->lmc} << "/"
                        << w->enhanced_port0 << " vs " << g.lid << "/" << int{g.lmc} << "/"
                        << g.enhanced_port0);
    }
    ComparePorts(*w, g, &d);
  }
  for (const auto& [guid, g] : gn) {
    if (wn.count(guid) == 0) {
      TOPORR_DIFF(d,
                  "node " << FormatGuid(guid) << " (\"" << g->description << "\") is only in got");
    }
  }
  const std::multiset<Cable> wc = Cables(want), gc = Cables(got);
  for (const Cable& c : wc) {
    if (gc.count(c) < wc.count(c)) TOPORR_DIFF(d, "link only in want: " << Describe(c));
  }
  for (const Cable& c : gc) {
    if (wc.count(c) < gc.count(c)) TOPORR_DIFF(d, "link only in got: " << Describe(c));
  }
  auto hosts = [](const Fabric& f) {
    std::map<std::string, std::vector<uint64_t>> out;
    for (const Host& h : f.hosts) {
      for (int ca : h.cas) out[h.name].push_back(f.nodes[ca].guid);
      std::sort(out[h.name].begin(), out[h.name].end());
    }
    return out;
  };
  if (hosts(want) != hosts(got)) {
    TOPORR_DIFF(d, "hosts differ: " << want.hosts.size() << " vs " << got.hosts.size());
  }
  return d.Take();
}

std::vector<std::string> ForwardingTablesDifferences(const ForwardingTables& want,
                                                     const ForwardingTables& got,
                                                     size_t max_differences) {
  Differences d(max_differences);
  std::vector<bool> routed;  // LIDs some switch of `want` has an entry for
  for (const SwitchForwardingTable& w : want.switches()) {
    const std::string id = FormatGuid(w.guid) + " ('" + w.description + "')";
    const SwitchForwardingTable* g = got.FindTable(w.guid);
    if (g == nullptr) {
      TOPORR_DIFF(d, "switch " << id << " has a table only in want");
      continue;
    }
    if (w.lid != g->lid || w.description != g->description) {
      TOPORR_DIFF(d, "switch " << id << ": lid " << w.lid << " vs " << g->lid
                               << ", description vs '" << g->description << "'");
    }
    const size_t n = std::max(w.out_port.size(), g->out_port.size());
    if (routed.size() < n) routed.resize(n, false);
    for (size_t lid = 0; lid < n; ++lid) {
      const uint8_t a = w.OutPort(static_cast<uint32_t>(lid));
      const uint8_t b = g->OutPort(static_cast<uint32_t>(lid));
      if (a != ForwardingTables::kUnsetPort) routed[lid] = true;
      if (a != b) {
        TOPORR_DIFF(d, "switch " << id << " LID " << lid << ": port " << int{a} << " vs " << int{b}
                                 << " (255 = unassigned)");
      }
    }
  }
  for (const SwitchForwardingTable& g : got.switches()) {
    if (want.FindTable(g.guid) == nullptr) {
      TOPORR_DIFF(d, "switch " << FormatGuid(g.guid) << " has a table only in got");
    }
  }
  const std::vector<uint64_t>& wo = want.lid_port_guid();
  const std::vector<uint64_t>& go = got.lid_port_guid();
  for (size_t lid = 0; lid < wo.size() && lid < routed.size(); ++lid) {
    if (!routed[lid] || wo[lid] == 0) continue;
    const uint64_t g = lid < go.size() ? go[lid] : 0;
    if (g != wo[lid]) {
      TOPORR_DIFF(d,
                  "owner of LID " << lid << ": " << FormatGuid(wo[lid]) << " vs " << FormatGuid(g));
    }
  }
  return d.Take();
}

}  // namespace toporr::fabric
