// A stand-in for the live-discovery helper (`toporr-discover --serve` behind
// toporr-discover.socket) in tests: listens on a Unix socket and answers each connection,
// one at a time on a thread of its own, with the bytes the test chose, after reading the
// request line. Thread-safe.
#ifndef TOPORR_DAEMON_TESTING_FAKE_SWEEP_HELPER_H_
#define TOPORR_DAEMON_TESTING_FAKE_SWEEP_HELPER_H_

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"

namespace toporr::testing {

class FakeSweepHelper {
 public:
  // Listens at `path` (which must not exist).
  static absl::StatusOr<std::unique_ptr<FakeSweepHelper>> Start(const std::string& path);
  ~FakeSweepHelper();  // stops listening, removes the socket file

  // What every later connection gets after its request line: `reply` (raw bytes, e.g.
  // collectors::FormatSweepReply(...)), then the connection is closed. Default: "".
  void set_reply(std::string reply);
  // Later connections get no reply: the fake waits for the caller to hang up.
  void set_silent();

  // The request lines received so far (without their newline), in order.
  std::vector<std::string> requests() const;
  // Connections of set_silent() whose caller hung up.
  int hangups() const;

 private:
  FakeSweepHelper(std::string path, int listen_fd, int wake_fd);
  void Loop();
  void Answer(int conn);

  const std::string path_;
  const int listen_fd_;
  const int wake_fd_;
  mutable std::mutex mu_;
  std::string reply_;                  // guarded by mu_
  bool silent_ = false;                // guarded by mu_
  std::vector<std::string> requests_;  // guarded by mu_
  int hangups_ = 0;                    // guarded by mu_
  std::thread thread_;
};

}  // namespace toporr::testing

#endif  // TOPORR_DAEMON_TESTING_FAKE_SWEEP_HELPER_H_
