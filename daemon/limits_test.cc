// End-to-end resource limits (issue 12, class 5) with a real toporrd: readers (the TCP
// listener here, on loopback; the daemon serves non-admin Unix connections with the same
// server) cannot make the daemon buffer large requests or call admin methods with a large
// payload. The daemon's memory is its peak resident set (VmHWM in /proc/PID/status).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_data.h"
#include "daemon/testing/subprocess.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr {
namespace {

using ::testing::HasSubstr;
using ::toporr::testing::DaemonProcess;
using ::toporr::testing::RunProcess;
using ::toporr::testing::RunResult;

constexpr int64_t kMiB = 1 << 20;

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// A field of /proc/PID/status in bytes ("VmHWM", "VmRSS"), -1 when absent.
int64_t ProcStatusBytes(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream value(line.substr(field.size() + 1));
      int64_t kb = -1;
      value >> kb;
      return kb * 1024;
    }
  }
  return -1;
}

// A channel that sends and receives messages of any size (the limits under test are the
// daemon's).
std::shared_ptr<grpc::Channel> UnlimitedChannel(const std::string& target) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  args.SetMaxReceiveMessageSize(-1);
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

class LimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/toporrd-limits.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    chmod(dir_.c_str(), 0755);
    db_ = dir_ + "/toporr.db";
    sock_ = dir_ + "/toporrd.sock";
    fattree_ = dir_ + "/fattree.topo";
    WriteAll(fattree_, toporr::testing::ReadSharedFabric("ibnetdiscover_fattree_default.txt"));
    tcp_ = "127.0.0.1:" + std::to_string(FreePort());
  }
  void TearDown() override { RunProcess({"/bin/rm", "-rf", dir_}); }

  void WriteAll(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }

  // A daemon listening on `tcp_` (plain TCP on loopback: the read server) with `config`
  // lines, the fat tree ingested.
  std::unique_ptr<DaemonProcess> StartDaemon(const std::string& config) {
    const std::string conf = dir_ + "/toporrd.conf";
    WriteAll(conf, config);
    auto d = std::make_unique<DaemonProcess>(
        db_, sock_, std::vector<std::string>{"--config=" + conf, "--listen", tcp_});
    EXPECT_TRUE(d->Start()) << d->log();
    RunResult r = d->Ctl({"ingest", "--format", "ibnetdiscover", fattree_});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return d;
  }

  std::string dir_, db_, sock_, fattree_, tcp_;
};

TEST_F(LimitsTest, ReadServerRefusesLargeRequestsAndAdminCallsUnread) {
  std::unique_ptr<DaemonProcess> d = StartDaemon("");
  ASSERT_TRUE(d->running());
  auto reader = UnlimitedChannel(tcp_);
  auto topology = v1::Topology::NewStub(reader);
  auto admin = v1::Admin::NewStub(reader);
  {
    grpc::ClientContext ctx;
    v1::GetSnapshotResponse resp;
    ASSERT_TRUE(topology->GetSnapshot(&ctx, v1::GetSnapshotRequest(), &resp).ok());
  }
  const int64_t hwm_before = ProcStatusBytes(d->pid(), "VmHWM");
  ASSERT_GT(hwm_before, 0);

  // 300 MB of host names in one matrix request, then as many bytes as an ingest.
  v1::GetCostMatrixRequest big_read;
  for (int i = 0; i < 300; ++i) big_read.add_hosts(std::string(kMiB, 'a' + i % 26));
  {
    grpc::ClientContext ctx;
    v1::GetCostMatrixResponse resp;
    grpc::Status s = topology->GetCostMatrix(&ctx, big_read, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  }
  big_read.Clear();
  v1::IngestRequest big_ingest;
  big_ingest.set_format(v1::IBNETDISCOVER);
  big_ingest.set_source_name("big.topo");
  big_ingest.mutable_content()->assign(300 * kMiB, '#');
  {
    grpc::ClientContext ctx;
    v1::IngestResponse resp;
    grpc::Status s = admin->Ingest(&ctx, big_ingest, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED) << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr("admin RPCs need uid 0"));
  }
  // Within the limit, the admin method is still refused for lack of privilege.
  big_ingest.mutable_content()->assign(64 << 10, '#');
  {
    grpc::ClientContext ctx;
    v1::IngestResponse resp;
    grpc::Status s = admin->Ingest(&ctx, big_ingest, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED) << s.error_message();
  }
  big_ingest.Clear();
  const int64_t hwm_after = ProcStatusBytes(d->pid(), "VmHWM");
  EXPECT_LT(hwm_after - hwm_before, 64 * kMiB)
      << "peak RSS " << hwm_before / kMiB << " MiB -> " << hwm_after / kMiB << " MiB";
  RecordProperty("hwm_before_mib", static_cast<int>(hwm_before / kMiB));
  RecordProperty("hwm_after_mib", static_cast<int>(hwm_after / kMiB));

  // The daemon still answers readers, and admins (the Unix socket, this test runs as root)
  // keep the large limit: a 5 MiB request is read and answered.
  {
    grpc::ClientContext ctx;
    v1::GetSnapshotResponse resp;
    EXPECT_TRUE(topology->GetSnapshot(&ctx, v1::GetSnapshotRequest(), &resp).ok());
  }
  v1::GetCostMatrixRequest five_mib;
  for (int i = 0; i < 5; ++i) five_mib.add_hosts(std::string(kMiB, 'x'));
  {
    grpc::ClientContext ctx;
    v1::GetCostMatrixResponse resp;
    grpc::Status s = v1::Topology::NewStub(UnlimitedChannel("unix:" + sock_))
                         ->GetCostMatrix(&ctx, five_mib, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND) << s.error_message();
  }
  {  // the same over TCP is refused by size, with a configurable limit
    grpc::ClientContext ctx;
    v1::GetCostMatrixResponse resp;
    grpc::Status s = topology->GetCostMatrix(&ctx, five_mib, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  }
  EXPECT_EQ(d->Stop(), 0) << d->log();
  d = StartDaemon("max_read_message_bytes = 8388608\n");
  {
    grpc::ClientContext ctx;
    v1::GetCostMatrixResponse resp;
    grpc::Status s =
        v1::Topology::NewStub(UnlimitedChannel(tcp_))->GetCostMatrix(&ctx, five_mib, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND) << s.error_message();
  }
}

}  // namespace
}  // namespace toporr
