#include "collectors/ibnetdiscover_scan.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace toporr::collectors::ibnetdiscover_internal {

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

bool IsAggregationNode(const Node& n) {
  return n.type == NodeType::kCa && n.num_ports == 1 &&
         n.description.find("Aggregation Node") != std::string::npos;
}

void MergeRate(int w1, LinkSpeed s1, int w2, LinkSpeed s2, int* w, LinkSpeed* s) {
  *w = (w1 == 0 || w2 == 0) ? std::max(w1, w2) : std::min(w1, w2);
  *s = (s1 == LinkSpeed::kUnknown || s2 == LinkSpeed::kUnknown) ? std::max(s1, s2)
                                                                : std::min(s1, s2);
}

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

bool IsListLine(string_view t) {
  if (!Consume(t, "Switch") && !Consume(t, "Ca") && !Consume(t, "Router")) return false;
  if (t.empty() || !IsSpace(t[0])) return false;
  SkipSpace(t);
  return StartsWith(t, ":");
}

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

absl::Status ListFormatError(const ErrorSink& err, int line) {
  return err.At(line,
                "this is an `ibnetdiscover -l/-H/-S/-R` node list, which has no links; "
                "run plain `ibnetdiscover` (or `ibnetdiscover -p`) and ingest that");
}

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

}  // namespace toporr::collectors::ibnetdiscover_internal
