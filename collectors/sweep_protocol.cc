#include "collectors/sweep_protocol.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/printable.h"
#include "common/text_scan.h"

namespace toporr::collectors {
namespace {

// Debian's Abseil takes no std::string_view in StrCat: the prefix is a C string.
constexpr char kMagic[] = "toporr-sweep 1 ";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;

// `key=<decimal at most max>` at the front of `s`, consumed on success.
bool ConsumeField(std::string_view& s, std::string_view key, uint64_t max, uint64_t* value) {
  std::string_view t = s;
  if (!Consume(t, key) || !Consume(t, "=") || !ConsumeDecimal(t, max, value)) return false;
  s = t;
  return true;
}

absl::Status BadReply(const std::string& what) {
  return absl::DataLossError(absl::StrCat("the discovery helper's reply ", what));
}

}  // namespace

std::string FormatSweepRequest(const SweepRequest& request) {
  return absl::StrCat(kMagic, "probe-pause-us=", request.probe_pause_us, "\n");
}

absl::StatusOr<SweepRequest> ParseSweepRequest(std::string_view line) {
  if (line.size() > kMaxSweepRequestBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("sweep request longer than ", kMaxSweepRequestBytes, " bytes"));
  }
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (line.find('\n') != std::string_view::npos) {
    return absl::InvalidArgumentError("sweep request: bytes after its line");
  }
  std::string_view s = line;
  if (!Consume(s, kMagic)) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a toporr sweep request (version 1): ", Quoted(line)));
  }
  SweepRequest request;
  uint64_t pause = 0;
  if (!ConsumeField(s, "probe-pause-us", kMaxProbePauseUs, &pause) || !s.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("sweep request: expected probe-pause-us=<0..",
                                                   kMaxProbePauseUs, "> only, got ",
                                                   Quoted(line.substr(kMagicSize))));
  }
  request.probe_pause_us = static_cast<int>(pause);
  return request;
}

std::string FormatSweepReply(const SweepResult& result) {
  return absl::StrCat(kMagic, "ok topology=", result.topology.size(),
                      " forwarding-tables=", result.forwarding_tables.size(), "\n", result.topology,
                      result.forwarding_tables);
}

std::string FormatSweepFailure(std::string_view message) {
  std::string line(message);
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return absl::StrCat(kMagic, "error ", line, "\n");
}

absl::StatusOr<SweepResult> ParseSweepReply(std::string_view reply) {
  if (reply.empty()) {
    return BadReply(
        "is empty: it closed the connection without a reply (another sweep running, or the "
        "helper failed before it could answer: journalctl -u 'toporr-discover@*')");
  }
  const size_t eol = reply.find('\n');
  if (eol == std::string_view::npos) return BadReply("has no header line");
  std::string_view header = reply.substr(0, eol);
  const std::string_view body = reply.substr(eol + 1);
  if (!Consume(header, kMagic)) {
    return BadReply(absl::StrCat("is not toporr-sweep version 1: ", Quoted(header)));
  }
  if (Consume(header, "error ")) {
    return absl::UnavailableError(
        absl::StrCat("the discovery helper's sweep failed: ", Printable(header, 2000)));
  }
  uint64_t topology = 0, tables = 0;
  const uint64_t max = static_cast<uint64_t>(kMaxSweepReplyPartBytes);
  if (!Consume(header, "ok ") || !ConsumeField(header, "topology", max, &topology) ||
      !Consume(header, " ") || !ConsumeField(header, "forwarding-tables", max, &tables) ||
      !header.empty()) {
    return BadReply(absl::StrCat("has a malformed header: ", Quoted(reply.substr(0, eol))));
  }
  if (body.size() != topology + tables) {
    return BadReply(absl::StrCat("announces ", topology + tables, " bytes but carries ",
                                 body.size(), " (the helper stopped early?)"));
  }
  SweepResult result;
  result.topology = std::string(body.substr(0, topology));
  result.forwarding_tables = std::string(body.substr(topology));
  return result;
}

}  // namespace toporr::collectors
