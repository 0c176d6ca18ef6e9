// The daemon source on an address list, against in-process gRPC servers on loopback ports:
// one that answers, one that answers NOT_FOUND, one that accepts the request and never
// answers, and a port nobody listens on.
#include "client/costs/daemon_rows.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/costs/daemon_channel.h"
#include "client/costs/row_source.h"
#include "common/status_matchers.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::client {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::toporr::testing::StatusIs;

const std::vector<std::string> kHosts = {"node01", "node02", "node03"};

class FakeTopology final : public v1::Topology::Service {
 public:
  enum Behaviour { kAnswer, kNotFound, kHang };
  FakeTopology(Behaviour behaviour, int64_t snapshot_id)
      : behaviour_(behaviour), snapshot_id_(snapshot_id) {}

  grpc::Status RegisterHostList(grpc::ServerContext* context,
                                const v1::RegisterHostListRequest* req,
                                v1::RegisterHostListResponse* resp) override {
    ++requests;
    if (grpc::Status s = Behave(context); !s.ok()) return s;
    resp->set_host_list("0123456789abcdef0123456789abcdef");
    resp->set_snapshot_id(snapshot_id_);
    resp->set_num_hosts(req->hosts_size());
    return grpc::Status::OK;
  }

  grpc::Status GetCostRow(grpc::ServerContext* context, const v1::GetCostRowRequest* req,
                          v1::GetCostRowResponse* resp) override {
    ++requests;
    if (grpc::Status s = Behave(context); !s.ok()) return s;
    if (!req->host_list().empty()) last_token = req->host_list();
    resp->set_snapshot_id(snapshot_id_);
    resp->set_host(req->host());
    for (size_t j = 0; j < kHosts.size(); ++j) {
      const bool self = kHosts[j] == req->host();
      resp->mutable_costs()->add_hops(self ? 0 : 1);
      resp->mutable_costs()->add_bottleneck_gbps(self ? 0 : 100);
      resp->mutable_costs()->add_latency_ns(self ? 0 : 1000 + snapshot_id_);
    }
    return grpc::Status::OK;
  }

  std::atomic<int> requests{0};
  std::string last_token;

 private:
  grpc::Status Behave(grpc::ServerContext* context) {
    if (behaviour_ == kNotFound) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "host node03 is not in the fabric");
    }
    if (behaviour_ == kHang) {
      while (!context->IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return grpc::Status(grpc::StatusCode::CANCELLED, "gone");
    }
    return grpc::Status::OK;
  }

  const Behaviour behaviour_;
  const int64_t snapshot_id_;
};

// A fake daemon on a loopback port of its own.
struct FakeDaemon {
  FakeDaemon(FakeTopology::Behaviour behaviour, int64_t snapshot_id)
      : service(behaviour, snapshot_id) {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service);
    server = builder.BuildAndStart();
    address = absl::StrCat("127.0.0.1:", port);
  }
  ~FakeDaemon() { server->Shutdown(std::chrono::system_clock::now()); }

  FakeTopology service;
  std::unique_ptr<grpc::Server> server;
  std::string address;
};

// A loopback port nobody listens on (bound and closed: the kernel refuses connections to it).
std::string RefusingAddress() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return absl::StrCat("127.0.0.1:", ntohs(a.sin_port));
}

