#include "daemon/metrics_http.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "civetweb.h"

namespace toporr::daemon {

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const std::string& address, Render render) {
  static const unsigned init = mg_init_library(0);
  (void)init;
  std::unique_ptr<MetricsHttpServer> server(new MetricsHttpServer(std::move(render)));
  // civetweb writes "host:port" for IPv4 and "[addr]:port" for IPv6 the same way.
  const char* options[] = {"listening_ports",    address.c_str(), "num_threads", "2",
                           "request_timeout_ms", "10000",         nullptr};
  mg_callbacks callbacks;
  std::memset(&callbacks, 0, sizeof(callbacks));
  callbacks.log_message = [](const ::mg_connection*, const char*) { return 1; };  // quiet
  mg_init_data init_data;
  std::memset(&init_data, 0, sizeof(init_data));
  init_data.callbacks = &callbacks;
  init_data.user_data = server.get();
  init_data.configuration_options = options;
  char error_text[256] = "";
  mg_error_data error_data;
  std::memset(&error_data, 0, sizeof(error_data));
  error_data.text = error_text;
  error_data.text_buffer_size = sizeof(error_text);
  server->context_ = mg_start2(&init_data, &error_data);
  if (server->context_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("metrics_listen ", address, ": cannot listen: ", error_text));
  }
  mg_set_request_handler(server->context_, "/metrics$", &MetricsHttpServer::Handle, server.get());
  return server;
}

MetricsHttpServer::~MetricsHttpServer() {
  if (context_ != nullptr) mg_stop(context_);
}

int MetricsHttpServer::Handle(::mg_connection* conn, void* self) {
  const mg_request_info* request = mg_get_request_info(conn);
  if (std::strcmp(request->request_method, "GET") != 0 &&
      std::strcmp(request->request_method, "HEAD") != 0) {
    mg_send_http_error(conn, 405, "only GET");
    return 405;
  }
  const std::string body = static_cast<MetricsHttpServer*>(self)->render_();
  mg_printf(conn,
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            "Content-Length: %zu\r\nConnection: close\r\n\r\n",
            body.size());
  if (std::strcmp(request->request_method, "GET") == 0) mg_write(conn, body.data(), body.size());
  return 200;
}

}  // namespace toporr::daemon
