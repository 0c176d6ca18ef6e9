// The daemon's state: the durable store and the current snapshot served from memory.
//
// Reads never touch SQLite: they take a shared_ptr to the immutable current `Serving`
// value, so a concurrent ingest never exposes half a snapshot. An ingest parses the input,
// writes a complete snapshot to the store in one transaction, builds the cost tables, and
// only then swaps the new value in. Any failure leaves the current snapshot untouched.
// Thread-safe; ingests are serialised.
//
// What an ingest does depends on the kind of input (collectors/fabric_input.h):
//   - topology: a new fabric. The current forwarding tables are kept when they still fit
//     it (same LIDs, routes without dead ends), else dropped with a warning. A fabric that
//     loses all hosts of the current snapshot, or more than max_host_loss of them, is
//     refused (kFailedPrecondition naming the counts; counted in shrink_refusals()) unless
//     the ingest allows it: a truncated dump or a half-seen fabric must not replace the one
//     being served.
//   - forwarding tables: routes over the current fabric; a new snapshot.
//   - traces (ibtracert): checked hop by hop against the current routes; disagreements are
//     returned as warnings and no snapshot is made.
#ifndef TOPORR_DAEMON_FABRIC_STATE_H_
#define TOPORR_DAEMON_FABRIC_STATE_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "collectors/fabric_input.h"
#include "collectors/forwarding_tables.h"
#include "collectors/hosts.h"
#include "db/store.h"
#include "fabric/fabric.h"
#include "fabric/fabric_diff.h"
#include "mapping/costs/host_costs.h"
#include "mapping/routes/lft_routes.h"

namespace toporr::daemon {

// Host-pair costs as built for a fabric, with the LFT routes they walk kept by the builder
// (the one place that knows the concrete costs type).
struct ServedCosts {
  std::unique_ptr<mapping::PairCosts> costs;
  const mapping::LftRoutes* routes = nullptr;  // owned by `costs`; null: shortest paths
};

// One snapshot as served: metadata, the fabric and its host-pair costs (along forwarding
// tables when the snapshot has them, else widest-shortest paths).
struct Serving {
  db::SnapshotInfo info;
  // The input format info.source_kind names, parsed once (Describe); nullopt for a source
  // that is no input format (live discovery). kPlogp: the costs are measured, not derived.
  std::optional<collectors::InputFormat> source_format;
  fabric::Fabric fabric;
  std::unique_ptr<mapping::PairCosts> costs;
  const mapping::LftRoutes* routes = nullptr;        // owned by `costs`; null: none
  const fabric::ForwardingTables* tables = nullptr;  // routes->tables(); null: none

  // Takes `snapshot` as this snapshot's metadata (info and source_format).
  void Describe(db::SnapshotInfo snapshot);
  // Takes `served` as this snapshot's costs, routes and tables.
  void Serve(ServedCosts served);
};

// What changed between two stored snapshots: the diff and its text report.
struct SnapshotDiff {
  fabric::FabricDiff diff;
  std::string report;
};

using collectors::InputFormat;

struct IngestOutcome {
  db::SnapshotInfo snapshot;
  bool created = false;
  std::vector<std::string> warnings;
  int traces_checked = 0;       // ibtracert input only
  int trace_disagreements = 0;  // traces whose route differs from the LFT walk
};

// How one ingest goes.
struct IngestMode {
  // Accept a topology that loses more hosts than FabricStateOptions::max_host_loss allows.
  bool allow_shrink = false;
  // Change nothing: parse and route the input as the ingest would, then answer with the
  // stored snapshot whose content hash is what the ingest would store (created = false), or
  // kNotFound. For a client whose connection broke during an ingest: was it committed?
  bool verify_only = false;
};

struct FabricStateOptions {
  db::StoreOptions store;
  collectors::HostRule host_rule;
  // GUID -> host map file content applied to every ingest unless the request brings one.
  std::string default_host_map;
  std::string default_host_map_name = "host map";
  mapping::CostModelOptions cost_model;
  // Share of the current snapshot's hosts a new topology may lose (by name) without
  // `allow_shrink`; a topology with no hosts at all is refused whatever this says (when the
  // current snapshot has any). Config key max_host_loss_percent.
  double max_host_loss = 0.10;
};

class FabricState {
 public:
  // Opens the store and loads its current snapshot (if any) into memory.
  static absl::StatusOr<std::unique_ptr<FabricState>> Create(FabricStateOptions options);