std::unique_ptr<RowSource> SourceFor(const std::vector<std::string>& addresses,
                                     int deadline_ms = 2000) {
  ClientOptions options;
  options.address = absl::StrJoin(addresses, ",");
  options.deadline_ms = deadline_ms;
  return NewDaemonRowSource(options);
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(DaemonRowsTest, AStoppedFirstDaemonIsPassedOverAndTheStandbyAnswers) {
  FakeDaemon standby(FakeTopology::kAnswer, 7);
  const std::string stopped = RefusingAddress();
  std::unique_ptr<RowSource> source = SourceFor({stopped, standby.address});
  absl::StatusOr<CostRow> row = source->Row(HostListTicket{}, kHosts, 0, false);
  ASSERT_OK(row.status());
  EXPECT_EQ(row->snapshot_id, 7);
  EXPECT_EQ(LastAnsweringDaemon(), standby.address);
  // Next time the standby is asked first: the stopped one is not tried again.
  row = source->Row(HostListTicket{}, kHosts, 1, false);
  ASSERT_OK(row.status());
  EXPECT_EQ(standby.service.requests.load(), 2);
  EXPECT_EQ(LastAnsweringDaemon(), standby.address);
}

TEST(DaemonRowsTest, AHangingFirstDaemonCostsItsShareOfTheDeadlineOnly) {
  FakeDaemon hanging(FakeTopology::kHang, 1);
  FakeDaemon standby(FakeTopology::kAnswer, 7);
  std::unique_ptr<RowSource> source = SourceFor({hanging.address, standby.address}, 1000);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<CostRow> row = source->Row(HostListTicket{}, kHosts, 0, false);
  const double took = SecondsSince(start);
  ASSERT_OK(row.status());
  EXPECT_EQ(row->snapshot_id, 7);
  EXPECT_EQ(hanging.service.requests.load(), 1);
  EXPECT_GE(took, 0.45);  // half of the deadline on the hanging one
  EXPECT_LT(took, 1.0);   // the whole request within the deadline
}

TEST(DaemonRowsTest, ADaemonsOwnErrorIsTheAnswer) {
  FakeDaemon first(FakeTopology::kNotFound, 1);
  FakeDaemon standby(FakeTopology::kAnswer, 7);
  std::unique_ptr<RowSource> source = SourceFor({first.address, standby.address});
  absl::StatusOr<CostRow> row = source->Row(HostListTicket{}, kHosts, 0, false);
  EXPECT_THAT(row, StatusIs(absl::StatusCode::kNotFound,
                            AllOf(HasSubstr(first.address), HasSubstr("node03"))));
  EXPECT_EQ(standby.service.requests.load(), 0);
  EXPECT_EQ(LastAnsweringDaemon(), first.address);
}

TEST(DaemonRowsTest, WithNoDaemonAnsweringOneFailureNamesEach) {
  const std::string stopped = RefusingAddress();
  FakeDaemon hanging(FakeTopology::kHang, 1);
  std::unique_ptr<RowSource> source = SourceFor({stopped, hanging.address}, 600);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<CostRow> row = source->Row(HostListTicket{}, kHosts, 0, false);
  EXPECT_LT(SecondsSince(start), 0.9);
  EXPECT_THAT(row, StatusIs(absl::StatusCode::kDeadlineExceeded,
                            AllOf(HasSubstr("none of the 2 toporrd addresses answered"),
                                  HasSubstr(stopped + " (plaintext): GetCostRow: "),
                                  HasSubstr("(UNAVAILABLE"),
                                  HasSubstr(hanging.address + " (plaintext): GetCostRow: no "
                                                              "answer within its"),
                                  Not(HasSubstr("\n")))));
  EXPECT_EQ(LastAnsweringDaemon(), "");
}

TEST(DaemonRowsTest, TheRowsOfATicketComeFromTheDaemonThatIssuedIt) {
  FakeDaemon standby(FakeTopology::kAnswer, 7);
  FakeDaemon other(FakeTopology::kAnswer, 9);
  const std::string stopped = RefusingAddress();
  std::unique_ptr<RowSource> source = SourceFor({stopped, standby.address, other.address});
  absl::StatusOr<HostListTicket> ticket = source->Prepare(kHosts);
  ASSERT_OK(ticket.status());
  EXPECT_EQ(ticket->snapshot_id, 7);
  EXPECT_EQ(ticket->token, "1@0123456789abcdef0123456789abcdef");
  // Another process of the job (a source of its own, which has not learnt which daemon
  // answers) asks the ticket's daemon, with the daemon's own token.
  std::unique_ptr<RowSource> leader = SourceFor({stopped, standby.address, other.address});
  absl::StatusOr<CostRow> row = leader->Row(*ticket, kHosts, 2, false);
  ASSERT_OK(row.status());
  EXPECT_EQ(row->snapshot_id, 7);
  EXPECT_EQ(standby.service.last_token, "0123456789abcdef0123456789abcdef");
  // A ticket of the stopped daemon is not served by another one.
  HostListTicket of_stopped = *ticket;
  of_stopped.token = "0@0123456789abcdef0123456789abcdef";
  row = leader->Row(of_stopped, kHosts, 2, false);
  EXPECT_THAT(row, StatusIs(absl::StatusCode::kUnavailable, HasSubstr(stopped)));
  EXPECT_EQ(other.service.requests.load(), 0);
  // One daemon alone keeps the daemon's token as it is.
  std::unique_ptr<RowSource> single = SourceFor({standby.address});
  ticket = single->Prepare(kHosts);
  ASSERT_OK(ticket.status());
  EXPECT_EQ(ticket->token, "0123456789abcdef0123456789abcdef");
}

TEST(DaemonChannelTest, AChannelToAListGoesToItsFirstDaemon) {
  FakeDaemon first(FakeTopology::kAnswer, 3);
  DaemonEndpoint endpoint;
  endpoint.address = first.address + ", " + RefusingAddress();
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = NewDaemonChannel(endpoint);
  ASSERT_OK(channel.status());
  v1::GetCostRowRequest req;
  req.set_host(kHosts[0]);
  for (const std::string& h : kHosts) req.add_hosts(h);
  v1::GetCostRowResponse resp;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  ASSERT_TRUE(v1::Topology::NewStub(*channel)->GetCostRow(&context, req, &resp).ok());
  EXPECT_EQ(resp.snapshot_id(), 3);
  endpoint.address = first.address + ",";
  EXPECT_THAT(NewDaemonChannel(endpoint),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("element 2")));
}

TEST(DaemonRowsTest, AMalformedListIsRefusedNamingTheElement) {
  ClientOptions options;
  options.address = "127.0.0.1:1,,127.0.0.1:2";  // as the C API may pass it
  std::unique_ptr<RowSource> source = NewDaemonRowSource(options);
  EXPECT_THAT(source->Row(HostListTicket{}, kHosts, 0, false),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("element 2")));
}

}  // namespace
}  // namespace toporr::client
