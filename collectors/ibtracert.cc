#include "collectors/ibtracert.h"

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/printable.h"
#include "common/status_macros.h"
#include "common/text_scan.h"

namespace toporr::collectors {

using fabric::NodeType;
using fabric::Trace;
using fabric::TraceEndpoint;
using fabric::TraceHop;

using fabric::Trace;
using fabric::TraceEndpoint;
using fabric::TraceHop;

namespace {

using std::string_view;

void SkipBlanks(string_view& s) {
  while (!s.empty() && (s[0] == ' ' || s[0] == '\t')) s.remove_prefix(1);
}

// "{0x<16 hex>}"
bool ParseBracedGuid(string_view& s, uint64_t* guid) {
  return Consume(s, "{0x") && ConsumeHex(s, guid) && Consume(s, "}");
}

bool ParseType(string_view& s, NodeType* t) {
  if (Consume(s, "ca "))
    *t = NodeType::kCa;
  else if (Consume(s, "switch "))
    *t = NodeType::kSwitch;
  else if (Consume(s, "router "))
    *t = NodeType::kRouter;
  else
    return false;
  return true;
}

// `lid <first>-<last> "<desc>"`
bool ParseLidsAndDesc(string_view& s, uint32_t* first, uint32_t* last, std::string* desc) {
  uint64_t f, l;
  if (!Consume(s, " lid ") || !ConsumeDecimal(s, 0xFFFF, &f) || !Consume(s, "-") ||
      !ConsumeDecimal(s, 0xFFFF, &l) || f > l || !Consume(s, " \"") || s.empty() ||
      s.back() != '"') {
    return false;
  }
  *first = static_cast<uint32_t>(f);
  *last = static_cast<uint32_t>(l);
  desc->assign(s.data(), s.size() - 1);
  s = {};
  return true;
}

class Parser {
 public:
  Parser(string_view text, const IbtracertOptions& options)
      : text_(text), file_(options.file_name) {}

  absl::StatusOr<std::vector<Trace>> Run() {
    LineScanner lines(text_);
    for (string_view line; lines.Next(&line);) {
      line_ = lines.number();
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
      RETURN_IF_ERROR(Line(line));
    }
    if (open_) return Unfinished("the end of the input");
    if (traces_.empty()) return absl::InvalidArgumentError(file_ + ": no ibtracert trace found");
    return std::move(traces_);
  }

 private:
  absl::Status Error(int line, std::string_view what) const { return LineError(file_, line, what); }

  // Node descriptions must be printable UTF-8 (common/printable.h), as in the topology.
  absl::Status CheckDescription(std::string_view d) const {
    const size_t bad = FirstUnprintable(d);
    if (bad == std::string_view::npos) return absl::OkStatus();
    return Error(line_, "description " + Quoted(d, 80) + ": " + DescribeUnprintable(d, bad));
  }

  absl::Status Unfinished(std::string_view where) const {
    std::string why = last_warning_.empty() ? "" : absl::StrCat(" (", last_warning_, ")");
    return Error(traces_.back().line,
                 absl::StrCat("trace has no 'To' line before ", std::string(where),
                              ": ibtracert stopped early", why));
  }

  absl::Status Line(string_view line) {
    string_view s = line;
    SkipBlanks(s);
    if (s.empty()) return absl::OkStatus();
    if (Consume(s, "From ")) return From(s);
    if (!s.empty() && s[0] == '[') return Hop(s);
    if (Consume(s, "To ")) return To(s);
    if (s.find("ibwarn") != string_view::npos || s.find("iberror") != string_view::npos) {
      last_warning_ = std::string(s);
      return absl::OkStatus();
    }
    return Error(line_, absl::StrCat("unexpected line: '", std::string(s), "'"));
  }

