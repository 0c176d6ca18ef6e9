#include "daemon/service_notifier.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "systemd/sd-daemon.h"

namespace toporr::daemon {

ServiceNotifier::ServiceNotifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  enabled_ = socket != nullptr && *socket != '\0';
  uint64_t usec = 0;
  // > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID (if set) is this process.
  if (enabled_ && sd_watchdog_enabled(/*unset_environment=*/0, &usec) > 0 && usec > 0) {
    keepalive_interval_ = absl::Microseconds(static_cast<int64_t>(usec / 2));
  }
}

void ServiceNotifier::Send(const std::string& message) {
  if (enabled_) sd_notify(/*unset_environment=*/0, message.c_str());
}

void ServiceNotifier::Ready(const std::string& status) {
  Send("READY=1\nSTATUS=" + status + "\nMAINPID=" + std::to_string(getpid()));
}

void ServiceNotifier::Status(const std::string& status) { Send("STATUS=" + status); }

void ServiceNotifier::WatchdogKeepalive() {
  if (keepalive_interval_ != absl::InfiniteDuration()) Send("WATCHDOG=1");
}

void ServiceNotifier::Reloading() { Send("RELOADING=1\nSTATUS=reloading the configuration"); }

void ServiceNotifier::Reloaded(const std::string& status) { Send("READY=1\nSTATUS=" + status); }

void ServiceNotifier::Stopping() { Send("STOPPING=1\nSTATUS=stopping"); }

}  // namespace toporr::daemon
