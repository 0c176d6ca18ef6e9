#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "collectors/ibnetdiscover_parsers.h"
#include "collectors/ibnetdiscover_scan.h"
#include "common/status_macros.h"
#include "common/text_scan.h"

namespace toporr::collectors::ibnetdiscover_internal {
namespace {

class TopologyParser {
 public:
  TopologyParser(string_view text, int first_line, const IbnetdiscoverOptions& options)
      : text_(text), first_line_(first_line), err_(options.file_name) {}

  absl::StatusOr<Fabric> Run() {
    // A node record takes at least 5 lines and a port line one: these bounds avoid regrowth.
    const size_t approx_lines = std::count(text_.begin(), text_.end(), '\n') + 1;
    fabric_.nodes.reserve(approx_lines / 6 + 8);
    pending_.reserve(approx_lines);
    port_stamp_.fill(-1);
    RETURN_IF_ERROR(ForEachContentLine(text_, [this](string_view t, int n) {
      return n < first_line_ ? absl::OkStatus() : ParseLine(t, n);
    }));
    RETURN_IF_ERROR(FinishRecord());
    if (ids_line_ > 0) {
      return err_.At(ids_line_,
                     "node header lines are not followed by a Switch/Ca/Rt line "
                     "(the dump is truncated)");
    }
    if (fabric_.nodes.empty()) return err_.Whole("no Switch, Ca or Rt record found");
    RETURN_IF_ERROR(ResolveLinks());
    return std::move(fabric_);
  }

 private:
  struct Ids {
    uint32_t vendor_id = 0, device_id = 0;
    uint64_t system_image_guid = 0, declared_guid = 0;
    int declared_line = 0;
  };
  // One port line, kept until every node is known.
  struct PortLine {
    int node;
    int port;
    int remote_port;
    uint64_t remote_guid;
    uint64_t remote_port_guid;  // 0 when not printed (remote is a switch)
    int line;
    uint8_t width;
    LinkSpeed speed;
    char remote_type;
  };

  absl::Status ParseLine(string_view t, int n) {
    switch (t[0]) {
      case '[':
        return ParsePortLine(t, n);
      case 'S':
        if (StartsWith(t, "Switch")) return ParseNodeHeader(t, n, NodeType::kSwitch, 6);
        break;
      case 'C':
        if (StartsWith(t, "Chassis")) return FinishRecord();
        if (StartsWith(t, "Ca")) return ParseNodeHeader(t, n, NodeType::kCa, 2);
        break;
      case 'R':
        if (StartsWith(t, "Rt")) return ParseNodeHeader(t, n, NodeType::kRouter, 2);
        break;
      case 'N':
        if (StartsWith(t, "Non-Chassis Nodes")) return FinishRecord();
        break;
      default:
        break;
    }
    if (t.find('=') != string_view::npos) return ParseIdsLine(t, n);
    if (IsListLine(t)) return ListFormatError(err_, n);
    return err_.At(n, "unrecognised line '" + std::string(t.substr(0, 60)) + "'");
  }

  absl::Status ParseIdsLine(string_view t, int n) {
    RETURN_IF_ERROR(FinishRecord());
    if (ids_line_ == 0) ids_line_ = n;
    string_view v = t;
    uint64_t x = 0;
    const char* field = nullptr;
    bool repeat = false;
    if (Consume(v, "vendid=")) {
      field = "vendid";
      repeat = seen_vendid_;
      seen_vendid_ = true;
      if (!ConsumeHex0x(v, &x)) return BadValue(n, field);
      ids_.vendor_id = static_cast<uint32_t>(x);
    } else if (Consume(v, "devid=")) {
      field = "devid";
      repeat = seen_devid_;
      seen_devid_ = true;
      if (!ConsumeHex0x(v, &x)) return BadValue(n, field);
      ids_.device_id = static_cast<uint32_t>(x);
    } else if (Consume(v, "sysimgguid=")) {
      field = "sysimgguid";
      if (!ConsumeHex0x(v, &ids_.system_image_guid)) return BadValue(n, field);
    } else if (Consume(v, "switchguid=") || Consume(v, "caguid=") || Consume(v, "rtguid=")) {
      field = "node GUID";
      repeat = ids_.declared_line != 0;
      if (!ConsumeHex0x(v, &ids_.declared_guid)) {
        return err_.At(n, "bad GUID in '" + std::string(t) + "'");
      }
      ids_.declared_line = n;
      if (Consume(v, "(")) {  // switchguid=0x..(port guid)
        uint64_t port_guid;
        if (!ConsumeHex(v, &port_guid) || !Consume(v, ")")) {
          return err_.At(n, "bad port GUID in '" + std::string(t) + "'");
        }
      }
    } else {
      return err_.At(n, "unrecognised line '" + std::string(t.substr(0, 60)) + "'");
    }
    if (repeat) {
      return err_.At(n, std::string("second ") + field +
                            " line before a Switch/Ca/Rt line; the "
                            "record starting at line " +
                            std::to_string(ids_line_) + " is truncated");
    }
    SkipSpace(v);
    if (!v.empty() && v[0] != '#') return BadValue(n, field);
    return absl::OkStatus();
  }

