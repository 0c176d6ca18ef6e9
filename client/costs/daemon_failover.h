// Which toporrd of a standby list a client asks, in which order, with how much of one
// deadline, and which it leaves alone for a while: the failover rule libtoporr's daemon source
// (daemon_rows.cc) and toporrctl (client/ctl/daemon_client.h) share. It knows nothing of gRPC:
// asking one daemon is a function the caller gives (DaemonFailover::Ask).
//
// The list is ClientOptions::address split by SplitDaemonAddresses (a single address or the
// Unix socket is a list of one, and behaves exactly as before lists existed). For one request:
//   - Order: the daemon that answered last in this process first, then the others in list
//     order after it, wrapping round; before any answer, the list's order.
//   - One deadline covers the whole request. A daemon in its back-off (below) is passed over
//     at once with its last failure, using no time. Each other daemon, in turn, gets a share
//     of what is left: the time left divided by the number of daemons still to ask (it
//     included), but at least kMinDaemonShare (or all that is left, when less). So a daemon
//     that accepts the connection and then hangs costs its share, never the whole deadline,
//     and one that refuses at once costs nothing: the next gets the rest. With a 2 s deadline
//     and two daemons: 1 s for a hanging first one, then the rest for the second.
//   - A daemon that did not answer (Attempt::failover: no connection, refused, reset, its share
//     ran out; or no channel could be made to it) sends the request on to the next. Anything a
//     daemon answered (NOT_FOUND for an unknown host, INVALID_ARGUMENT, a refusal of this
//     client) and a TLS failure with a daemon that was reached is the answer: returned as
//     it is, no further daemon asked.
//   - When none answered: one status naming every daemon in the order considered and why
//     each failed (its code that of the last one that went unanswered, so that callers
//     treating UNAVAILABLE / DEADLINE_EXCEEDED as "try again later" still do).
// Back-off, per daemon (row_source.h states it for libtoporr): a request that ends
// UNAVAILABLE or DEADLINE_EXCEEDED (TLS failures included) leaves that daemon alone for 30
// times what the request took on it (at least 1 s), at least doubling while it keeps failing,
// at most 10 minutes; during it the daemon is passed over with that failure (or, when the
// failure was an answer such as a TLS failure, the request ends with it). Any other outcome
// ends the back-off.
//
// Thread-safe: the state is under a lock, never held while a daemon is asked.
#ifndef TOPORR_CLIENT_COSTS_DAEMON_FAILOVER_H_
#define TOPORR_CLIENT_COSTS_DAEMON_FAILOVER_H_

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"

namespace toporr::client {

// The least share of the deadline a daemon is given when it is not the last one left: a
// connection, a TLS handshake and a request within a cluster take a few milliseconds, so a
// quarter of a second is generous and still leaves the next daemon most of a short deadline.
inline constexpr std::chrono::milliseconds kMinDaemonShare{250};

// The share of `left` for the next of `daemons_left` (>= 1) daemons: left / daemons_left, at
// least kMinDaemonShare, at most `left`.
std::chrono::steady_clock::duration DaemonShare(std::chrono::steady_clock::duration left,
                                                int daemons_left);

class DaemonFailover {
 public:
  using Clock = std::chrono::steady_clock;

  // How asking one daemon ended.
  struct Attempt {
    absl::Status status;    // OK: answered
    bool failover = false;  // the daemon did not answer: ask the next one
  };
  // Asks daemon `index` (of the list), done by `deadline` (its share).
  using Ask = std::function<Attempt(int index, Clock::time_point deadline)>;

  struct Result {
    absl::Status status;  // the answer; or, when no daemon answered, the combined failure
    int daemon = -1;      // the daemon that answered (status OK or not); -1: none did
    // The daemons that did not answer, in the order considered, each with its failure: the
    // ones passed over before `daemon`, or all of them.
    std::vector<std::pair<int, absl::Status>> unanswered;
  };

  struct Options {
    // Each daemon of the list as messages name it ("mgmt01:7575"), at least one.
    std::vector<std::string> names;
    // false: no back-off, every request asks (toporrctl: one short-lived invocation, which
    // waits for a restarting daemon itself).
    bool backoff = true;
    std::function<Clock::time_point()> now = Clock::now;  // tests give a fake clock
  };
  explicit DaemonFailover(Options options);

  // One request by `deadline`, following the rule above.
  Result Run(Clock::time_point deadline, const Ask& ask);
  // The same request of daemon `index` alone (a request that only that daemon can answer,
  // e.g. one naming its host-list token); its back-off applies.
  Result RunOn(int index, Clock::time_point deadline, const Ask& ask);

  int size() const { return static_cast<int>(names_.size()); }
  const std::string& name(int index) const { return names_[index]; }
  // Whether daemon `index` has answered a request of this process (a connection it later
  // closes is worth a second try; one never reached is not).
  bool AnsweredBefore(int index) const;
  // The daemon the next Run asks first.
  int first() const;

 private:
  struct Daemon {
    absl::Status unanswered;            // the last failure that started a back-off; OK: none
    bool unanswered_is_answer = false;  // that failure came from the daemon (TLS)
    Clock::time_point quiet_until;
    Clock::duration backoff{0};
    bool answered_before = false;
  };
  // Applies the outcome of asking daemon `index` from `started` on; returns the failure to
  // report (a daemon never reached that refused before and now lets the request time out is
  // still the refusing daemon: one cause).
  absl::Status Record(int index, Clock::time_point started, const Attempt& attempt);
  Result Combined(Result r) const;

  const std::vector<std::string> names_;
  const bool backoff_;
  const std::function<Clock::time_point()> now_;
  mutable std::mutex mu_;
  std::vector<Daemon> daemons_ ABSL_GUARDED_BY(mu_);
  int first_ ABSL_GUARDED_BY(mu_) = 0;
};

// The back-off's bounds and growth (row_source.h).
inline constexpr std::chrono::milliseconds kMinDaemonBackoff{1000}, kMaxDaemonBackoff{600000};
inline constexpr int kDaemonBackoffPerCallTime = 30;

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_COSTS_DAEMON_FAILOVER_H_
