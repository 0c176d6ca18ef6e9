// Tells the service manager what the daemon is doing, through sd_notify(3) from Debian's
// libsystemd: READY=1 once the snapshot is loaded and the sockets listen, STATUS= lines with
// the current snapshot, WATCHDOG=1 keep-alives from the serving loop, RELOADING=1 and
// STOPPING=1. Without a service manager (no $NOTIFY_SOCKET) every call is a no-op, so the
// daemon runs the same by hand. Thread-compatible (the serving loop is its one caller).
#ifndef TOPORR_DAEMON_SERVICE_NOTIFIER_H_
#define TOPORR_DAEMON_SERVICE_NOTIFIER_H_

#include <string>

#include "absl/time/time.h"

namespace toporr::daemon {

class ServiceNotifier {
 public:
  // Reads $NOTIFY_SOCKET and the watchdog settings ($WATCHDOG_USEC, $WATCHDOG_PID) once.
  ServiceNotifier();

  // True when a service manager listens ($NOTIFY_SOCKET set).
  bool enabled() const { return enabled_; }
  // Half of WatchdogSec= when the watchdog is on for this process (keep-alives are due at
  // least that often), else absl::InfiniteDuration().
  absl::Duration keepalive_interval() const { return keepalive_interval_; }

  void Ready(const std::string& status);
  void Status(const std::string& status);
  void WatchdogKeepalive();
  void Reloading();
  // After a reload: READY=1 again with the status.
  void Reloaded(const std::string& status);
  void Stopping();

 private:
  void Send(const std::string& message);

  bool enabled_ = false;
  absl::Duration keepalive_interval_ = absl::InfiniteDuration();
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_SERVICE_NOTIFIER_H_
