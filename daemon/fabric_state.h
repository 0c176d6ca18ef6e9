// The daemon's state: the durable store and the current snapshot served from memory.
//
// Reads never touch SQLite: they take a shared_ptr to the immutable current `Serving`
// value, so a concurrent ingest never exposes half a snapshot. An ingest parses the input,
// derives hosts, writes a complete snapshot to the store in one transaction, builds the
// cost tables, and only then swaps the new value in. Any failure leaves the current
// snapshot untouched. Thread-safe; ingests are serialised.
#ifndef TOPORR_DAEMON_FABRIC_STATE_H_
#define TOPORR_DAEMON_FABRIC_STATE_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "collectors/fabric.h"
#include "collectors/fabric_input.h"
#include "collectors/hosts.h"
#include "db/store.h"
#include "mapping/host_costs.h"

namespace toporr::daemon {

// One snapshot as served: metadata, the fabric and its precomputed host costs.
struct Serving {
  db::SnapshotInfo info;
  collectors::Fabric fabric;
  std::unique_ptr<mapping::HostCosts> costs;
};

using collectors::InputFormat;

struct IngestOutcome {
  db::SnapshotInfo snapshot;
  bool created = false;
  std::vector<std::string> warnings;
};

struct FabricStateOptions {
  db::StoreOptions store;
  collectors::HostRule host_rule;
  // GUID -> host map file content applied to every ingest unless the request brings one.
  std::string default_host_map;
  std::string default_host_map_name = "host map";
  mapping::CostModelOptions cost_model;
};

class FabricState {
 public:
  // Opens the store and loads its current snapshot (if any) into memory.
  static absl::StatusOr<std::unique_ptr<FabricState>> Create(FabricStateOptions options);

  // nullptr until a first fabric has been ingested.
  std::shared_ptr<const Serving> Current() const;

  absl::StatusOr<IngestOutcome> Ingest(InputFormat format, const std::string& source_name,
                                       const std::string& content,
                                       const std::string& host_map);

  absl::StatusOr<std::vector<db::SnapshotInfo>> ListSnapshots();

 private:
  explicit FabricState(FabricStateOptions options) : options_(std::move(options)) {}
  static absl::StatusOr<std::shared_ptr<const Serving>> MakeServing(
      const db::SnapshotInfo& info, collectors::Fabric fabric,
      const mapping::CostModelOptions& cost_model);

  const FabricStateOptions options_;
  std::mutex ingest_mu_;  // serialises ingests (and store access)
  std::unique_ptr<db::Store> store_ ABSL_GUARDED_BY(ingest_mu_);
  mutable std::mutex current_mu_;
  std::shared_ptr<const Serving> current_ ABSL_GUARDED_BY(current_mu_);
};

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_FABRIC_STATE_H_
