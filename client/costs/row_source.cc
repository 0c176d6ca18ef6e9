#include "client/costs/row_source.h"

namespace toporr::client {

std::unique_ptr<RowSource> NewRowSource(const ClientOptions& options) {
  if (!options.costs_path.empty()) return WithCostChecks(NewFileRowSource(options.costs_path));
  return WithCostChecks(NewDaemonRowSource(options));
}

}  // namespace toporr::client
