// A misbehaving toporrd for libtoporr's fallback tests: answers on a Unix socket the way a
// broken or hostile daemon would, so the tests can show the job still runs in identity
// order with one warning.
//
//   fake_toporrd --socket PATH --mode MODE
// MODE:
//   truncated  rows one column short
//   mixed      host list and rows of even hosts from snapshot 7, rows of odd hosts from
//              snapshot 8
//   unreachable rows whose hop counts say "unreachable" (255)
//   absurd     rows whose latencies are over an hour: not costs
//   garbage    not gRPC at all: every connection gets random bytes and is closed
// Runs until killed.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace {

using toporr::v1::GetCostRowRequest;
using toporr::v1::GetCostRowResponse;
using toporr::v1::RegisterHostListRequest;
using toporr::v1::RegisterHostListResponse;

class FakeTopology final : public toporr::v1::Topology::Service {
 public:
  explicit FakeTopology(std::string mode) : mode_(std::move(mode)) {}

  grpc::Status RegisterHostList(grpc::ServerContext*, const RegisterHostListRequest* req,
                                RegisterHostListResponse* resp) override {
    std::lock_guard<std::mutex> lock(mu_);
    lists_["fake"] = std::vector<std::string>(req->hosts().begin(), req->hosts().end());
    resp->set_host_list("fake");
    resp->set_snapshot_id(7);
    resp->set_num_hosts(req->hosts_size());
    return grpc::Status::OK;
  }

  grpc::Status GetCostRow(grpc::ServerContext*, const GetCostRowRequest* req,
                          GetCostRowResponse* resp) override {
    std::vector<std::string> hosts;
    if (req->host_list().empty()) {
      hosts.assign(req->hosts().begin(), req->hosts().end());
    } else {
      std::lock_guard<std::mutex> lock(mu_);
      hosts = lists_[req->host_list()];
    }
    size_t self = 0;
    while (self < hosts.size() && hosts[self] != req->host()) ++self;
    size_t n = hosts.size();
    resp->set_snapshot_id(mode_ == "mixed" && self % 2 == 1 ? 8 : 7);
    resp->set_host(req->host());
    resp->set_host_column(static_cast<int32_t>(self));
    if (mode_ == "truncated") --n;
    std::string hops(n, '\3'), rate(n, '\0');
    if (self < n) hops[self] = '\0';
    if (mode_ == "unreachable") hops.assign(n, '\xff');
    auto* c = resp->mutable_compact();
    c->set_hops(hops);
    c->set_rate_index(rate);
    c->add_rates_gbps(100);
    c->set_nic_latency_ns(mode_ == "absurd" ? 5e12 : 500);
    c->set_switch_latency_ns(100);
    c->set_link_latency_ns(5);
    return grpc::Status::OK;
  }

 private:
  std::string mode_;
  std::mutex mu_;
  std::map<std::string, std::vector<std::string>> lists_;
};

int ServeGarbage(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path.c_str());
  unlink(path.c_str());
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 64) != 0) {
    std::perror("fake_toporrd: bind");
    return 1;
  }
  std::fprintf(stderr, "fake_toporrd: garbage on %s\n", path.c_str());
  std::mt19937 rng(42);
  for (;;) {
    int c = accept(fd, nullptr, nullptr);
    if (c < 0) continue;
    char junk[4096];
    for (char& b : junk) b = static_cast<char>(rng());
    (void)!write(c, junk, sizeof(junk));
    close(c);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string socket, mode;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--socket") == 0) socket = argv[i + 1];
    if (std::strcmp(argv[i], "--mode") == 0) mode = argv[i + 1];
  }
  if (socket.empty() || mode.empty()) {
    std::fprintf(
        stderr,
        "usage: fake_toporrd --socket PATH --mode truncated|mixed|unreachable|absurd|garbage\n");
    return 2;
  }
  if (mode == "garbage") return ServeGarbage(socket);
  FakeTopology service(mode);
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix:" + socket, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    std::fprintf(stderr, "fake_toporrd: cannot listen on %s\n", socket.c_str());
    return 1;
  }
  std::fprintf(stderr, "fake_toporrd: %s on %s\n", mode.c_str(), socket.c_str());
  server->Wait();
  return 0;
}
