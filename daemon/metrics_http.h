// The optional HTTP endpoint for Prometheus (`metrics_listen`): GET /metrics answers the
// daemon's metrics in the text exposition format (daemon/metrics_text.h), on Debian's
// libcivetweb (the embedded server prometheus-cpp uses). Anything else is 404. Two worker
// threads; the rendering function must be thread-safe.
#ifndef TOPORR_DAEMON_METRICS_HTTP_H_
#define TOPORR_DAEMON_METRICS_HTTP_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

struct mg_context;
struct mg_connection;

namespace toporr::daemon {

class MetricsHttpServer {
 public:
  using Render = std::function<std::string()>;

  // Listens on "HOST:PORT" (IPv4 host or [IPv6]); kUnavailable when it cannot bind.
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(const std::string& address,
                                                                  Render render);
  ~MetricsHttpServer();  // stops listening and waits for the workers

  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

 private:
  explicit MetricsHttpServer(Render render) : render_(std::move(render)) {}
  static int Handle(::mg_connection* conn, void* self);

  Render render_;
  ::mg_context* context_ = nullptr;
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_METRICS_HTTP_H_
