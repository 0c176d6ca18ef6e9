// toporrctl's admin commands: ingest (a dump or traces), discover (a live sweep now) and
// diff (two snapshots). The daemon accepts ingest and discover only over its Unix socket from
// root, its own uid or the admin group.
#ifndef TOPORR_CLIENT_CTL_ADMIN_COMMANDS_H_
#define TOPORR_CLIENT_CTL_ADMIN_COMMANDS_H_

#include <vector>

#include "client/ctl/command.h"

namespace toporr::client::ctl {

std::vector<Command> AdminCommands();

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_ADMIN_COMMANDS_H_