  absl::Status BadValue(int n, const char* field) const {
    return err_.At(n, std::string("bad ") + field + " value");
  }

  // `Switch 12 "S-…"  # "desc" enhanced port 0 lid 7 lmc 0`, `Ca 2 "H-…"  # "desc" [(scp)]`.
  absl::Status ParseNodeHeader(string_view t, int n, NodeType type, size_t keyword_len) {
    RETURN_IF_ERROR(FinishRecord());
    string_view s = t.substr(keyword_len);
    const char* what = type == NodeType::kSwitch ? "Switch" : type == NodeType::kCa ? "Ca" : "Rt";
    if (s.empty() || !IsSpace(s[0])) {
      if (IsListLine(t)) return ListFormatError(err_, n);
      return err_.At(n, "unrecognised line '" + std::string(t.substr(0, 60)) + "'");
    }
    SkipSpace(s);
    if (StartsWith(s, ":")) return ListFormatError(err_, n);
    Node node;
    node.type = type;
    int nports;
    if (!ConsumeDecimal(s, kMaxPort, &nports)) {
      return err_.At(n, std::string(what) + " line: expected the number of ports");
    }
    node.num_ports = nports;
    SkipSpace(s);
    char id_type;
    if (!ParseNodeId(s, &id_type, &node.guid)) {
      return err_.At(n, std::string(what) + " line: expected a node id like \"" + TypeLetter(type) +
                            "-0002c90200500300\"");
    }
    if (ids_.declared_line != 0 && ids_.declared_guid != node.guid) {
      return err_.At(n, "node id " + NodeRef(id_type, node.guid) + " disagrees with the GUID " +
                            FormatGuid(ids_.declared_guid) + " on line " +
                            std::to_string(ids_.declared_line));
    }
    SkipSpace(s);
    if (!Consume(s, "#"))
      return err_.At(n, std::string(what) + " line: missing '# \"description\"'");
    SkipSpace(s);
    if (!Consume(s, "\"")) return err_.At(n, std::string(what) + " line: missing description");
    if (type == NodeType::kSwitch) {
      size_t end = s.rfind("\" enhanced port 0");
      node.enhanced_port0 = end != string_view::npos;
      if (!node.enhanced_port0) end = s.rfind("\" base port 0");
      if (end == string_view::npos) {
        return err_.At(n,
                       "Switch line: expected '\"description\" base|enhanced port 0 lid L "
                       "lmc M'");
      }
      node.description.assign(s.data(), end);
      s.remove_prefix(end + 1);
      SkipSpace(s);
      Consume(s, "enhanced") || Consume(s, "base");
      int lmc;
      uint64_t lid;
      if (!ConsumeWords(s, " port 0 lid ") || !ConsumeDecimal(s, &lid) || lid > 0xffff ||
          !ConsumeWords(s, " lmc ") || !ConsumeDecimal(s, 7, &lmc)) {
        return err_.At(n, "Switch line: bad 'port 0 lid L lmc M'");
      }
      node.lid = static_cast<uint32_t>(lid);
      node.lmc = static_cast<uint8_t>(lmc);
    } else {
      const size_t end = s.rfind('"');
      if (end == string_view::npos) return err_.At(n, "unterminated description");
      node.description.assign(s.data(), end);
    }
    node.vendor_id = ids_.vendor_id;
    node.device_id = ids_.device_id;
    node.system_image_guid = ids_.system_image_guid;
    if (IsAggregationNode(node)) node.type = NodeType::kAggregation;
    int index;
    absl::Status added = fabric_.AddNode(std::move(node), &index);
    if (!added.ok()) return err_.At(n, std::string(added.message()));
    cur_ = index;
    cur_line_ = n;
    cur_first_pending_ = pending_.size();
    ++record_stamp_;
    ids_ = Ids();
    ids_line_ = 0;
    seen_vendid_ = seen_devid_ = false;
    return absl::OkStatus();
  }

