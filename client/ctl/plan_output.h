// The reply of `toporrctl plan`: what was planned and how (collective, size, ranks, where the
// costs came from), the predicted time before and after, the new rank order and every
// candidate considered, as text or as JSON (`plan` fields in README.md).
#ifndef TOPORR_CLIENT_CTL_PLAN_OUTPUT_H_
#define TOPORR_CLIENT_CTL_PLAN_OUTPUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "client/ctl/output.h"
#include "client/plan.h"

namespace toporr::client::ctl {

struct PlanReport {
  std::string collective;  // as given on the command line
  int64_t message_bytes = 0;
  std::vector<std::string> rank_hosts;  // host of each (old) rank, in launch order
  int64_t num_hosts = 0;
  std::string cost_source;  // JobCosts::source
  bool contention = false;  // routes known: link loads are meaningful
  PlanResult plan;
  std::string rankfile_out;  // files written, if any ("" = none)
  std::string hostfile_out;
};

Reply PlanReply(PlanReport report);

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_PLAN_OUTPUT_H_
