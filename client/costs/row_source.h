// Where libtoporr's leaders get their host's cost row from: the seam between libtoporr and its
// cost sources, each in a file of its own: the daemon (daemon_rows.cc), a TOPORRC1/C2 cost
// file (TOPORR_COSTS, file_rows.cc), the checks every row passes (checked_rows.cc), and the
// factory that picks one (row_source.cc). Protocol, per decision:
//   1. one process (rank 0) calls Prepare() with the job's host list: it checks every host
//      is known and returns a ticket (the snapshot id, and for the daemon a host-list
//      token), which is broadcast to the leaders;
//   2. each leader calls Row() for its own host: one request per host, never per rank.
// Every call is bounded by the source's deadline. Rows carry the snapshot id they come from
// so that the caller can refuse to mix snapshots.
// A daemon that did not answer (UNAVAILABLE: no connection; DEADLINE_EXCEEDED) is not asked
// again for a while (per process): the daemon source answers every call with that failure at
// once for a back-off of 30 times what the unanswered call took (at least 1 s: a refused
// connection is retried soon, a stalled daemon that took the 2 s deadline after a minute),
// at least doubling with each further unanswered call, at most 10 minutes; the first call
// after the back-off asks again, and an answer ends it. During the back-off no call touches
// the network, whether the daemon refused the connection (its failure, which names the
// refusal, comes at once) or accepted it and stalled (the deadline). So a job whose daemon
// is down or stalled pays one connection attempt or one deadline about once, not once per
// communicator; one whose daemon restarts gets its rows at the first decision (or retry)
// after the back-off.
// Thread-safety: sources are thread-safe (decisions on several communicators may run in
// several threads at once, MPI_THREAD_MULTIPLE): the daemon source shares one gRPC channel,
// created once under a lock; the file source reads the file per call.
#ifndef TOPORR_CLIENT_COSTS_ROW_SOURCE_H_
#define TOPORR_CLIENT_COSTS_ROW_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "client/config/client_options.h"
#include "mapping/routes/table_routes.h"

namespace toporr::client {

struct HostListTicket {
  int64_t snapshot_id = 0;
  std::string token;  // opaque to the caller; empty for the file source
};

struct CostRow {
  int64_t snapshot_id = 0;
  // latency_ns[0..n) then bottleneck_gbps[0..n), columns in job host order (the layout a
  // RowCostMatrix reads).
  std::vector<float> values;
  // With routes asked for: the routes to the columns (link ids are the source's, the same
  // for every row of one snapshot); offsets empty when the source has none.
  mapping::RouteRow routes;
};

class RowSource {
 public:
  virtual ~RowSource() = default;
  // "daemon" or "file": the `source` of a decision report.
  virtual std::string_view kind() const = 0;
  // kNotFound naming the first job host the source does not know; transport errors as is.
  virtual absl::StatusOr<HostListTicket> Prepare(const std::vector<std::string>& hosts) = 0;
  // The row of hosts[host_index] against `hosts`; with `with_routes` also its routes when
  // the source has them (a source without routes is not an error: CostRow::routes empty).
  // `ticket` is Prepare's for `hosts`, or a default one: then the request carries the host
  // list itself (one request, no registration; for short lists) and the row is of the
  // source's current snapshot, whose id it holds.
  virtual absl::StatusOr<CostRow> Row(const HostListTicket& ticket,
                                      const std::vector<std::string>& hosts, int host_index,
                                      bool with_routes) = 0;
};

// Costs a row may hold: finite, at least 0, at most these. Anything else (NaN, infinite,
// negative, a latency of over a second or a link of over 100 Tb/s) is not a measurement of a
// fabric but a broken or hostile source.
inline constexpr double kMaxLatencyNs = 1e9;
inline constexpr double kMaxBottleneckGbps = 1e5;

// OK when every value of `row` (the row of hosts[host_index]) is a cost; kDataLoss naming
// the value, its column and the bounds otherwise.
absl::Status CheckCostValues(const CostRow& row, const std::vector<std::string>& hosts,
                             int host_index);

// `source` whose rows are refused (CheckCostValues) before the caller sees them.
std::unique_ptr<RowSource> WithCostChecks(std::unique_ptr<RowSource> source);

// The file source (TOPORR_COSTS): each call reads and checks the whole file, so a leader
// needs nothing from rank 0 but the file name.
std::unique_ptr<RowSource> NewFileRowSource(std::string path);

// The daemon source (daemon_rows.cc): the daemon at `address` (TCP) or `socket`, each request
// bounded by deadline_ms. A build without gRPC (the SimGrid SMPI build of the benchmarks)
// links a stand-in of its own instead.
std::unique_ptr<RowSource> NewDaemonRowSource(const ClientOptions& options);

// The source `options` select (row_source.cc): the file when costs_path is set, else the
// daemon; rows checked (WithCostChecks).
std::unique_ptr<RowSource> NewRowSource(const ClientOptions& options);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_COSTS_ROW_SOURCE_H_
