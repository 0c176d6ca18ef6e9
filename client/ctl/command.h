// What a toporrctl command is, and what every command may use: the daemon
// (client/ctl/daemon_client.h), the ways to say "bad usage", option parsing, input files.
//
// A command is a function from its arguments to a Reply (client/ctl/output.h) or an error.
// Errors made with UsageError() exit 2 and print the usage; every other error (the daemon's,
// a file that cannot be read, a plan that fails) exits 1. Dispatch (client/ctl/dispatch.cc)
// makes that choice, in one place.
#ifndef TOPORR_CLIENT_CTL_COMMAND_H_
#define TOPORR_CLIENT_CTL_COMMAND_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/ctl/daemon_client.h"
#include "client/ctl/output.h"
#include "common/key_value_file.h"
#include "mapping/costs/cost_model.h"

namespace toporr::client::ctl {

// One toporrctl run as a command sees it. Commands never see --json: they reply in both
// forms and dispatch prints one.
struct Invocation {
  DaemonClient& daemon;
};

using CommandArgs = std::vector<std::string>;

struct Command {
  std::string name;
  // Its entry in `toporrctl help`: lines indented by two spaces, each ending in '\n'.
  std::string usage;
  std::function<absl::StatusOr<Reply>(Invocation&, const CommandArgs&)> run;
};

// kInvalidArgument marked as bad usage of toporrctl (exit 2), as opposed to the same code
// coming from the daemon or from parsing an input file (exit 1).
absl::Status UsageError(absl::string_view message);
bool IsUsageError(const absl::Status& status);

// "COMMAND takes no arguments" unless `args` is empty.
absl::Status NoArguments(absl::string_view command, const CommandArgs& args);

// Splits `args` into `--name VALUE` options, stored through `options`, `--name` flags, set
// through `flags`, and the rest, in order, into `positional`. An option that is in neither,
// or lacks its value, or whose value is empty, is a usage error naming `command`.
absl::Status ParseOptions(absl::string_view command, const CommandArgs& args,
                          const std::map<std::string, std::string*>& options,
                          std::vector<std::string>* positional,
                          const std::map<std::string, bool*>& flags = {});

// Appends the hosts of a `--hosts H1,H2,...` value to `hosts`; an empty name ("a,,b", "a,")
// is a usage error naming `command` (never "every host").
absl::Status AppendHostList(absl::string_view command, absl::string_view list,
                            std::vector<std::string>* hosts);

// A whole decimal number in [min, max], else a usage error "`what` needs a number".
absl::StatusOr<int64_t> ParseInteger(absl::string_view text, int64_t min, int64_t max,
                                     absl::string_view what);

// The whole content of the regular file `path`, of at most `max_bytes` (a bound of
// common/key_value_file.h for its `kind`): ReadRegularFile's errors, which name the path.
absl::StatusOr<std::string> ReadInputFile(const std::string& path, int64_t max_bytes,
                                          std::string_view kind);

// The cost model of a `key = value` file: its `cost_model` and `cost_model_*` lines
// (mapping/costs/cost_model.h) applied in order, every other key ignored, so that a
// toporrd.conf or `toporrctl calibrate --output`'s file serve alike. Errors name the file and
// line.
absl::StatusOr<mapping::CostModelSettings> ReadCostModelFile(const std::string& path);

// "dir/fabric.topo" -> "fabric.topo": the name a file is known by in errors and snapshots.
std::string Basename(const std::string& path);

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_COMMAND_H_
