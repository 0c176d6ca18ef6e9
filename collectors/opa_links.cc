#include "collectors/opa_links.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/text_scan.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::FormatGuid;
using fabric::LinkEnd;
using fabric::Node;
using fabric::NodeType;
using fabric::NodeTypeName;
namespace {

using std::string_view;

// The report kinds and their words: "<kind>Link Summary", "N <kind>Links in Fabric".
constexpr string_view kKinds[] = {"", "External ", "FI ", "Inter-Switch ",
                                  "External Inter-Switch "};

size_t LeadingBlanks(string_view s) {
  size_t n = 0;
  while (n < s.size() && s[n] == ' ') ++n;
  return n;
}

bool ConsumeBlanks(string_view& s) {
  const size_t n = LeadingBlanks(s);
  s.remove_prefix(n);
  return n > 0;
}

bool ConsumeUnsigned(string_view& s, int base, uint64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v, base);
  if (ec != std::errc() || p == s.data()) return false;
  s.remove_prefix(p - s.data());
  return true;
}

// "<kind>Link Summary" -> the kind's index.
std::optional<int> SummaryHeading(string_view line) {
  for (int k = 0; k < static_cast<int>(std::size(kKinds)); ++k) {
    string_view s = line;
    if (Consume(s, kKinds[k]) && s == "Link Summary") return k;
  }
  return std::nullopt;
}

// "N <kind>Links in Fabric[:]".
bool CountLine(string_view line, int kind, uint64_t* n, bool* colon) {
  string_view s = line;
  if (!ConsumeUnsigned(s, 10, n) || !Consume(s, " ") || !Consume(s, kKinds[kind]) ||
      !Consume(s, "Links in Fabric")) {
    return false;
  }
  *colon = Consume(s, ":");
  return s.empty();
}

bool MatchingLine(string_view line, uint64_t* n) {
  string_view s = line;
  return ConsumeUnsigned(s, 10, n) && s == " Matching Links Found";
}

bool Separator(string_view line) {
  return line.size() >= 10 && line.find_first_not_of('-') == string_view::npos;
}

struct PortLine {
  string_view prefix;  // rate text, or "<->"
  uint64_t guid = 0;
  int port = 0;
  string_view type;
  string_view name;
};

// "%4s 0x%016x %3u %2s   %s" (ShowLinkPortBriefSummary). Returns what is wrong, or "".
std::string ParsePortLine(string_view line, PortLine* out) {
  string_view s = line;
  ConsumeBlanks(s);
  const size_t end = s.find(' ');
  if (end == 0 || end == string_view::npos) return "expected a port line";
  out->prefix = s.substr(0, end);
  s.remove_prefix(end);
  ConsumeBlanks(s);
  string_view hex = s.substr(0, 18);
  if (!Consume(s, "0x") || hex.size() != 18 || !ConsumeUnsigned(s, 16, &out->guid) ||
      s.data() != hex.data() + 18) {
    return "expected a NodeGUID 0x<16 hex digits> after the rate";
  }
  uint64_t port = 0;
  if (!ConsumeBlanks(s) || !ConsumeUnsigned(s, 10, &port) || port > 254) {
    return "expected a port number 0..254 after the NodeGUID";
  }
  out->port = static_cast<int>(port);
  if (!ConsumeBlanks(s)) return "expected a node type after the port number";
  const size_t type_end = std::min(s.find(' '), s.size());
  out->type = s.substr(0, type_end);
  s.remove_prefix(type_end);
  // The name follows three blanks; keep any further leading blanks as part of it.
  s.remove_prefix(std::min<size_t>(LeadingBlanks(s), 3));
  out->name = s;
  return "";
}

class LinksParser {
 public:
  explicit LinksParser(const OpaOptions& options) : options_(options) {}

  absl::StatusOr<Fabric> Parse(string_view text, OpaParseStats* stats);

 private:
  absl::Status Error(long line, const std::string& what) const {
    return OpaInputError(options_, line, what);
  }
  absl::StatusOr<LinkEnd> End(const PortLine& p, long line);

  const OpaOptions& options_;
  Fabric fabric_;
  std::vector<long> first_line_;  // per node: where it was first printed
};

absl::StatusOr<LinkEnd> LinksParser::End(const PortLine& p, long line) {
  std::optional<NodeType> type = ParseOpaNodeType(p.type);
  if (!type) {
    return Error(line, absl::StrCat("node type \"", std::string(p.type), "\", expected FI or SW"));
  }
  const std::string name(p.name);
  int index = fabric_.FindNodeByGuid(p.guid);
  if (index < 0) {
    Node n;
    n.type = *type;
    n.guid = p.guid;
    n.description = name;
    if (absl::Status added = fabric_.AddNode(std::move(n), &index); !added.ok()) {
      return Error(line, std::string(added.message()));
    }
    first_line_.push_back(line);
  }
  Node& n = fabric_.nodes[index];
  if (n.type != *type || n.description != name) {
    return Error(line, absl::StrCat("node ", FormatGuid(p.guid), " is ", std::string(p.type), " \"",
                                    name, "\" here but ", NodeTypeName(n.type), " \"",
                                    n.description, "\" at line ", first_line_[index]));
  }
  n.num_ports = std::max(n.num_ports, p.port);
  return LinkEnd{index, p.port};
}

