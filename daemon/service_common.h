// What the Topology and Admin services (topology_service.h, admin_service.h) share: the
// served snapshot or the status saying there is none, the check of request fields typed by
// people (`bytes` on the wire), and the wire form of snapshots and ingests.
#ifndef TOPORR_DAEMON_SERVICE_COMMON_H_
#define TOPORR_DAEMON_SERVICE_COMMON_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/fabric_state.h"
#include "db/store.h"
#include "toporr/v1/toporr.pb.h"

namespace toporr::daemon {

// The snapshot being served; kFailedPrecondition ("no fabric has been ingested yet ...")
// before the first ingest.
absl::StatusOr<std::shared_ptr<const Serving>> RequireCurrent(const FabricState& state);

// A request field that must hold printable UTF-8 (a `bytes` field on the wire, see the
// proto): kInvalidArgument naming the field and the first bad byte.
absl::Status CheckText(const char* field, const std::string& value);

// CheckText of every value.
absl::Status CheckTexts(const char* field,
                        const google::protobuf::RepeatedPtrField<std::string>& values);

// The wire form of a stored snapshot (`current`: it is the one being served) and of an
// ingest's outcome.
void ToProto(const db::SnapshotInfo& info, bool current, v1::SnapshotInfo* out);
void ToProto(const IngestOutcome& outcome, v1::IngestResponse* out);
// The whole snapshot (nodes sorted by type then GUID, links by their first end, hosts by
// name), as GetTopology answers it.
void TopologyToProto(const Serving& s, v1::GetTopologyResponse* out);

}  // namespace toporr::daemon

#endif  // TOPORR_DAEMON_SERVICE_COMMON_H_
