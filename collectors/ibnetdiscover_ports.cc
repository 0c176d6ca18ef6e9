#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "collectors/ibnetdiscover_parsers.h"
#include "collectors/ibnetdiscover_scan.h"
#include "common/status_macros.h"
#include "common/text_scan.h"

namespace toporr::collectors::ibnetdiscover_internal {
namespace {

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

absl::StatusOr<Fabric> ParsePortsReport(std::string_view text, int first_line,
                                        const IbnetdiscoverOptions& options) {
  return PortsReportParser(text, first_line, options).Run();
}

}  // namespace toporr::collectors::ibnetdiscover_internal
