#include "collectors/forwarding_tables.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/printable.h"
#include "common/status_macros.h"
#include "common/text_scan.h"

namespace toporr::collectors {

using fabric::ForwardingTables;
using fabric::kMaxUnicastLid;
using fabric::SwitchForwardingTable;

using fabric::ForwardingTables;
using fabric::kMaxUnicastLid;
using fabric::SwitchForwardingTable;

namespace {

using std::string_view;

// "0x1f" (hex) or "31" (decimal).
bool ParseNumber(string_view& s, uint64_t* v) {
  return Consume(s, "0x") ? ConsumeHex(s, v) : ConsumeDecimal(s, v);
}

// Lines the tools write to stderr that end up in captured dumps (2>&1).
bool IsToolNoise(string_view line) {
  return Consume(line, "ibwarn") || Consume(line, "SubnGet() failed") ||
         line.find("iberror") != string_view::npos;
}

class Parser {
 public:
  Parser(string_view text, const ForwardingTablesOptions& options)
      : text_(text), file_(options.file_name) {}

  absl::StatusOr<ForwardingTables> Run() {
    LineScanner lines(text_);
    for (string_view line; lines.Next(&line);) {
      line_ = lines.number();
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      RETURN_IF_ERROR(Line(line));
    }
    if (in_block_) return Cut("the end of the input");
    if (in_multicast_) return Error(block_line_, "multicast table never ends ('mlids dumped')");
    if (tables_.switches().empty()) {
      return absl::InvalidArgumentError(
          file_ +
          ": no unicast forwarding table found (expected ibroute, dump_fts, "
          "dump_lfts.sh or opensm-lfts.dump output)");
    }
    return std::move(tables_);
  }

 private:
  absl::Status Error(int line, std::string_view what) const { return LineError(file_, line, what); }

  absl::Status Cut(std::string_view where) const {
    return Error(block_line_,
                 absl::StrCat("the table of switch 0x", absl::Hex(guid_, absl::kZeroPad16),
                              " has no 'lids dumped' line before ", std::string(where),
                              " (the dump is truncated, or the tool failed on this switch)"));
  }

  absl::Status Line(string_view line) {
    // Entry lines first: they are nearly all of a large dump.
    if (in_block_ && line.size() > 2 && line[0] == '0' && line[1] == 'x') return Entry(line);
    if (in_multicast_) {
      if (line.find("mlids dumped") != string_view::npos) in_multicast_ = false;
      return absl::OkStatus();
    }
    string_view t = Trim(line);
    if (Consume(t, "Unicast lids [")) {
      if (in_block_) return Cut(absl::StrCat("line ", line_));
      return Header(t);
    }
    if (Consume(t, "Multicast mlids [")) {
      if (in_block_) return Cut(absl::StrCat("line ", line_));
      in_multicast_ = true;
      block_line_ = line_;
      return absl::OkStatus();
    }
    if (t.empty() || IsToolNoise(t)) return absl::OkStatus();
    if (in_block_) {
      if (t == "Lid  Out   Destination" || t == "Port     Info") return absl::OkStatus();
      uint64_t n;
      string_view s = t;
      if (ConsumeDecimal(s, &n)) return Trailer(n, s);
      return Error(line_,
                   absl::StrCat("unexpected line in the table of switch 0x",
                                absl::Hex(guid_, absl::kZeroPad16), ": '", std::string(t), "'"));
    }
    if (Consume(t, "*** WARNING ***")) return absl::OkStatus();  // dump_lfts.sh trailer
    if (t.substr(0, 2) == "0x") return Error(line_, "table entry before any 'Unicast lids' header");
    return Error(
        line_, absl::StrCat("unexpected line outside a forwarding table: '", std::string(t), "'"));
  }

  // "<first>-<last>] of switch <address> guid 0x<guid> (<desc>):"
  absl::Status Header(string_view s) {
    block_line_ = line_;
    uint64_t first, last;
    opensm_ = s.substr(0, 2) != "0x";  // OpenSM prints the range in decimal
    if (!ParseNumber(s, &first) || !Consume(s, "-") || !ParseNumber(s, &last) ||
        !Consume(s, "] of switch ")) {
      return Error(line_, "malformed 'Unicast lids [first-last] of switch' header");
    }
    if (last > kMaxUnicastLid || first > last) {
      return Error(line_, absl::StrCat("LID range [", first, "-", last,
                                       "] is not within the unicast LIDs 0..", kMaxUnicastLid));
    }
    size_t g = s.find(" guid 0x");
    if (g == string_view::npos) return Error(line_, "header has no ' guid 0x' switch GUID");
    string_view address = s.substr(0, g);
    s.remove_prefix(g + 8);
    uint64_t guid;
    if (!ConsumeHex(s, &guid) || !Consume(s, " (") || s.size() < 2 ||
        s.substr(s.size() - 2) != "):") {
      return Error(line_, "malformed switch GUID or '(description):' in header");
    }
    string_view desc = s.substr(0, s.size() - 2);
    if (desc.size() >= 2 && desc.front() == '\'' && desc.back() == '\'') {
      desc = desc.substr(1, desc.size() - 2);
    }
    if (const size_t bad = FirstUnprintable(desc); bad != string_view::npos) {
      return Error(
          line_, "switch description " + Quoted(desc, 80) + ": " + DescribeUnprintable(desc, bad));
    }
    uint64_t lid = 0;
    if (Consume(address, "Lid ") && (!ConsumeDecimal(address, &lid) || lid > kMaxUnicastLid)) {
      return Error(line_, "malformed 'Lid N' switch address in header");
    }
    SwitchForwardingTable* sw = tables_.Add(guid);
    if (sw->description.empty()) sw->description = std::string(desc);
    if (sw->lid == 0) sw->lid = static_cast<uint32_t>(lid);
    if (sw->out_port.size() < last + 1) sw->out_port.resize(last + 1, ForwardingTables::kUnsetPort);
    sw_ = sw;
    guid_ = guid;
    first_ = static_cast<uint32_t>(first);
    last_ = static_cast<uint32_t>(last);
    entries_ = 0;
    in_block_ = true;
    lft_ = sw->out_port.data();
    return absl::OkStatus();
  }

