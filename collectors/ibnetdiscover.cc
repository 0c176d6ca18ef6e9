#include "collectors/ibnetdiscover.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/status_macros.h"
#include "common/text_scan.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::FormatGuid;
using fabric::Link;
using fabric::LinkDataRateGbps;
using fabric::LinkEnd;
using fabric::LinkSpeed;
using fabric::LinkSpeedName;
using fabric::Node;
using fabric::NodeType;
using fabric::NodeTypeName;
using fabric::Port;
namespace {

using std::string_view;

constexpr int kMaxPort = 255;  // IB port numbers are 8-bit

// ---------------------------------------------------------------------------------------
// Small scanners over a string_view that consume what they accept (numbers, Consume and
// the line splitter are common/text_scan.h's). Whitespace here also takes \f and \v, which
// text_scan.h's IsBlank does not: ibnetdiscover input has always been read that way.

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

void SkipSpace(string_view& s) {
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  s.remove_prefix(i);
}

string_view TrimSpaceRight(string_view s) {
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool StartsWith(string_view s, string_view p) { return s.substr(0, p.size()) == p; }

// Like Consume, but `lit`'s single spaces match any run (>= 1) of blanks in `s`.
bool ConsumeWords(string_view& s, string_view lit) {
  string_view t = s;
  for (size_t i = 0; i < lit.size(); ++i) {
    if (lit[i] == ' ') {
      if (t.empty() || !IsSpace(t[0])) return false;
      SkipSpace(t);
    } else {
      if (t.empty() || t[0] != lit[i]) return false;
      t.remove_prefix(1);
    }
  }
  s = t;
  return true;
}

bool AtTokenEnd(string_view s) { return s.empty() || IsSpace(s[0]); }

// A quoted node id `"S-0002c90200500300"`: type letter and GUID.
bool ParseNodeId(string_view& s, char* type, uint64_t* guid) {
  string_view t = s;
  if (t.size() < 4 || t[0] != '"' || t[2] != '-') return false;
  *type = t[1];
  t.remove_prefix(3);
  if (!ConsumeHex(t, guid) || !Consume(t, "\"")) return false;
  s = t;
  return true;
}

bool ParseWidthToken(string_view s, int* width) {
  if (s == "??") {
    *width = 0;
    return true;
  }
  string_view t = s;
  int w;
  if (!ConsumeDecimal(t, 16, &w) || !(t == "x" || t == "X")) return false;
  if (w != 1 && w != 2 && w != 4 && w != 8 && w != 12) return false;
  *width = w;
  return true;
}

bool ParseSpeedToken(string_view s, LinkSpeed* speed) {
  if (s == "???") {
    *speed = LinkSpeed::kUnknown;
    return true;
  }
  for (int i = static_cast<int>(LinkSpeed::kSDR); i <= static_cast<int>(LinkSpeed::kXDR); ++i) {
    const LinkSpeed sp = static_cast<LinkSpeed>(i);
    if (s == LinkSpeedName(sp)) {
      *speed = sp;
      return true;
    }
  }
  return false;
}

char TypeLetter(NodeType t) {
  switch (t) {
    case NodeType::kSwitch:
      return 'S';
    case NodeType::kRouter:
      return 'R';
    default:
      return 'H';
  }
}

std::string NodeRef(char type, uint64_t guid) {
  std::string s = FormatGuid(guid);  // "0x" + 16 digits
  s[0] = type;
  s[1] = '-';
  return "\"" + s + "\"";
}

std::string NodeRef(const Node& n) { return NodeRef(TypeLetter(n.type), n.guid); }

bool IsAggregationNode(const Node& n) {
  return n.type == NodeType::kCa && n.num_ports == 1 &&
         n.description.find("Aggregation Node") != std::string::npos;
}

// The rate of a link from what its two ends report. Active width/speed are link properties,
// yet real dumps (the ibnetdiscover man page's own example) show ends that disagree
// (4xSDR on one end, 1xSDR on the other); the slower known value is the safe one for a cost
// model, so that is kept rather than refusing the dump.
void MergeRate(int w1, LinkSpeed s1, int w2, LinkSpeed s2, int* w, LinkSpeed* s) {
  *w = (w1 == 0 || w2 == 0) ? std::max(w1, w2) : std::min(w1, w2);
  *s = (s1 == LinkSpeed::kUnknown || s2 == LinkSpeed::kUnknown) ? std::max(s1, s2)
                                                                : std::min(s1, s2);
}

// Lines of diagnostic output that end up in saved dumps when stderr was redirected too:
// `ibwarn: [123] fn: ...` and libibmad's `src/query_smp.c:195; umad (...) bad status 110`.
bool IsStderrLine(string_view t) {
  if (StartsWith(t, "ibwarn:") || StartsWith(t, "ibpanic:") || StartsWith(t, "ibdebug:") ||
      StartsWith(t, "ibnetdiscover:")) {
    return true;
  }
  const size_t colon = t.find(':');
  if (colon == string_view::npos || colon < 3) return false;
  const string_view file = t.substr(0, colon);
  if (file.find_first_of(" \t") != string_view::npos) return false;
  if (file.substr(file.size() - 2) != ".c" && file.substr(file.size() - 2) != ".h") return false;
  string_view rest = t.substr(colon + 1);
  uint64_t line;
  return ConsumeDecimal(rest, &line) && !rest.empty() && (rest[0] == ';' || rest[0] == ':');
}

// The `-l`, `-H`, `-S`, `-R` node lists: `Switch\t : 0x... ports 12 devid ...`.
bool IsListLine(string_view t) {
  if (!Consume(t, "Switch") && !Consume(t, "Ca") && !Consume(t, "Router")) return false;
  if (t.empty() || !IsSpace(t[0])) return false;
  SkipSpace(t);
  return StartsWith(t, ":");
}

// A `-p` report line: `SW     7 12 0x0002c90200500300 ...`.
bool IsPortsReportLine(string_view t) {
  if (!Consume(t, "SW") && !Consume(t, "CA") && !Consume(t, "RT")) return false;
  if (t.empty() || !IsSpace(t[0])) return false;
  SkipSpace(t);
  uint64_t v;
  if (!ConsumeDecimal(t, &v)) return false;
  SkipSpace(t);
  if (!ConsumeDecimal(t, &v)) return false;
  SkipSpace(t);
  return ConsumeHex0x(t, &v);
}

// Calls `fn(line, number)` for every line that is not blank, a `#` comment or stderr noise,
// with surrounding blanks (and a CR) trimmed; stops at the first error `fn` returns.
template <typename Fn>
absl::Status ForEachContentLine(string_view text, Fn fn) {
  LineScanner lines(text);
  string_view line;
  while (lines.Next(&line)) {
    string_view t = line;
    SkipSpace(t);
    t = TrimSpaceRight(t);
    // Port lines (most of a dump) start with '[': skip the stderr test for them.
    if (t.empty() || t[0] == '#' || (t[0] != '[' && IsStderrLine(t))) continue;
    RETURN_IF_ERROR(fn(t, lines.number()));
  }
  return absl::OkStatus();
}

class ErrorSink {
 public:
  explicit ErrorSink(const std::string& file) : file_(file) {}
  absl::Status At(int line, const std::string& what) const { return LineError(file_, line, what); }
  absl::Status Whole(const std::string& what) const {
    return absl::InvalidArgumentError(file_ + ": " + what);
  }

 private:
  const std::string& file_;
};

absl::Status ListFormatError(const ErrorSink& err, int line) {
  return err.At(line,
                "this is an `ibnetdiscover -l/-H/-S/-R` node list, which has no links; "
                "run plain `ibnetdiscover` (or `ibnetdiscover -p`) and ingest that");
}

enum class Format { kTopology, kPorts, kList, kNone };

// Classifies the input by its first meaningful line; `*line_no` is that line. Lines before
// it that match nothing (e.g. a shell banner saved with the dump) are noise to skip.
Format DetectFormat(string_view text, int* line_no) {
  Format found = Format::kNone;
  ForEachContentLine(text, [&](string_view t, int n) {
    if (IsListLine(t)) {
      found = Format::kList;
    } else if (IsPortsReportLine(t)) {
      found = Format::kPorts;
    } else if (StartsWith(t, "vendid=") || StartsWith(t, "devid=") ||
               StartsWith(t, "sysimgguid=") || StartsWith(t, "switchguid=") ||
               StartsWith(t, "caguid=") || StartsWith(t, "rtguid=") || StartsWith(t, "Switch") ||
               StartsWith(t, "Ca") || StartsWith(t, "Rt") || StartsWith(t, "Chassis") ||
               StartsWith(t, "Non-Chassis") || t[0] == '[') {
      found = Format::kTopology;
    } else {
      return absl::OkStatus();
    }
    *line_no = n;
    return absl::CancelledError();  // stops the scan: the format is known
  }).IgnoreError();
  return found;
}

// ---------------------------------------------------------------------------------------
// The topology file.

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

// ---------------------------------------------------------------------------------------
// The -p ports report.

class PortsReportParser {
 public:
  PortsReportParser(string_view text, int first_line, const IbnetdiscoverOptions& options)
      : text_(text), first_line_(first_line), err_(options.file_name) {}

  absl::StatusOr<Fabric> Run() {
    const size_t approx_lines = std::count(text_.begin(), text_.end(), '\n') + 1;
    fabric_.nodes.reserve(approx_lines / 2 + 8);
    fabric_.links.reserve(approx_lines / 2 + 8);
    RETURN_IF_ERROR(ForEachContentLine(text_, [this](string_view t, int n) {
      return n < first_line_ ? absl::OkStatus() : ParseLine(t, n);
    }));
    if (fabric_.nodes.empty()) return err_.Whole("no port lines found");
    for (Node& node : fabric_.nodes) {
      if (IsAggregationNode(node)) node.type = NodeType::kAggregation;
      if (node.type != NodeType::kSwitch && !node.ports.empty()) {
        node.lid = node.ports.front().lid;
      }
    }
    return std::move(fabric_);
  }

 private:
  struct End {
    NodeType type;
    uint32_t lid;
    int port;
    uint64_t guid;
  };

  // `SW|CA|RT  LID PORT 0xGUID`
  bool ParseEnd(string_view& s, End* e) {
    if (Consume(s, "SW")) {
      e->type = NodeType::kSwitch;
    } else if (Consume(s, "CA")) {
      e->type = NodeType::kCa;
    } else if (Consume(s, "RT")) {
      e->type = NodeType::kRouter;
    } else {
      return false;
    }
    SkipSpace(s);
    uint64_t lid;
    if (!ConsumeDecimal(s, &lid) || lid > 0xffff) return false;
    e->lid = static_cast<uint32_t>(lid);
    SkipSpace(s);
    if (!ConsumeDecimal(s, kMaxPort, &e->port) || e->port == 0) return false;
    SkipSpace(s);
    return ConsumeHex0x(s, &e->guid);
  }

  absl::Status ParseLine(string_view t, int n) {
    if (IsListLine(t)) return ListFormatError(err_, n);
    string_view s = t;
    End local;
    if (!ParseEnd(s, &local)) {
      return err_.At(n,
                     "expected 'SW|CA|RT <lid> <port> 0x<guid> <width> <speed> ...' (an "
                     "`ibnetdiscover -p` line)");
    }
    SkipSpace(s);
    size_t tok = 0;
    while (tok < s.size() && !IsSpace(s[tok])) ++tok;
    int width;
    if (!ParseWidthToken(s.substr(0, tok), &width)) return err_.At(n, "bad link width");
    s.remove_prefix(tok);
    SkipSpace(s);
    tok = 0;
    while (tok < s.size() && !IsSpace(s[tok])) ++tok;
    LinkSpeed speed;
    if (!ParseSpeedToken(s.substr(0, tok), &speed)) return err_.At(n, "bad link speed");
    s.remove_prefix(tok);
    SkipSpace(s);
    if (!s.empty() && s[0] == '\'') {  // unconnected port: only the local description
      if (s.size() < 2 || s.back() != '\'') return err_.At(n, "unterminated description");
      int node;
      return EnsureNode(local, s.substr(1, s.size() - 2), n, /*connected=*/false, &node);
    }
    End remote;
    if (!Consume(s, "-") || (SkipSpace(s), !ParseEnd(s, &remote))) {
      return err_.At(n, "expected '- SW|CA|RT <lid> <port> 0x<guid>' after the local port");
    }
    SkipSpace(s);
    bool framed = Consume(s, "(");
    SkipSpace(s);
    framed = framed && Consume(s, "'") && !s.empty() && s.back() == ')';
    if (framed) {
      s.remove_suffix(1);
      s = TrimSpaceRight(s);
    }
    const size_t mid = s.find("' - '");
    if (!framed || mid == string_view::npos || s.empty() || s.back() != '\'') {
      return err_.At(n, "expected \"( 'local description' - 'remote description' )\"");
    }
    const string_view local_desc = s.substr(0, mid);
    const string_view remote_desc = s.substr(mid + 5, s.size() - mid - 6);
    int a, b;
    RETURN_IF_ERROR(EnsureNode(local, local_desc, n, true, &a));
    RETURN_IF_ERROR(EnsureNode(remote, remote_desc, n, true, &b));
    int link;
    absl::Status st =
        fabric_.Connect(LinkEnd{a, local.port}, LinkEnd{b, remote.port}, width, speed, &link);
    if (!st.ok()) return err_.At(n, std::string(st.message()));
    Link& l = fabric_.links[link];
    MergeRate(l.width_lanes, l.speed, width, speed, &l.width_lanes, &l.speed);
    l.data_rate_gbps = LinkDataRateGbps(l.width_lanes, l.speed);
    return absl::OkStatus();
  }

  // Finds or creates the node owning port `e`, and (for cabled ports) its Port entry.
  absl::Status EnsureNode(const End& e, string_view desc, int n, bool connected, int* index) {
    const uint64_t node_guid =
        e.type == NodeType::kSwitch ? e.guid : e.guid - static_cast<uint64_t>(e.port);
    int i = fabric_.FindNodeByGuid(node_guid);
    if (i < 0) {
      Node node;
      node.type = e.type;
      node.guid = node_guid;
      node.description.assign(desc.data(), desc.size());
      if (e.type == NodeType::kSwitch) node.lid = e.lid;
      if (absl::Status added = fabric_.AddNode(std::move(node), &i); !added.ok()) {
        return err_.At(n, std::string(added.message()));
      }
    }
    Node& node = fabric_.nodes[i];
    if (node.type != e.type || node.description != desc) {
      return err_.At(n, "port GUID " + FormatGuid(e.guid) + " (" + std::string(desc) +
                            ") maps to node GUID " + FormatGuid(node_guid) + ", already seen as " +
                            NodeTypeName(node.type) + " '" + node.description + "'");
    }
    node.num_ports = std::max(node.num_ports, e.port);
    *index = i;
    if (!connected) return absl::OkStatus();
    Port* port = node.FindPort(e.port);
    if (port == nullptr) {
      Port p;
      p.number = e.port;
      p.guid = e.guid;
      p.lid = e.type == NodeType::kSwitch ? node.lid : e.lid;
      auto it = std::lower_bound(node.ports.begin(), node.ports.end(), e.port,
                                 [](const Port& a, int num) { return a.number < num; });
      node.ports.insert(it, p);
    } else if (port->lid != (e.type == NodeType::kSwitch ? node.lid : e.lid)) {
      return err_.At(n, "port " + std::to_string(e.port) + " of " + NodeRef(node) +
                            " is listed with LID " + std::to_string(e.lid) + " here and " +
                            std::to_string(port->lid) + " elsewhere");
    }
    return absl::OkStatus();
  }

  string_view text_;
  int first_line_;  // lines before it are noise (see DetectFormat)
  ErrorSink err_;
  Fabric fabric_;
};

}  // namespace

bool ParseWidthSpeed(std::string_view text, int* width_lanes, LinkSpeed* speed) {
  size_t split;
  if (StartsWith(text, "??")) {
    split = 2;
  } else {
    split = text.find_first_of("xX");
    if (split == std::string_view::npos) return false;
    ++split;
  }
  return ParseWidthToken(text.substr(0, split), width_lanes) &&
         ParseSpeedToken(text.substr(split), speed);
}

absl::StatusOr<Fabric> ParseIbnetdiscover(std::string_view text,
                                          const IbnetdiscoverOptions& options) {
  int line = 0;
  switch (DetectFormat(text, &line)) {
    case Format::kTopology:
      return TopologyParser(text, line, options).Run();
    case Format::kPorts:
      return PortsReportParser(text, line, options).Run();
    case Format::kList:
      return ListFormatError(ErrorSink(options.file_name), line);
    case Format::kNone:
      break;
  }
  return ErrorSink(options.file_name)
      .Whole(
          "no ibnetdiscover output found (expected a topology file or an "
          "`ibnetdiscover -p` report)");
}

}  // namespace toporr::collectors