  // Parses the rest of a From/To line into `e`; sets `*detailed`.
  absl::Status Endpoint(string_view s, TraceEndpoint* e, bool* detailed) {
    if (!s.empty() && s[0] == '{') {
      *detailed = false;
      if (!ParseBracedGuid(s, &e->node_guid) || !Consume(s, "[") ||
          !ConsumeDecimal(s, 255, &e->port) || !Consume(s, "]") || !s.empty()) {
        return Error(line_, "malformed '{0x<guid>}[<port>]' endpoint");
      }
      return absl::OkStatus();
    }
    *detailed = true;
    if (!ParseType(s, &e->type)) {
      return Error(line_, "expected 'ca', 'switch' or 'router' after From/To");
    }
    if (!s.empty() && s[0] != '{') {
      return Error(line_, "multicast traces (ibtracert -m) are not supported");
    }
    if (!ParseBracedGuid(s, &e->node_guid) || !Consume(s, " portnum ") ||
        !ConsumeDecimal(s, 255, &e->port) ||
        !ParseLidsAndDesc(s, &e->lid_first, &e->lid_last, &e->description)) {
      return Error(line_, "malformed endpoint (expected '{0x<guid>} portnum P lid F-L \"desc\"')");
    }
    return CheckDescription(e->description);
  }

  absl::Status From(string_view s) {
    if (open_) return Unfinished(absl::StrCat("line ", line_));
    traces_.emplace_back();
    Trace& t = traces_.back();
    t.line = line_;
    RETURN_IF_ERROR(Endpoint(s, &t.from, &t.detailed));
    open_ = true;
    last_warning_.clear();
    return absl::OkStatus();
  }

  absl::Status To(string_view s) {
    if (!open_) return Error(line_, "'To' line outside a trace (no 'From' line before it)");
    Trace& t = traces_.back();
    bool detailed;
    RETURN_IF_ERROR(Endpoint(s, &t.to, &detailed));
    if (detailed != t.detailed) return Error(line_, "'To' line in another layout than 'From'");
    if (t.hops.empty()) return Error(line_, "trace has no hop line");
    open_ = false;
    return absl::OkStatus();
  }

  // "[out] -> <type> port {guid}[in] lid f-l "desc"" or "[out] -> {guid}[in]"
  absl::Status Hop(string_view s) {
    if (!open_) return Error(line_, "hop line outside a trace (no 'From' line before it)");
    Trace& t = traces_.back();
    TraceHop h;
    if (!Consume(s, "[") || !ConsumeDecimal(s, 255, &h.out_port) || !Consume(s, "] -> ")) {
      return Error(line_, "malformed hop (expected '[<out port>] -> ')");
    }
    if (t.detailed) {
      if (!ParseType(s, &h.type) || !Consume(s, "port ")) {
        return Error(line_, "malformed hop (expected 'ca|switch|router port {0x<guid>}')");
      }
    }
    if (!ParseBracedGuid(s, &h.port_guid) || !Consume(s, "[") ||
        !ConsumeDecimal(s, 255, &h.in_port) || !Consume(s, "]")) {
      return Error(line_, "malformed hop (expected '{0x<port guid>}[<in port>]')");
    }
    if (t.detailed) {
      if (!ParseLidsAndDesc(s, &h.lid_first, &h.lid_last, &h.description)) {
        return Error(line_, "malformed hop (expected 'lid F-L \"desc\"' after the port)");
      }
      RETURN_IF_ERROR(CheckDescription(h.description));
    } else if (!s.empty()) {
      return Error(line_, "unexpected text after '{0x<guid>}[<port>]'");
    }
    t.hops.push_back(std::move(h));
    return absl::OkStatus();
  }

  string_view text_;
  std::string file_;
  int line_ = 0;
  bool open_ = false;
  std::string last_warning_;
  std::vector<Trace> traces_;
};

}  // namespace

absl::StatusOr<std::vector<Trace>> ParseIbtracert(std::string_view text,
                                                  const IbtracertOptions& options) {
  return Parser(text, options).Run();
}

}  // namespace toporr::collectors
