// toporrctl: the operator's command line over the daemon's gRPC API.
//
//   toporrctl [--socket PATH | --target HOST:PORT] [--json] [--timeout SECONDS] COMMAND ...
//
// Commands: ingest, hosts, cost, row, matrix, path, snapshot, snapshots, health (see
// kUsage in ctl.cc, printed by `toporrctl help`). Human-readable tables by default; `--json`
// prints one JSON document per command (field names are documented in README.md). Errors
// go to the error stream with a non-zero exit code: 1 for an RPC/daemon error, 2 for bad
// usage.
#ifndef TOPORR_CLIENT_CTL_H_
#define TOPORR_CLIENT_CTL_H_

#include <ostream>
#include <string>
#include <vector>

namespace toporr::client {

// Runs one toporrctl invocation; `args` excludes argv[0]. Returns the exit code.
int RunCtl(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_CTL_H_