  // `[P][ext E](localguid)  "T-GUID"[RP][ext E](remoteguid)  # [lid L lmc M ]"desc" lid RL WS...`
  absl::Status ParsePortLine(string_view t, int n) {
    if (cur_ < 0) {
      if (ids_line_ > 0) {
        return err_.At(n, "port line inside a node header (no Switch/Ca/Rt line since line " +
                              std::to_string(ids_line_) + ")");
      }
      return err_.At(n, "port line before any node header");
    }
    Node& node = fabric_.nodes[cur_];
    string_view s = t;
    PortLine p;
    p.node = cur_;
    p.line = n;
    p.remote_port_guid = 0;
    Port port;
    if (!Consume(s, "[") || !ConsumeDecimal(s, kMaxPort, &p.port) || !Consume(s, "]") ||
        p.port == 0) {
      return err_.At(n, "bad port number (expected '[1]'..'[255]')");
    }
    port.number = p.port;
    if (Consume(s, "[ext ")) {
      if (!ConsumeDecimal(s, 0xffff, &port.ext_number) || !Consume(s, "]")) {
        return err_.At(n, "bad '[ext N]' port number");
      }
    }
    if (Consume(s, "(")) {
      if (!ConsumeHex(s, &port.guid) || !Consume(s, ")")) return err_.At(n, "bad local port GUID");
    }
    SkipSpace(s);
    if (!ParseNodeId(s, &p.remote_type, &p.remote_guid)) {
      return err_.At(n, "expected the remote node id like \"S-0002c90200500300\"");
    }
    p.remote_port = 1;  // ibnetdiscover always prints it; ibsim defaults to 1
    while (!AtTokenEnd(s) && s[0] != '#') {
      if (Consume(s, "[ext ")) {
        int ext;
        if (!ConsumeDecimal(s, 0xffff, &ext) || !Consume(s, "]"))
          return err_.At(n, "bad remote '[ext N]'");
      } else if (Consume(s, "[")) {
        if (!ConsumeDecimal(s, kMaxPort, &p.remote_port) || !Consume(s, "]") ||
            p.remote_port == 0) {
          return err_.At(n, "bad remote port number");
        }
      } else if (Consume(s, "(")) {
        if (!ConsumeHex(s, &p.remote_port_guid) || !Consume(s, ")")) {
          return err_.At(n, "bad remote port GUID");
        }
      } else {
        return err_.At(n, "unexpected text after the remote node id");
      }
    }
    SkipSpace(s);
    if (!Consume(s, "#"))
      return err_.At(n, "port line without its '# ... lid N <width><speed>' part");
    SkipSpace(s);
    if (node.type == NodeType::kSwitch) {
      port.guid = node.guid;
      port.lid = node.lid;
      port.lmc = node.lmc;
    } else if (Consume(s, "lid ")) {
      uint64_t lid;
      int lmc;
      if (!ConsumeDecimal(s, &lid) || lid > 0xffff || !ConsumeWords(s, " lmc ") ||
          !ConsumeDecimal(s, 7, &lmc)) {
        return err_.At(n, "bad local 'lid L lmc M'");
      }
      port.lid = static_cast<uint32_t>(lid);
      port.lmc = static_cast<uint8_t>(lmc);
    }
    // The remote description may hold anything; the remote LID and the rate follow its last
    // " lid ".
    const size_t lid_at = s.rfind(" lid ");
    if (lid_at == string_view::npos) return err_.At(n, "port line without 'lid N <width><speed>'");
    s.remove_prefix(lid_at + 5);
    uint64_t remote_lid;
    if (!ConsumeDecimal(s, &remote_lid)) return err_.At(n, "bad remote lid");
    SkipSpace(s);
    size_t tok = 0;
    while (tok < s.size() && !IsSpace(s[tok])) ++tok;
    int width;
    if (!ParseWidthSpeed(s.substr(0, tok), &width, &p.speed)) {
      return err_.At(n, "bad link width/speed '" + std::string(s.substr(0, tok)) +
                            "' (expected e.g. 4xQDR, 12xEDR, 1xSDR, 4xFDR10, 4x?\?\?)");
    }
    p.width = static_cast<uint8_t>(width);
    if (port_stamp_[p.port] == record_stamp_) {
      return err_.At(n, "port " + std::to_string(p.port) + " of " + NodeRef(node) +
                            " is listed twice (first on line " +
                            std::to_string(port_line_[p.port]) + ")");
    }
    port_stamp_[p.port] = record_stamp_;
    port_line_[p.port] = n;
    node.ports.push_back(port);
    pending_.push_back(p);
    return absl::OkStatus();
  }

