#include "daemon/fabric_state.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "db/content_hash.h"
#include "fabric/fabric_diff_report.h"
#include "mapping/costs/cost_model.h"
#include "mapping/costs/lft_host_costs.h"
#include "mapping/routes/trace_check.h"

namespace toporr::daemon {

void Serving::Describe(db::SnapshotInfo snapshot) {
  info = std::move(snapshot);
  absl::StatusOr<collectors::InputFormat> format = collectors::ParseInputFormat(info.source_kind);
  source_format = format.ok() ? std::optional<collectors::InputFormat>(*format) : std::nullopt;
}

void Serving::Serve(ServedCosts served) {
  costs = std::move(served.costs);
  routes = served.routes;
  tables = routes != nullptr ? &routes->tables() : nullptr;
}

absl::StatusOr<ServedCosts> BuildPairCosts(const fabric::Fabric& fabric,
                                           std::optional<fabric::ForwardingTables> tables,
                                           const mapping::CostModelOptions& model) {
  if (mapping::ScalesRates(model)) {
    // The costs are built from the model's rates; neither HostCosts nor LftRoutes keeps a
    // reference to the fabric they were built from.
    const fabric::Fabric scaled = mapping::ScaledFabric(fabric, model);
    mapping::CostModelOptions unscaled = model;
    unscaled.host_rate_scale = unscaled.switch_rate_scale = 1.0;
    return BuildPairCosts(scaled, std::move(tables), unscaled);
  }
  ServedCosts out;
  if (tables.has_value()) {
    ASSIGN_OR_RETURN(auto lft, mapping::LftHostCosts::Create(fabric, std::move(*tables), model));
    // Create walked every route between hosts that have a routed port; the tables fit only
    // when that is every host, so that any pair a query names resolves.
    for (size_t h = 0; h < fabric.hosts.size(); ++h) {
      if (lft->routes().HostPort(static_cast<int>(h)).node < 0) {
        return absl::FailedPreconditionError(
            absl::StrCat("host '", fabric.hosts[h].name,
                         "' has no cabled port with a LID, so the forwarding tables cannot "
                         "route to it"));
      }
    }
    out.routes = &lft->routes();
    out.costs = std::move(lft);
    return out;
  }
  ASSIGN_OR_RETURN(out.costs, mapping::HostCosts::Create(fabric, model));
  return out;
}

absl::StatusOr<std::unique_ptr<FabricState>> FabricState::Create(FabricStateOptions options) {
  std::unique_ptr<FabricState> state(new FabricState(options));
  std::lock_guard<std::mutex> l(state->ingest_mu_);
  ASSIGN_OR_RETURN(state->store_, db::Store::Open(options.store));
  ASSIGN_OR_RETURN(std::optional<db::SnapshotInfo> current, state->store_->Current());
  if (current.has_value()) {
    auto serving = std::make_shared<Serving>();
    serving->Describe(*current);
    ASSIGN_OR_RETURN(serving->fabric, state->store_->LoadFabric(current->id));
    ASSIGN_OR_RETURN(auto tables, state->store_->LoadForwardingTables(current->id));
    ASSIGN_OR_RETURN(ServedCosts costs,
                     BuildPairCosts(serving->fabric, std::move(tables), options.cost_model));
    serving->Serve(std::move(costs));
    std::lock_guard<std::mutex> c(state->current_mu_);
    state->current_ = std::move(serving);
  }
  return state;
}

std::shared_ptr<const Serving> FabricState::Current() const {
  std::lock_guard<std::mutex> l(current_mu_);
  return current_;
}

absl::StatusOr<IngestOutcome> FabricState::StoreAndServe(fabric::Fabric fabric, ServedCosts costs,
                                                         const std::string& source_kind,
                                                         const std::string& source_name,
                                                         std::vector<std::string> warnings) {
  IngestOutcome outcome;
  outcome.warnings = std::move(warnings);
  if (fabric.hosts.empty()) {
    outcome.warnings.push_back(source_name +
                               ": no hosts derived from CA descriptions (all CAs anonymous); "
                               "provide a GUID -> host map");
  }
  const fabric::ForwardingTables* stored_tables =
      costs.routes != nullptr ? &costs.routes->tables() : nullptr;
  ASSIGN_OR_RETURN(db::IngestResult result,
                   store_->Ingest(fabric, stored_tables, source_kind, source_name));
  outcome.snapshot = result.snapshot;
  outcome.created = result.created;
  std::shared_ptr<const Serving> now = Current();
  if (result.created || now == nullptr || now->info.id != result.snapshot.id) {
    auto serving = std::make_shared<Serving>();
    serving->Describe(result.snapshot);
    serving->fabric = std::move(fabric);
    serving->Serve(std::move(costs));
    {
      std::lock_guard<std::mutex> c(current_mu_);
      current_ = serving;
    }
    // Under ingest_mu_: listeners see the snapshots in order.
    if (on_change_) on_change_(*serving);
  }
  return outcome;
}

absl::StatusOr<IngestOutcome> FabricState::FindStored(const fabric::Fabric& fabric,
                                                      const ServedCosts& costs,
                                                      const std::string& source_name) {
  const fabric::ForwardingTables* tables =
      costs.routes != nullptr && !costs.routes->tables().switches().empty()
          ? &costs.routes->tables()
          : nullptr;
  const std::string hash = db::SnapshotContentHash(fabric, tables);
  ASSIGN_OR_RETURN(std::vector<db::SnapshotInfo> stored, store_->ListSnapshots());
  for (const db::SnapshotInfo& info : stored) {
    if (info.content_hash != hash) continue;
    IngestOutcome outcome;
    outcome.snapshot = info;
    return outcome;
  }
  return absl::NotFoundError(absl::StrCat(source_name, ": no stored snapshot holds this content (",
                                          hash.substr(0, 12), "...); it was not ingested"));
}

void FabricState::SetDefaultHostMap(std::string content, std::string name) {
  auto map = std::make_shared<const std::pair<std::string, std::string>>(std::move(content),
                                                                         std::move(name));
  std::lock_guard<std::mutex> l(current_mu_);
  default_host_map_ = std::move(map);
}

std::shared_ptr<const std::pair<std::string, std::string>> FabricState::DefaultHostMap() const {
  std::lock_guard<std::mutex> l(current_mu_);
  return default_host_map_;
}

absl::Status FabricState::CheckShrink(const fabric::Fabric& next,
                                      const std::string& source_name) const {
  std::shared_ptr<const Serving> now = Current();
  if (now == nullptr || now->fabric.hosts.empty()) return absl::OkStatus();
  const size_t had = now->fabric.hosts.size();
  size_t lost = 0;
  for (const fabric::Host& h : now->fabric.hosts) lost += next.FindHost(h.name) < 0 ? 1 : 0;
  const double limit = options_.max_host_loss;
  if (!next.hosts.empty() && static_cast<double>(lost) <= limit * static_cast<double>(had)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      source_name, ": refused: it would remove ", lost, " of the ", had, " hosts of snapshot ",
      now->info.id, " (", next.hosts.size(), " hosts left; at most ",
      static_cast<int>(limit * 100 + 0.5),
      " % may go, max_host_loss_percent). A truncated or partial dump? If the fabric really "
      "shrank, ingest it again with --allow-shrink"));
}

