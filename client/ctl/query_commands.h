// toporrctl's read commands: hosts, cost, row, matrix, path, snapshot, snapshots, health,
// stats.
// Each asks the daemon one read RPC (open to every local user, also over --target) and
// replies with the answer as a table or as JSON.
#ifndef TOPORR_CLIENT_CTL_QUERY_COMMANDS_H_
#define TOPORR_CLIENT_CTL_QUERY_COMMANDS_H_

#include <vector>

#include "client/ctl/command.h"
#include "common/json_writer.h"
#include "toporr/v1/toporr.pb.h"

namespace toporr::client::ctl {

std::vector<Command> QueryCommands();

// A snapshot's JSON object (`id`, `created_unix_ms`, ... `forwarding_tables`), also part of
// the ingest and discover replies.
void WriteSnapshotJson(const v1::SnapshotInfo& s, JsonWriter& w);

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_QUERY_COMMANDS_H_