  absl::Status FinishRecord() {
    if (cur_ < 0) return absl::OkStatus();
    Node& node = fabric_.nodes[cur_];
    if (node.type != NodeType::kSwitch && pending_.size() == cur_first_pending_) {
      return err_.At(cur_line_, std::string(NodeTypeName(node.type)) + " " + NodeRef(node) +
                                    " (\"" + node.description +
                                    "\") has no port lines; the dump is truncated or damaged");
    }
    std::sort(node.ports.begin(), node.ports.end(),
              [](const Port& a, const Port& b) { return a.number < b.number; });
    if (node.type != NodeType::kSwitch && !node.ports.empty()) {
      node.lid = node.ports.front().lid;
      node.lmc = node.ports.front().lmc;
    }
    cur_ = -1;
    return absl::OkStatus();
  }

  absl::Status ResolveLinks() {
    std::unordered_map<uint64_t, int> by_end;
    by_end.reserve(pending_.size());
    auto key = [](int node, int port) { return (static_cast<uint64_t>(node) << 8) | port; };
    for (size_t i = 0; i < pending_.size(); ++i) {
      by_end.emplace(key(pending_[i].node, pending_[i].port), static_cast<int>(i));
    }
    fabric_.links.reserve(pending_.size() / 2 + 1);
    for (size_t i = 0; i < pending_.size(); ++i) {
      const PortLine& p = pending_[i];
      const Node& local = fabric_.nodes[p.node];
      const int rn = fabric_.FindNodeByGuid(p.remote_guid);
      // Built only on error: this loop runs once per port line.
      auto where = [&] {
        return "port " + std::to_string(p.port) + " of " + NodeRef(local) + " is cabled to " +
               NodeRef(p.remote_type, p.remote_guid) + "[" + std::to_string(p.remote_port) + "]";
      };
      if (rn < 0) {
        return err_.At(p.line, where() +
                                   ", a node that is never declared in the file (the dump "
                                   "is truncated?)");
      }
      const Node& remote = fabric_.nodes[rn];
      if (TypeLetter(remote.type) != p.remote_type) {
        return err_.At(p.line,
                       where() + ", but that node is declared as a " + NodeTypeName(remote.type));
      }
      auto it = by_end.find(key(rn, p.remote_port));
      if (it == by_end.end()) {
        return err_.At(p.line, where() + ", but the record of " + NodeRef(remote) +
                                   " has no port " + std::to_string(p.remote_port) + " line");
      }
      const PortLine& q = pending_[it->second];
      if (q.remote_guid != local.guid || q.remote_port != p.port) {
        return err_.At(p.line, where() + ", but line " + std::to_string(q.line) + " says port " +
                                   std::to_string(q.port) + " of " + NodeRef(remote) +
                                   " is cabled to " + NodeRef(q.remote_type, q.remote_guid) + "[" +
                                   std::to_string(q.remote_port) + "]");
      }
      if (it->second < static_cast<int>(i)) continue;  // stored from the other end already
      const Port* rport = remote.FindPort(p.remote_port);
      if (p.remote_port_guid != 0 && rport->guid != 0 && rport->guid != p.remote_port_guid) {
        return err_.At(p.line, where() + "(" + FormatGuid(p.remote_port_guid) + "), but line " +
                                   std::to_string(q.line) + " gives that port GUID " +
                                   FormatGuid(rport->guid));
      }
      int width;
      LinkSpeed speed;
      MergeRate(p.width, p.speed, q.width, q.speed, &width, &speed);
      absl::Status st =
          fabric_.Connect(LinkEnd{p.node, p.port}, LinkEnd{rn, p.remote_port}, width, speed);
      if (!st.ok()) return err_.At(p.line, std::string(st.message()));
    }
    return absl::OkStatus();
  }

  string_view text_;
  int first_line_;  // lines before it are noise (see DetectFormat)
  ErrorSink err_;
  Fabric fabric_;
  std::vector<PortLine> pending_;
  Ids ids_;
  int ids_line_ = 0;  // first line of the node header being collected, 0 if none
  bool seen_vendid_ = false, seen_devid_ = false;
  int cur_ = -1;  // node whose port lines follow, -1 outside a record
  int cur_line_ = 0;
  size_t cur_first_pending_ = 0;
  int record_stamp_ = 0;
  std::array<int, kMaxPort + 1> port_stamp_{};
  std::array<int, kMaxPort + 1> port_line_{};
};

}  // namespace

absl::StatusOr<Fabric> ParseTopologyFile(std::string_view text, int first_line,
                                         const IbnetdiscoverOptions& options) {
  return TopologyParser(text, first_line, options).Run();
}

}  // namespace toporr::collectors::ibnetdiscover_internal