absl::StatusOr<IngestOutcome> FabricState::Ingest(InputFormat format,
                                                  const std::string& source_name,
                                                  const std::string& content,
                                                  const std::string& host_map, IngestMode mode) {
  switch (collectors::KindOf(format)) {
    case collectors::InputKind::kTraces:
      return CheckTraces(source_name, content);
    case collectors::InputKind::kForwardingTables: {
      ASSIGN_OR_RETURN(fabric::ForwardingTables tables,
                       collectors::ParseForwardingTablesInput(format, source_name, content));
      std::lock_guard<std::mutex> l(ingest_mu_);
      std::shared_ptr<const Serving> now = Current();
      if (now == nullptr) {
        return absl::FailedPreconditionError(
            source_name +
            ": forwarding tables need a topology first; ingest an "
            "ibnetdiscover (or opareport) dump of the same fabric");
      }
      absl::StatusOr<ServedCosts> costs =
          BuildPairCosts(now->fabric, std::move(tables), options_.cost_model);
      if (!costs.ok()) {
        return absl::Status(costs.status().code(),
                            absl::StrCat(source_name, ": does not fit snapshot ", now->info.id,
                                         ": ", costs.status().message()));
      }
      if (mode.verify_only) return FindStored(now->fabric, *costs, source_name);
      return StoreAndServe(now->fabric, std::move(*costs), collectors::InputFormatName(format),
                           source_name, {});
    }
    case collectors::InputKind::kTopology:
      break;
  }
  const bool own_map = !host_map.empty();
  std::shared_ptr<const std::pair<std::string, std::string>> default_map = DefaultHostMap();
  collectors::FabricInput input;
  input.format = format;
  input.source_name = source_name;
  input.content = content;
  input.host_rule = options_.host_rule;
  input.host_map = own_map ? host_map : default_map->first;
  input.host_map_name = own_map ? "request host map" : default_map->second;
  ASSIGN_OR_RETURN(fabric::Fabric fabric, collectors::ParseFabricInput(input));
  return IngestFabric(std::move(fabric), nullptr, collectors::InputFormatName(format), source_name,
                      mode);
}