  // nullptr until a first fabric has been ingested.
  std::shared_ptr<const Serving> Current() const;

  // Called after each new snapshot is swapped in (on the ingesting thread, in snapshot order;
  // keep it short): the daemon flips its gRPC health status there. Set before serving.
  void SetOnChange(std::function<void(const Serving&)> on_change) {
    std::lock_guard<std::mutex> l(ingest_mu_);
    on_change_ = std::move(on_change);
  }

  // Replaces FabricStateOptions::default_host_map (SIGHUP reload): later ingests use it; the
  // snapshot being served is kept.
  void SetDefaultHostMap(std::string content, std::string name);

  absl::StatusOr<IngestOutcome> Ingest(InputFormat format, const std::string& source_name,
                                       const std::string& content, const std::string& host_map,
                                       IngestMode mode = {});

  // A fabric (and optional routes) obtained elsewhere, e.g. by live discovery.
  absl::StatusOr<IngestOutcome> IngestFabric(fabric::Fabric fabric,
                                             const fabric::ForwardingTables* tables,
                                             const std::string& source_kind,
                                             const std::string& source_name, IngestMode mode = {});

  // Topologies refused since start because they lost too many hosts.
  int64_t shrink_refusals() const { return shrink_refusals_.load(); }

  absl::StatusOr<std::vector<db::SnapshotInfo>> ListSnapshots();

  // A stored snapshot's fabric and routes (for diffs), from SQLite.
  absl::StatusOr<std::pair<fabric::Fabric, std::optional<fabric::ForwardingTables>>> LoadSnapshot(
      int64_t id);

  // The diff from snapshot `from` to snapshot `to` (both stored), labelled "snapshot N".
  // kNotFound when either is not stored.
  absl::StatusOr<SnapshotDiff> Diff(int64_t from, int64_t to);

 private:
  explicit FabricState(FabricStateOptions options)
      : options_(std::move(options)),
        default_host_map_(std::make_shared<const std::pair<std::string, std::string>>(
            options_.default_host_map, options_.default_host_map_name)) {}
  // (content, name) of the default host map.
  std::shared_ptr<const std::pair<std::string, std::string>> DefaultHostMap() const;
  // Stores `fabric` with the routes `costs` walks (if any) unless the content is already
  // current, and serves it. `costs` is built by the caller (BuildPairCosts) before anything
  // is stored, so that a fabric we cannot serve is never stored.
  absl::StatusOr<IngestOutcome> StoreAndServe(fabric::Fabric fabric, ServedCosts costs,
                                              const std::string& source_kind,
                                              const std::string& source_name,
                                              std::vector<std::string> warnings)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(ingest_mu_);
  // IngestMode::verify_only: the stored snapshot holding `fabric` with the routes of `costs`.
  absl::StatusOr<IngestOutcome> FindStored(const fabric::Fabric& fabric, const ServedCosts& costs,
                                           const std::string& source_name)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(ingest_mu_);
  absl::StatusOr<IngestOutcome> CheckTraces(const std::string& source_name,
                                            const std::string& content);

  // kFailedPrecondition when `next` loses too many of the current snapshot's hosts.
  absl::Status CheckShrink(const fabric::Fabric& next, const std::string& source_name) const;

  const FabricStateOptions options_;
  std::atomic<int64_t> shrink_refusals_{0};
  std::mutex ingest_mu_;  // serialises ingests (and store access)
  std::unique_ptr<db::Store> store_ ABSL_GUARDED_BY(ingest_mu_);
  std::function<void(const Serving&)> on_change_ ABSL_GUARDED_BY(ingest_mu_);
  mutable std::mutex current_mu_;
  std::shared_ptr<const Serving> current_ ABSL_GUARDED_BY(current_mu_);
  std::shared_ptr<const std::pair<std::string, std::string>> default_host_map_
      ABSL_GUARDED_BY(current_mu_);
};

// Host-pair costs for a fabric: along `tables` when given, else widest-shortest paths.
// Tables fit only when every host has a routed port and every route between hosts ends at
// its destination (else kFailedPrecondition or the error of mapping::LftRoutes::Create):
// costs along tables never have unknown entries.
absl::StatusOr<ServedCosts> BuildPairCosts(const fabric::Fabric& fabric,
                                           std::optional<fabric::ForwardingTables> tables,
                                           const mapping::CostModelOptions& model);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_FABRIC_STATE_H_
