// The line-level pieces the two ibnetdiscover parsers (ibnetdiscover_parsers.h) share:
// scanners over a std::string_view that consume what they accept, node ids and link rates as
// ibnetdiscover prints them, the classification of lines (stderr noise, node lists, `-p`
// lines), the input's format, and errors at a line. Internal to collectors/:ibnetdiscover.
#ifndef TOPORR_COLLECTORS_IBNETDISCOVER_SCAN_H_
#define TOPORR_COLLECTORS_IBNETDISCOVER_SCAN_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "common/status_macros.h"
#include "common/text_scan.h"
#include "fabric/fabric.h"

namespace toporr::collectors::ibnetdiscover_internal {

// The model's names, for this library's sources.
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
using std::string_view;

constexpr int kMaxPort = 255;  // IB port numbers are 8-bit

// Small scanners over a string_view that consume what they accept (numbers, Consume and
// the line splitter are common/text_scan.h's). Whitespace here also takes \f and \v, which
// text_scan.h's IsBlank does not: ibnetdiscover input has always been read that way.

inline bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

inline void SkipSpace(std::string_view& s) {
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  s.remove_prefix(i);
}

inline std::string_view TrimSpaceRight(std::string_view s) {
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

inline bool StartsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// Like Consume, but `lit`'s single spaces match any run (>= 1) of blanks in `s`.
inline bool ConsumeWords(std::string_view& s, std::string_view lit) {
  std::string_view t = s;
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

inline bool AtTokenEnd(std::string_view s) { return s.empty() || IsSpace(s[0]); }

// A quoted node id `"S-0002c90200500300"`: type letter and GUID.
inline bool ParseNodeId(std::string_view& s, char* type, uint64_t* guid) {
  std::string_view t = s;
  if (t.size() < 4 || t[0] != '"' || t[2] != '-') return false;
  *type = t[1];
  t.remove_prefix(3);
  if (!ConsumeHex(t, guid) || !Consume(t, "\"")) return false;
  s = t;
  return true;
}

// A width as ibnetdiscover prints it: "1x", "2x", "4x", "8x", "12x" (or "X"); "??" = 0.
bool ParseWidthToken(std::string_view s, int* width);

// A speed as ibnetdiscover prints it: "SDR".."XDR", "FDR10"; "???" = kUnknown.
bool ParseSpeedToken(std::string_view s, fabric::LinkSpeed* speed);

// The type letter of a node id: 'S' (switch), 'R' (router), 'H' (anything else).
char TypeLetter(fabric::NodeType t);

// A node id as ibnetdiscover prints it, quotes included: "S-0002c90200500300".
std::string NodeRef(char type, uint64_t guid);
inline std::string NodeRef(const fabric::Node& n) { return NodeRef(TypeLetter(n.type), n.guid); }

// A 1-port CA whose description contains "Aggregation Node" (NodeType::kAggregation).
bool IsAggregationNode(const fabric::Node& n);

// The rate of a link from what its two ends report. Active width/speed are link properties,
// yet real dumps (the ibnetdiscover man page's own example) show ends that disagree
// (4xSDR on one end, 1xSDR on the other); the slower known value is the safe one for a cost
// model, so that is kept rather than refusing the dump.
void MergeRate(int w1, fabric::LinkSpeed s1, int w2, fabric::LinkSpeed s2, int* w,
               fabric::LinkSpeed* s);

// Lines of diagnostic output that end up in saved dumps when stderr was redirected too:
// `ibwarn: [123] fn: ...` and libibmad's `src/query_smp.c:195; umad (...) bad status 110`.
bool IsStderrLine(std::string_view t);

// The `-l`, `-H`, `-S`, `-R` node lists: `Switch\t : 0x... ports 12 devid ...`.
bool IsListLine(std::string_view t);

// A `-p` report line: `SW     7 12 0x0002c90200500300 ...`.
bool IsPortsReportLine(std::string_view t);

// Calls `fn(line, number)` for every line that is not blank, a `#` comment or stderr noise,
// with surrounding blanks (and a CR) trimmed; stops at the first error `fn` returns.
template <typename Fn>
absl::Status ForEachContentLine(std::string_view text, Fn fn) {
  LineScanner lines(text);
  std::string_view line;
  while (lines.Next(&line)) {
    std::string_view t = line;
    SkipSpace(t);
    t = TrimSpaceRight(t);
    // Port lines (most of a dump) start with '[': skip the stderr test for them.
    if (t.empty() || t[0] == '#' || (t[0] != '[' && IsStderrLine(t))) continue;
    RETURN_IF_ERROR(fn(t, lines.number()));
  }
  return absl::OkStatus();
}

// Errors of one input: "<file>:<line>: <what>" (At) or "<file>: <what>" (Whole). Holds a
// reference to the file name, which must outlive it.
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

// The refusal of a node list (`ibnetdiscover -l/-H/-S/-R`), at its first line.
absl::Status ListFormatError(const ErrorSink& err, int line);

enum class Format { kTopology, kPorts, kList, kNone };

// Classifies the input by its first meaningful line; `*line_no` is that line. Lines before
// it that match nothing (e.g. a shell banner saved with the dump) are noise to skip.
Format DetectFormat(std::string_view text, int* line_no);

}  // namespace toporr::collectors::ibnetdiscover_internal

#endif  // TOPORR_COLLECTORS_IBNETDISCOVER_SCAN_H_
