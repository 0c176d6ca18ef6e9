#include "daemon/rpc_stats.h"

namespace toporr::daemon {

void RpcStats::Count(absl::string_view method) {
  std::lock_guard<std::mutex> l(mu_);
  ++counts_[method];
}

std::map<std::string, int64_t> RpcStats::Counts() const {
  std::map<std::string, int64_t> out;
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [method, n] : counts_) out.emplace(std::string(method), n);
  return out;
}

}  // namespace toporr::daemon
