// toporrctl: the operator's command line over the daemon's gRPC API.
//
//   toporrctl [--socket PATH | --target HOST:PORT] [--json] [--timeout SECONDS] COMMAND ...
//
// RunCtl() reads the global options (anywhere on the line), finds COMMAND in the command
// table and prints its Reply (client/ctl/output.h): tables by default, one JSON document with
// `--json` (field names are documented in README.md). Errors go to the error stream: exit
// code 2 for bad usage (with the usage text), 1 for anything else (the daemon, an RPC, a
// file); a command may choose another code for a result (health --ready: 1 when not serving; ingest
// of traces: 3 when they disagree).
//
// Adding a command: a function `absl::StatusOr<Reply>(Invocation&, const CommandArgs&)` and
// a `Command{name, usage, function}` entry in its group's list (e.g. QueryCommands() in
// query_commands.cc). Adding a command group (say `export`): export_commands.{h,cc} with
// `std::vector<Command> ExportCommands()` and a cc_library, then one line, `ExportCommands,`,
// in kCommandGroups in dispatch.cc (and the library in the `dispatch` deps).
#ifndef TOPORR_CLIENT_CTL_DISPATCH_H_
#define TOPORR_CLIENT_CTL_DISPATCH_H_

#include <ostream>
#include <string>
#include <vector>

namespace toporr::client::ctl {

// Runs one toporrctl invocation; `args` excludes argv[0]. Returns the exit code.
int RunCtl(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_DISPATCH_H_