  // "0x<lid> <port>[ : (<info>)| # <info>]"
  absl::Status Entry(string_view line) {
    string_view s = line.substr(2);
    uint64_t lid, port;
    if (!ConsumeHex(s, &lid) || s.empty() || s[0] != ' ') {
      return Error(line_, "malformed table entry (expected '0x<lid> <port>')");
    }
    while (!s.empty() && s[0] == ' ') s.remove_prefix(1);
    if (!ConsumeDecimal(s, &port)) return Error(line_, "malformed out port in table entry");
    if (lid < first_ || lid > last_) {
      return Error(line_, absl::StrCat("LID ", lid, " is outside the header's range [", first_, "-",
                                       last_, "]"));
    }
    ++entries_;
    bool illegal = port == ForwardingTables::kUnsetPort;
    // Info column: ibroute/dump_fts ": (...)", OpenSM "# ...". Only its first words matter.
    size_t i = 0;
    while (i < s.size() && s[i] == ' ') ++i;
    s.remove_prefix(i);
    if (!s.empty()) {
      if (s[0] != ':' && s[0] != '#') {
        return Error(line_, "unexpected text after the out port (expected ': (' or '# ')");
      }
      s.remove_prefix(s[0] == ':' ? std::min<size_t>(3, s.size()) : std::min<size_t>(2, s.size()));
      if (!s.empty() && (s[0] == 'i' || s[0] == 'p')) {
        // "(illegal port)", "(path #k - illegal port)", "(path #k out of N[: portguid G])".
        if (s.find("illegal port") != string_view::npos) illegal = true;
      }
      const std::vector<uint64_t>& owners = tables_.lid_port_guid();
      if (!illegal && (lid >= owners.size() || owners[lid] == 0)) NoteOwner(lid, s);
    }
    if (illegal) return absl::OkStatus();
    if (port > 254) {
      return Error(line_, absl::StrCat("out port ", port, " is not a valid port (0..254)"));
    }
    uint8_t& e = lft_[lid];
    if (e != ForwardingTables::kUnsetPort && e != port) {
      return Error(line_, absl::StrCat("LID ", lid, " of switch 0x",
                                       absl::Hex(guid_, absl::kZeroPad16), " is given port ", port,
                                       " here and port ", e, " in an earlier block"));
    }
    e = static_cast<uint8_t>(port);
    if (port == 0 && sw_->lid == 0) sw_->lid = static_cast<uint32_t>(lid);
    return absl::OkStatus();
  }

  void NoteOwner(uint64_t lid, string_view info) {
    size_t g = info.find("portguid 0x");
    if (g == string_view::npos) return;
    info.remove_prefix(g + 11);
    uint64_t guid;
    if (!ConsumeHex(info, &guid)) return;
    tables_.NoteLidOwner(static_cast<uint32_t>(lid), guid);
  }

  // "<n> valid lids dumped" (ibroute), "<n> lids dumped" (ibroute -a, OpenSM).
  absl::Status Trailer(uint64_t n, string_view s) {
    bool valid = Consume(s, " valid");
    if (!Consume(s, " lids dumped")) {
      return Error(line_, absl::StrCat("unexpected line in the table of switch 0x",
                                       absl::Hex(guid_, absl::kZeroPad16)));
    }
    // OpenSM prints its top LID here, not a count; ibroute counts its entry lines.
    if (opensm_ && !valid) {
      if (n != last_) {
        return Error(line_, absl::StrCat("'", n,
                                         " lids dumped' does not match the header's top "
                                         "LID ",
                                         last_));
      }
    } else if (n != entries_) {
      return Error(line_, absl::StrCat("the block says ", n, " lids dumped but has ", entries_,
                                       " entry lines (truncated dump?)"));
    }
    in_block_ = false;
    return absl::OkStatus();
  }

  string_view text_;
  std::string file_;
  int line_ = 0;
  ForwardingTables tables_;
  // The open block.
  bool in_block_ = false;
  bool in_multicast_ = false;
  bool opensm_ = false;
  int block_line_ = 0;
  SwitchForwardingTable* sw_ = nullptr;  // valid until the next header (Add may move it)
  uint64_t guid_ = 0;
  uint8_t* lft_ = nullptr;
  uint32_t first_ = 0, last_ = 0;
  uint64_t entries_ = 0;
};

}  // namespace

absl::StatusOr<ForwardingTables> ParseForwardingTables(std::string_view text,
                                                       const ForwardingTablesOptions& options) {
  return Parser(text, options).Run();
}

}  // namespace toporr::collectors
