// A live sweep done by another process: the live-discovery helper (`toporr-discover --serve`,
// socket-activated by toporr-discover.socket) that holds the umad devices toporrd, running
// as an unprivileged user, has no access to. One connection per sweep, the exchange of
// collectors/sweep_protocol.h.
#ifndef TOPORR_DAEMON_REMOTE_SWEEP_H_
#define TOPORR_DAEMON_REMOTE_SWEEP_H_

#include <atomic>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "collectors/sweep_protocol.h"

namespace toporr::daemon {

// Where toporr-discover.socket listens (root:toporr, mode 0660).
inline constexpr char kDiscoveryHelperSocket[] = "/run/toporr-discover.sock";

// Connects to the helper listening on `socket_path`, sends `request` and reads the reply
// until the helper closes the connection. Closing the connection early (timeout, cancel)
// makes the helper abandon the sweep.
//
// Errors (each message names the socket): kUnavailable when the socket cannot be reached
// (no such file, refused, no permission: the message says how to enable
// toporr-discover.socket) or the helper's sweep failed (its message); kDataLoss for a reply
// that is empty, malformed or truncated; kDeadlineExceeded when no complete reply came within
// `timeout`; kCancelled as soon as `*cancel` (may be null) becomes true.
absl::StatusOr<collectors::SweepResult> RequestSweep(const std::string& socket_path,
                                                     const collectors::SweepRequest& request,
                                                     absl::Duration timeout,
                                                     const std::atomic<bool>* cancel = nullptr);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_REMOTE_SWEEP_H_
