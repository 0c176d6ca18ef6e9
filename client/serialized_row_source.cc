#include "client/serialized_row_source.h"

#include <mutex>
#include <utility>

#include "absl/base/thread_annotations.h"

namespace toporr::client {
namespace {

class Serialized final : public RowSource {
 public:
  explicit Serialized(std::unique_ptr<RowSource> source) : source_(std::move(source)) {}

  std::string_view kind() const override { return source_->kind(); }

  absl::StatusOr<HostListTicket> Prepare(const std::vector<std::string>& hosts) override {
    std::lock_guard<std::mutex> lock(mu_);
    return source_->Prepare(hosts);
  }

  absl::StatusOr<CostRow> Row(const HostListTicket& ticket, const std::vector<std::string>& hosts,
                              int host_index, bool with_routes) override {
    std::lock_guard<std::mutex> lock(mu_);
    return source_->Row(ticket, hosts, host_index, with_routes);
  }

 private:
  std::mutex mu_;
  const std::unique_ptr<RowSource> source_ ABSL_PT_GUARDED_BY(mu_);
};

}  // namespace

std::unique_ptr<RowSource> SerializedRowSource(std::unique_ptr<RowSource> source) {
  return std::make_unique<Serialized>(std::move(source));
}

}  // namespace toporr::client
