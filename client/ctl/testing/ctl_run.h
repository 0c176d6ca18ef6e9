// In-process toporrctl runs for tests: RunCtl (dispatch.h) with its output captured.
#ifndef TOPORR_CLIENT_CTL_TESTING_CTL_RUN_H_
#define TOPORR_CLIENT_CTL_TESTING_CTL_RUN_H_

#include <sstream>
#include <string>
#include <vector>

#include "client/ctl/dispatch.h"

namespace toporr::client::ctl::testing {

struct CtlRun {
  int exit_code;
  std::string out, err;
};

// toporrctl ARGS against a daemon socket nobody listens on, each RPC's deadline 2 s: a
// command that got as far as its RPC fails with exit 1, offline commands never reach for it.
inline CtlRun Ctl(std::vector<std::string> args) {
  args.insert(args.begin(), {"--socket", "/nonexistent/toporrd.sock", "--timeout", "2"});
  std::ostringstream out, err;
  int code = RunCtl(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace toporr::client::ctl::testing

#endif  // TOPORR_CLIENT_CTL_TESTING_CTL_RUN_H_