absl::StatusOr<Fabric> LinksParser::Parse(string_view text, OpaParseStats* stats) {
  std::vector<string_view> lines;
  LineScanner scanner(text);
  for (string_view line; scanner.Next(&line);) lines.push_back(TrimRight(line));
  size_t i = 0;
  std::optional<int> kind;
  for (; i < lines.size() && !kind; ++i) kind = SummaryHeading(lines[i]);
  if (!kind) {
    return Error(1, "no \"Link Summary\" heading: not the output of `opareport -o links`");
  }
  const long heading_line = static_cast<long>(i);  // 1-based line of the heading
  // Up to the count line: a blank line, or a "Focused on:" block.
  uint64_t count = 0;
  bool colon = false;
  for (; i < lines.size(); ++i) {
    if (CountLine(lines[i], *kind, &count, &colon)) break;
    if (!lines[i].empty() && lines[i] != "Focused on:" && LeadingBlanks(lines[i]) < 4) {
      return Error(static_cast<long>(i) + 1,
                   absl::StrCat("expected \"N ", std::string(kKinds[*kind]),
                                "Links in Fabric:\" after the heading at line ", heading_line));
    }
  }
  if (i == lines.size()) {
    return Error(static_cast<long>(i), "file ends before the \"Links in Fabric\" line");
  }
  const long count_line = static_cast<long>(++i);
  if (!colon && count > 0) {
    return Error(count_line,
                 "report printed at detail level 0 lists no links; rerun `opareport -o links` "
                 "with -d 1 or higher");
  }
  if (i < lines.size() && lines[i].substr(0, 13) == "Rate NodeGUID") ++i;

  std::optional<PortLine> from;
  long from_line = 0;
  std::optional<uint64_t> matching;
  bool separated = false;
  for (; i < lines.size(); ++i) {
    const long ln = static_cast<long>(i) + 1;
    const string_view line = lines[i];
    if (line.empty() || LeadingBlanks(line) >= 4) continue;  // details
    if (Separator(line)) {
      separated = true;
      ++i;
      break;
    }
    uint64_t n = 0;
    if (MatchingLine(line, &n)) {
      matching = n;
      continue;
    }
    PortLine p;
    const std::string wrong = ParsePortLine(line, &p);
    if (!wrong.empty()) return Error(ln, wrong);
    if (p.prefix == "<->") {
      if (!from) return Error(ln, "\"<->\" neighbour line without a port line before it");
      ASSIGN_OR_RETURN(LinkEnd x, End(*from, from_line));
      ASSIGN_OR_RETURN(LinkEnd y, End(p, ln));
      absl::Status s = ConnectOpaLink(x, y, ParseOpaRateText(from->prefix), &fabric_);
      if (!s.ok()) return Error(ln, std::string(s.message()));
      from.reset();
      continue;
    }
    if (from) {
      return Error(ln, absl::StrCat("port line where the \"<->\" neighbour of line ", from_line,
                                    " belongs"));
    }
    if (!ParseOpaRateText(p.prefix)) {
      return Error(ln, absl::StrCat("unknown link rate \"", std::string(p.prefix),
                                    "\" (Omni-Path rates: 12.5g 25g 37.5g 50g 75g 100g 200g)"));
    }
    from = p;
    from_line = ln;
  }
  if (from) {
    return Error(from_line, "port line without its \"<->\" neighbour line (truncated file?)");
  }
  if (!separated) {
    return Error(static_cast<long>(lines.size()),
                 "the report ends without its dashed line (truncated file?)");
  }
  const uint64_t expected = matching ? *matching : count;
  if (fabric_.links.size() != expected) {
    return Error(count_line, absl::StrCat("the report announces ", expected, " links but lists ",
                                          fabric_.links.size(), " (truncated or edited file?)"));
  }
  for (; i < lines.size(); ++i) {
    if (SummaryHeading(lines[i])) {
      return Error(static_cast<long>(i) + 1,
                   absl::StrCat("a second link summary (the first is at line ", heading_line,
                                "); give one report per file"));
    }
  }
  if (stats) {
    *stats = OpaParseStats{};
    stats->links = static_cast<int>(fabric_.links.size());
  }
  return std::move(fabric_);
}

}  // namespace

absl::StatusOr<Fabric> ParseOpaLinks(std::string_view text, const OpaOptions& options,
                                     OpaParseStats* stats) {
  LinksParser parser(options);
  return parser.Parse(text, stats);
}

}  // namespace toporr::collectors
