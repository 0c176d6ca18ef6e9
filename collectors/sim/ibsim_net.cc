#include "collectors/sim/ibsim_net.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "absl/status/status.h"
#include "common/text_scan.h"

namespace toporr::collectors::sim {

using fabric::FormatGuid;
using fabric::LinkSpeed;
using fabric::Node;
using fabric::NodeType;
namespace {

// ibsim's enabled-mask bits (PortInfo encoding).
constexpr int kW1x = 1, kW4x = 2, kW8x = 4, kW12x = 8, kW2x = 16;
constexpr int kSdr = 1, kDdr = 2, kQdr = 4;
constexpr int kFdr = 1, kEdr = 2, kHdr = 4, kNdr = 8;
constexpr size_t kMaxDescription = 63;  // ibsim's nodedesc[64]
constexpr size_t kMaxNodeId = 64;       // ibsim's NODEIDLEN - 1

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// strtoull(s, NULL, 0) on a view: leading blanks, optional 0x, stops at the first bad char.
uint64_t Number(std::string_view s) { return std::strtoull(std::string(s).c_str(), nullptr, 0); }

// Enabled masks for ports created now (ibsim's globals `width=`, `speed=`, `extspeed=`).
struct Masks {
  int width = kW4x;
  int speed = kSdr;
  int ext = 0;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view file_name) : file_(file_name) {
    LineScanner scanner(text);
    for (std::string_view line; scanner.Next(&line);) {
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      lines_.push_back(line);
    }
  }

  absl::StatusOr<IbsimNet> Run() {
    while (next_ < lines_.size()) {
      const int lineno = static_cast<int>(next_) + 1;
      std::string_view line = lines_[next_++];
      absl::Status st = Directive(line, lineno);
      if (!st.ok()) return st;
    }
    absl::Status st = ResolveLinks();
    if (!st.ok()) return st;
    return std::move(net_);
  }

 private:
  absl::Status Error(int line, const std::string& what) const {
    return LineError(file_, line, what);
  }

  absl::Status Directive(std::string_view line, int lineno) {
    // Same prefixes, same order as parse_netconf.
    if (StartsWith(line, "Switch")) return Node(NodeType::kSwitch, line, 6, lineno);
    if (StartsWith(line, "Hca") || StartsWith(line, "Ca")) {
      return Node(NodeType::kCa, line, 3, lineno);
    }
    if (StartsWith(line, "Rt")) return Node(NodeType::kRouter, line, 3, lineno);
    if (StartsWith(line, "switchguid")) return GuidBase(NodeType::kSwitch, line, lineno);
    if (StartsWith(line, "hcaguids") || StartsWith(line, "caguid")) {
      return GuidBase(NodeType::kCa, line, lineno);
    }
    if (StartsWith(line, "rtguid")) return GuidBase(NodeType::kRouter, line, lineno);
    if (StartsWith(line, "vendid"))
      return Assign(line, lineno, [&](uint64_t v) {
        vendor_id_ = static_cast<uint32_t>(v);
        return absl::OkStatus();
      });
    if (StartsWith(line, "devid"))
      return Assign(line, lineno, [&](uint64_t v) {
        device_id_ = static_cast<uint32_t>(v);
        return absl::OkStatus();
      });
    if (StartsWith(line, "sysimgguid"))
      return Assign(line, lineno, [&](uint64_t v) {
        system_image_guid_ = v;
        return absl::OkStatus();
      });
    if (StartsWith(line, "width"))
      return Assign(line, lineno, [&](uint64_t v) {
        if (v < 1 || v > 31) return Error(lineno, "width mask must be 1..31 (ibsim aborts)");
        masks_.width = static_cast<int>(v);
        return absl::OkStatus();
      });
    if (StartsWith(line, "speed"))
      return Assign(line, lineno, [&](uint64_t v) {
        if (v < 1 || v > 7) return Error(lineno, "speed mask must be 1..7 (ibsim aborts)");
        masks_.speed = static_cast<int>(v);
        return absl::OkStatus();
      });
    if (StartsWith(line, "extspeed"))
      return Assign(line, lineno, [&](uint64_t v) {
        if (v > 7) return Error(lineno, "extspeed mask must be 0..7 (ibsim aborts)");
        masks_.ext = static_cast<int>(v);
        return absl::OkStatus();
      });
    for (const char* unsupported : {"module", "include", "do"}) {
      if (StartsWith(line, unsupported)) {
        return Error(lineno, std::string("'") + unsupported +
                                 "' is outside the subset this reader accepts; expand it "
                                 "into a plain net file first");
      }
    }
    if (StartsWith(line, "[") || StartsWith(line, "@")) {
      return Error(lineno,
                   "port line outside a node record (more port lines than the "
                   "header's port count, or a blank line inside a record?)");
    }
    return absl::OkStatus();  // comments, blank lines, pdebug=, anything else: ignored
  }

