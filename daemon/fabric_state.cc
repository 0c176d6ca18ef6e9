#include "daemon/fabric_state.h"

#include "common/status_macros.h"

namespace toporr::daemon {

absl::StatusOr<std::shared_ptr<const Serving>> FabricState::MakeServing(
    const db::SnapshotInfo& info, collectors::Fabric fabric,
    const mapping::CostModelOptions& cost_model) {
  auto serving = std::make_shared<Serving>();
  serving->info = info;
  serving->fabric = std::move(fabric);
  ASSIGN_OR_RETURN(serving->costs, mapping::HostCosts::Create(serving->fabric, cost_model));
  return std::shared_ptr<const Serving>(std::move(serving));
}

absl::StatusOr<std::unique_ptr<FabricState>> FabricState::Create(FabricStateOptions options) {
  std::unique_ptr<FabricState> state(new FabricState(options));
  std::lock_guard<std::mutex> l(state->ingest_mu_);
  ASSIGN_OR_RETURN(state->store_, db::Store::Open(options.store));
  ASSIGN_OR_RETURN(std::optional<db::SnapshotInfo> current, state->store_->Current());
  if (current.has_value()) {
    ASSIGN_OR_RETURN(collectors::Fabric fabric, state->store_->LoadFabric(current->id));
    ASSIGN_OR_RETURN(auto serving, MakeServing(*current, std::move(fabric), options.cost_model));
    std::lock_guard<std::mutex> c(state->current_mu_);
    state->current_ = std::move(serving);
  }
  return state;
}

std::shared_ptr<const Serving> FabricState::Current() const {
  std::lock_guard<std::mutex> l(current_mu_);
  return current_;
}

absl::StatusOr<IngestOutcome> FabricState::Ingest(InputFormat format,
                                                  const std::string& source_name,
                                                  const std::string& content,
                                                  const std::string& host_map) {
  const bool own_map = !host_map.empty();
  collectors::FabricInput input;
  input.format = format;
  input.source_name = source_name;
  input.content = content;
  input.host_rule = options_.host_rule;
  input.host_map = own_map ? host_map : options_.default_host_map;
  input.host_map_name = own_map ? "request host map" : options_.default_host_map_name;
  ASSIGN_OR_RETURN(collectors::Fabric fabric, collectors::ParseFabricInput(input));
  IngestOutcome outcome;
  if (fabric.hosts.empty()) {
    outcome.warnings.push_back(source_name +
                               ": no hosts derived from CA descriptions (all CAs anonymous); "
                               "provide a GUID -> host map");
  }
  std::lock_guard<std::mutex> l(ingest_mu_);
  // Costs are built before the commit so that a fabric we cannot serve is never stored.
  ASSIGN_OR_RETURN(auto costs, mapping::HostCosts::Create(fabric, options_.cost_model));
  ASSIGN_OR_RETURN(db::IngestResult result,
                   store_->Ingest(fabric, collectors::InputFormatName(format), source_name));
  outcome.snapshot = result.snapshot;
  outcome.created = result.created;
  std::shared_ptr<const Serving> now = Current();
  if (result.created || now == nullptr || now->info.id != result.snapshot.id) {
    auto serving = std::make_shared<Serving>();
    serving->info = result.snapshot;
    serving->fabric = std::move(fabric);
    serving->costs = std::move(costs);
    std::lock_guard<std::mutex> c(current_mu_);
    current_ = std::move(serving);
  }
  return outcome;
}

absl::StatusOr<std::vector<db::SnapshotInfo>> FabricState::ListSnapshots() {
  std::lock_guard<std::mutex> l(ingest_mu_);
  return store_->ListSnapshots();
}

}  // namespace toporr::daemon
