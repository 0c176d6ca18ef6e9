// `toporrctl plan`: a topology-aware rank order for a job, without linking anything. Reads
// the job's hostfile and launch placement, takes costs from the daemon or offline from a
// fabric dump (client/costs/job_costs.h), plans with client/plan/plan.h, optionally writes an Open
// MPI rankfile or a reordered hostfile, and replies with client/ctl/plan_output.h.
#ifndef TOPORR_CLIENT_CTL_PLAN_COMMAND_H_
#define TOPORR_CLIENT_CTL_PLAN_COMMAND_H_

#include <vector>

#include "client/ctl/command.h"

namespace toporr::client::ctl {

std::vector<Command> PlanCommands();

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_PLAN_COMMAND_H_