  template <typename F>
  absl::Status Assign(std::string_view line, int lineno, F set) {
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) return Error(lineno, "missing '=' in assignment");
    return set(Number(line.substr(eq + 1)));
  }

  absl::Status GuidBase(NodeType type, std::string_view line, int lineno) {
    int t = static_cast<int>(type);
    size_t eq = line.find('=');
    bool relative = false;
    if (eq == std::string_view::npos) {
      eq = line.find('+');
      relative = true;
    }
    if (eq == std::string_view::npos) return Error(lineno, "GUID base needs '=' or '+'");
    uint64_t v = Number(line.substr(eq + 1));
    if (!relative) {
      abs_guid_[t] = v;
      v = 0;
    }
    guid_[t] = abs_guid_[t] + v;
    return absl::OkStatus();
  }

  absl::Status Node(NodeType type, std::string_view line, size_t keyword_len, int lineno) {
    IbsimNode node;
    node.type = type;
    node.line = lineno;
    size_t d = keyword_len;
    while (d < line.size() && !std::isdigit(static_cast<unsigned char>(line[d]))) ++d;
    node.num_ports = static_cast<int>(Number(line.substr(std::min(d, line.size()))));
    if (node.num_ports <= 0) return Error(lineno, "node header without a port count");
    size_t q1 = line.find('"');
    size_t q2 = q1 == std::string_view::npos ? q1 : line.find('"', q1 + 1);
    if (q2 == std::string_view::npos) return Error(lineno, "node header without a quoted id");
    node.id = std::string(line.substr(q1 + 1, q2 - q1 - 1));
    if (node.id.size() > kMaxNodeId) return Error(lineno, "node id longer than 64 bytes");
    if (node.id.find_first_of("#@") != std::string::npos) {
      return Error(lineno, "'#' and '@' are reserved in node ids");
    }
    if (by_id_.count(node.id)) {
      return Error(lineno, "node id \"" + node.id + "\" already declared on line " +
                               std::to_string(net_.nodes[by_id_[node.id]].line));
    }
    std::string_view rest = line.substr(q2 + 1);
    node.description = node.id;
    size_t hash = rest.find('#');
    if (hash != std::string_view::npos) {
      std::string_view s = rest.substr(hash + 1);
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s[0]))) s.remove_prefix(1);
      std::string_view after;
      if (!s.empty() && s[0] == '"') {
        s.remove_prefix(1);
        size_t e = s.find('"');
        after = e == std::string_view::npos ? std::string_view() : s.substr(e + 1);
        s = s.substr(0, e);
      } else {
        for (const char* stop : {" enhanced port ", " base port ", " lid ", " lmc "}) {
          size_t e = s.find(stop);
          if (e == std::string_view::npos) continue;
          after = s.substr(e + 1);
          s = s.substr(0, e);
          break;
        }
      }
      if (!s.empty()) node.description = std::string(s.substr(0, kMaxDescription));
      node.enhanced_port0 = after.find("enhanced port 0") != std::string_view::npos;
    } else {
      node.enhanced_port0 = rest.find("enhanced port 0") != std::string_view::npos;
    }

    int t = static_cast<int>(type);
    node.guid = guid_[t];
    if (by_guid_.count(node.guid)) {
      return Error(lineno, "GUID " + FormatGuid(node.guid) + " of \"" + node.id +
                               "\" already used on line " +
                               std::to_string(net_.nodes[by_guid_[node.guid]].line));
    }
    guid_[t] += type == NodeType::kSwitch ? 1 : node.num_ports + 1;
    node.vendor_id = vendor_id_;
    node.device_id = device_id_;
    node.system_image_guid = system_image_guid_ ? system_image_guid_ : node.guid;
    vendor_id_ = 0;
    system_image_guid_ = 0;

    // Port lines: at most num_ports of them; a line that is neither a port line nor a
    // comment ends the record and is consumed (ibsim's parse_ports).
    for (int left = node.num_ports; left > 0 && next_ < lines_.size();) {
      const int plineno = static_cast<int>(next_) + 1;
      std::string_view pl = lines_[next_++];
      if (StartsWith(pl, "#")) continue;
      if (StartsWith(pl, "@")) {
        return Error(plineno, "'@' port aliases are outside the subset this reader accepts");
      }
      if (!StartsWith(pl, "[")) {
        if (pl.find_first_not_of(" \t") != std::string_view::npos) {
          return Error(plineno, "this line ends the record of \"" + node.id +
                                    "\" and ibsim would discard it; put a blank line "
                                    "before it");
        }
        break;
      }
      absl::Status st = PortLine(pl, plineno, &node);
      if (!st.ok()) return st;
      --left;
    }
    std::sort(node.ports.begin(), node.ports.end(),
              [](const IbsimPort& a, const IbsimPort& b) { return a.number < b.number; });
    by_id_[node.id] = static_cast<int>(net_.nodes.size());
    by_guid_[node.guid] = static_cast<int>(net_.nodes.size());
    net_.nodes.push_back(std::move(node));
    return absl::OkStatus();
  }

  absl::Status PortLine(std::string_view line, int lineno, IbsimNode* node) {
    IbsimPort port;
    port.line = lineno;
    port.number = std::atoi(std::string(line.substr(1)).c_str());
    if (port.number < 1 || port.number > node->num_ports) {
      return Error(lineno, "port " + std::to_string(port.number) + " outside 1.." +
                               std::to_string(node->num_ports) + " of \"" + node->id + "\"");
    }
    for (const IbsimPort& p : node->ports) {
      if (p.number == port.number) {
        return Error(lineno, "port " + std::to_string(port.number) + " of \"" + node->id +
                                 "\" listed twice (first on line " + std::to_string(p.line) + ")");
      }
    }
    size_t q1 = line.find('"');
    size_t q2 = q1 == std::string_view::npos ? q1 : line.find('"', q1 + 1);
    if (q2 == std::string_view::npos) return Error(lineno, "port line without a remote id");
    port.remote_id = std::string(line.substr(q1 + 1, q2 - q1 - 1));
    std::string_view rest = line.substr(q2 + 1);
    if (!rest.empty() && rest[0] == '[') {
      port.remote_port = std::atoi(std::string(rest.substr(1)).c_str());
      if (port.remote_port <= 0) return Error(lineno, "remote port must be positive");
    }
    port.width_enabled = masks_.width;
    port.speed_enabled = masks_.speed;
    port.ext_speed_enabled = masks_.ext;

    // `opt=value` pairs: the letter before each '=' names the option (w, s, e; others are
    // ignored, like the v= of `ibnetdiscover -f`).
    for (size_t eq = rest.find('=', 1); eq != std::string_view::npos; eq = rest.find('=', eq + 1)) {
      size_t o = eq;
      while (o > 0 && !std::isalpha(static_cast<unsigned char>(rest[o]))) --o;
      uint64_t v = Number(rest.substr(eq + 1));
      switch (rest[o]) {
        case 'w':
          if (v < 1 || v > 31) return Error(lineno, "w= must be 1..31");
          port.width_enabled = static_cast<int>(v);
          break;
        case 's':
          if (v < 1 || v > 7) return Error(lineno, "s= must be 1..7");
          port.speed_enabled = static_cast<int>(v);
          break;
        case 'e':
          if (v > 7) return Error(lineno, "e= must be 0..7");
          port.ext_speed_enabled = static_cast<int>(v);
          break;
        default:
          break;
      }
    }
    if (node->type != NodeType::kRouter) ConnectionComment(rest, &port);
    node->ports.push_back(std::move(port));
    return absl::OkStatus();
  }

  // The `lid L <w>x<SPEED>` tail of an ibnetdiscover port line (the first "lid" after the
  // last quote) overrides the enabled width/speed, as ibsim's parse_port_link_width_and_speed.
  static void ConnectionComment(std::string_view rest, IbsimPort* port) {
    size_t last_quote = rest.rfind('"');
    size_t lid = rest.find("lid", last_quote == std::string_view::npos ? 0 : last_quote);
    if (lid == std::string_view::npos) return;
    int rlid = 0, width = 0;
    char speed[10] = {0};
    if (std::sscanf(std::string(rest.substr(lid)).c_str(), "lid %d %dx%9s", &rlid, &width, speed) !=
        3) {
      return;
    }
    switch (width) {
      case 12:
        port->width_enabled = kW1x | kW4x | kW12x;
        break;
      case 8:
        port->width_enabled = kW8x;
        break;
      case 4:
        port->width_enabled = kW1x | kW4x;
        break;
      case 1:
        port->width_enabled = kW1x;
        break;
      case 2:
        port->width_enabled = kW2x;
        break;
      default:
        break;
    }
    auto is = [&](const char* name) { return std::strncmp(speed, name, std::strlen(speed)) == 0; };
    constexpr int kBasicAll = kSdr | kDdr | kQdr;
    if (is("SDR")) {
      port->speed_enabled = kSdr;
    } else if (is("DDR")) {
      port->speed_enabled = kSdr | kDdr;
    } else if (is("QDR")) {
      port->speed_enabled = kBasicAll;
    } else if (is("FDR")) {
      port->speed_enabled = kBasicAll, port->ext_speed_enabled = kFdr, port->fdr10_enabled = true;
    } else if (is("EDR")) {
      port->speed_enabled = kBasicAll, port->ext_speed_enabled = kFdr | kEdr;
      port->fdr10_enabled = true;
    } else if (is("HDR")) {
      port->speed_enabled = kBasicAll, port->ext_speed_enabled = kFdr | kEdr | kHdr;
      port->fdr10_enabled = true;
    } else if (is("NDR")) {
      port->speed_enabled = kBasicAll, port->ext_speed_enabled = kFdr | kEdr | kHdr | kNdr;
      port->fdr10_enabled = true;
    } else if (is("FDR10")) {
      port->speed_enabled = kBasicAll, port->fdr10_enabled = true;
    }
  }

  absl::Status ResolveLinks() {
    for (int n = 0; n < static_cast<int>(net_.nodes.size()); ++n) {
      const IbsimNode& node = net_.nodes[n];
      for (const IbsimPort& p : node.ports) {
        auto it = by_id_.find(p.remote_id);
        if (it == by_id_.end()) {
          return Error(p.line, "port " + std::to_string(p.number) + " of \"" + node.id +
                                   "\" names unknown node \"" + p.remote_id + "\"");
        }
        const int r = it->second;
        const IbsimNode& remote = net_.nodes[r];
        const IbsimPort* back = nullptr;
        for (const IbsimPort& q : remote.ports)
          if (q.number == p.remote_port) back = &q;
        if (back == nullptr || back->remote_id != node.id || back->remote_port != p.number) {
          return Error(p.line, "cable \"" + node.id + "\"[" + std::to_string(p.number) + "] - \"" +
                                   remote.id + "\"[" + std::to_string(p.remote_port) +
                                   "] is not listed the same "
                                   "way at the other end (line " +
                                   std::to_string(back ? back->line : remote.line) + ")");
        }
        if (std::make_pair(n, p.number) > std::make_pair(r, back->number)) continue;
        IbsimLink link;
        link.node_a = n, link.port_a = p.number, link.node_b = r, link.port_b = back->number;
        absl::Status st = Active(p, *back, &link);
        if (!st.ok()) return st;
        net_.links.push_back(link);
      }
    }
    return absl::OkStatus();
  }

  absl::Status Active(const IbsimPort& a, const IbsimPort& b, IbsimLink* link) const {
    const int w = a.width_enabled & b.width_enabled;
    link->width_lanes = (w & kW12x)  ? 12
                        : (w & kW8x) ? 8
                        : (w & kW4x) ? 4
                        : (w & kW2x) ? 2
                        : (w & kW1x) ? 1
                                     : 0;
    const int s = a.speed_enabled & b.speed_enabled;
    if (link->width_lanes == 0 || s == 0) {
      return Error(a.line, "the two ends (lines " + std::to_string(a.line) + ", " +
                               std::to_string(b.line) +
                               ") share no enabled width or basic speed; ibsim aborts");
    }
    const int e = a.ext_speed_enabled & b.ext_speed_enabled;
    if (e & kNdr) {
      link->speed = LinkSpeed::kNDR;
    } else if (e & kHdr) {
      link->speed = LinkSpeed::kHDR;
    } else if (e & kEdr) {
      link->speed = LinkSpeed::kEDR;
    } else if (e & kFdr) {
      link->speed = LinkSpeed::kFDR;
    } else if (a.fdr10_enabled && b.fdr10_enabled) {
      link->speed = LinkSpeed::kFDR10;
    } else {
      link->speed = (s & kQdr) ? LinkSpeed::kQDR : (s & kDdr) ? LinkSpeed::kDDR : LinkSpeed::kSDR;
    }
    return absl::OkStatus();
  }

  const std::string_view file_;
  std::vector<std::string_view> lines_;
  size_t next_ = 0;
  IbsimNet net_;
  std::unordered_map<std::string, int> by_id_;
  std::unordered_map<uint64_t, int> by_guid_;
  // GUID counters indexed by NodeType (kSwitch = 1, kCa = 2, kRouter = 3), ibsim's defaults.
  uint64_t abs_guid_[4] = {0, 0x200000, 0x100000, 0};
  uint64_t guid_[4] = {0, 0x200000, 0x100000, 0};
  uint32_t vendor_id_ = 0;
  uint32_t device_id_ = 0;
  uint64_t system_image_guid_ = 0;
  Masks masks_;
};

}  // namespace

uint64_t IbsimNode::PortGuid(int number) const {
  return type == NodeType::kSwitch ? guid : guid + static_cast<uint64_t>(number);
}

int IbsimNet::FindNode(std::string_view id) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].id == id) return static_cast<int>(i);
  return -1;
}

absl::StatusOr<IbsimNet> ParseIbsimNet(std::string_view text, std::string_view file_name) {
  return Parser(text, file_name).Run();
}

}  // namespace toporr::collectors::sim