absl::StatusOr<IngestOutcome> FabricState::IngestFabric(fabric::Fabric fabric,
                                                        const fabric::ForwardingTables* tables,
                                                        const std::string& source_kind,
                                                        const std::string& source_name,
                                                        IngestMode mode) {
  std::lock_guard<std::mutex> l(ingest_mu_);
  if (!mode.allow_shrink && !mode.verify_only) {
    if (absl::Status shrink = CheckShrink(fabric, source_name); !shrink.ok()) {
      ++shrink_refusals_;
      return shrink;
    }
  }
  std::vector<std::string> warnings;
  ServedCosts costs;
  if (tables != nullptr) {
    ASSIGN_OR_RETURN(costs, BuildPairCosts(fabric, *tables, options_.cost_model));
  } else if (std::shared_ptr<const Serving> now = Current(); now && now->tables) {
    // Keep the current routes when they still describe this fabric (e.g. a re-discovery
    // that found the same LIDs); a changed fabric needs a fresh LFT dump.
    absl::StatusOr<ServedCosts> kept = BuildPairCosts(fabric, *now->tables, options_.cost_model);
    if (kept.ok()) {
      costs = std::move(*kept);
    } else {
      warnings.push_back(absl::StrCat("forwarding tables of snapshot ", now->info.id,
                                      " do not fit the new fabric (", kept.status().message(),
                                      "); costs fall back to shortest paths until a new LFT "
                                      "dump is ingested"));
    }
  }
  if (costs.costs == nullptr) {
    ASSIGN_OR_RETURN(costs, BuildPairCosts(fabric, std::nullopt, options_.cost_model));
  }
  if (mode.verify_only) return FindStored(fabric, costs, source_name);
  return StoreAndServe(std::move(fabric), std::move(costs), source_kind, source_name,
                       std::move(warnings));
}

absl::StatusOr<IngestOutcome> FabricState::CheckTraces(const std::string& source_name,
                                                       const std::string& content) {
  ASSIGN_OR_RETURN(std::vector<fabric::Trace> traces,
                   collectors::ParseTracesInput(source_name, content));
  std::shared_ptr<const Serving> now = Current();
  if (now == nullptr || now->routes == nullptr) {
    return absl::FailedPreconditionError(
        source_name +
        ": traces are checked against forwarding tables; ingest an LFT dump "
        "(--format lft or opensm-lfts) first");
  }
  IngestOutcome outcome;
  outcome.snapshot = now->info;
  for (const fabric::Trace& trace : traces) {
    ++outcome.traces_checked;
    std::vector<std::string> diffs = mapping::CompareTrace(*now->routes, trace);
    if (diffs.empty()) continue;
    ++outcome.trace_disagreements;
    for (const std::string& d : diffs) {
      outcome.warnings.push_back(absl::StrCat(source_name, ":", trace.line, ": ", d));
    }
  }
  return outcome;
}

absl::StatusOr<std::vector<db::SnapshotInfo>> FabricState::ListSnapshots() {
  std::lock_guard<std::mutex> l(ingest_mu_);
  return store_->ListSnapshots();
}

absl::StatusOr<std::pair<fabric::Fabric, std::optional<fabric::ForwardingTables>>>
FabricState::LoadSnapshot(int64_t id) {
  std::lock_guard<std::mutex> l(ingest_mu_);
  ASSIGN_OR_RETURN(fabric::Fabric fabric, store_->LoadFabric(id));
  ASSIGN_OR_RETURN(auto tables, store_->LoadForwardingTables(id));
  return std::make_pair(std::move(fabric), std::move(tables));
}

absl::StatusOr<SnapshotDiff> FabricState::Diff(int64_t from, int64_t to) {
  ASSIGN_OR_RETURN(auto a, LoadSnapshot(from));
  ASSIGN_OR_RETURN(auto b, LoadSnapshot(to));
  SnapshotDiff out;
  out.diff = fabric::DiffFabrics(a.first, a.second ? &*a.second : nullptr, b.first,
                                 b.second ? &*b.second : nullptr);
  fabric::DiffFormatOptions fmt;
  fmt.label_a = absl::StrCat("snapshot ", from);
  fmt.label_b = absl::StrCat("snapshot ", to);
  out.report = fabric::FormatFabricDiff(out.diff, fmt);
  return out;
}

}  // namespace toporr::daemon
