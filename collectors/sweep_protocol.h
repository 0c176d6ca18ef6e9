// What toporrd and the live-discovery helper (`toporr-discover --serve`, started per
// connection by toporr-discover.socket) say to each other over one Unix-socket connection.
// toporrd runs unprivileged; the helper holds the umad devices. The exchange is deliberately
// narrow: the caller chooses only the pause between forwarding-table reads, never a path, a
// device or a program.
//
//   request (caller -> helper), one line of at most kMaxSweepRequestBytes:
//     "toporr-sweep 1 probe-pause-us=<N>\n"        N in [0, kMaxProbePauseUs]
//   reply (helper -> caller), then the helper closes the connection:
//     "toporr-sweep 1 ok topology=<T> forwarding-tables=<F>\n" followed by exactly T bytes of
//       `ibnetdiscover` text and F bytes of `dump_fts` text (collectors/ibnetdiscover_writer.h)
//     "toporr-sweep 1 error <message>\n"           the sweep failed; <message> is one line
//
// The caller never half-closes its side: the helper takes a hang-up as "stop" and ends the
// sweep. Pure functions; thread-safe.
#ifndef TOPORR_COLLECTORS_SWEEP_PROTOCOL_H_
#define TOPORR_COLLECTORS_SWEEP_PROTOCOL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace toporr::collectors {

inline constexpr size_t kMaxSweepRequestBytes = 256;
// The largest probe pause a request may ask for (toporr-discover's own bound).
inline constexpr int kMaxProbePauseUs = 100000000;
// The largest topology or table text a reply may announce (a 10,240-host fabric's LFT dump
// is ~0.8 GB).
inline constexpr int64_t kMaxSweepReplyPartBytes = int64_t{16} << 30;

struct SweepRequest {
  // Microseconds between two forwarding-table block reads.
  int probe_pause_us = 200;
};

// The request line, newline included.
std::string FormatSweepRequest(const SweepRequest& request);

// Parses one request line (its trailing "\n" optional). kInvalidArgument naming what is
// wrong: another protocol or version, an unknown or repeated key, a number out of range,
// bytes after the line.
absl::StatusOr<SweepRequest> ParseSweepRequest(std::string_view line);

struct SweepResult {
  std::string topology;           // ibnetdiscover text
  std::string forwarding_tables;  // dump_fts text
};

// A successful reply: the header line and both texts.
std::string FormatSweepReply(const SweepResult& result);

// A failure reply; line breaks and other control characters of `message` become spaces.
std::string FormatSweepFailure(std::string_view message);

// Parses a whole reply (everything read until the helper closed the connection).
// kUnavailable "the discovery helper's sweep failed: <message>" for a failure reply;
// kDataLoss when the reply is empty ("closed the connection without a reply"), has no
// header line, another protocol or version, or texts shorter or longer than announced.
absl::StatusOr<SweepResult> ParseSweepReply(std::string_view reply);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_SWEEP_PROTOCOL_H_
