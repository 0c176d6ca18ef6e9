// toporrctl's exports for other tools. `export --format costs --output FILE HOST...` writes
// the job's cost matrix and its snapshot id as a client/costs/cost_file.h file, which libtoporr
// reads through TOPORR_COSTS=FILE with no daemon. The other formats (the table of
// export_commands.cc, which `toporrctl help` and the refusal of an unknown format list) render
// the daemon's GetTopology reply (client/ctl/topology_export.h), printed or written atomically
// to --output.
#ifndef TOPORR_CLIENT_CTL_EXPORT_COMMANDS_H_
#define TOPORR_CLIENT_CTL_EXPORT_COMMANDS_H_

#include <vector>

#include "client/ctl/command.h"

namespace toporr::client::ctl {

std::vector<Command> ExportCommands();

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_EXPORT_COMMANDS_H_
