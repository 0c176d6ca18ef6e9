// `toporrctl validate`: toporr-probe's measurements against the model's costs
// (client/ctl/probe_validation.h), from the daemon's current snapshot or, with --fabric, a
// fabric dump read offline (which also gives routes, hence suspect links).
#ifndef TOPORR_CLIENT_CTL_VALIDATE_COMMAND_H_
#define TOPORR_CLIENT_CTL_VALIDATE_COMMAND_H_

#include <vector>

#include "client/ctl/command.h"

namespace toporr::client::ctl {

std::vector<Command> ValidateCommands();

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_VALIDATE_COMMAND_H_
