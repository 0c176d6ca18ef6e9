// Host-to-host costs and paths computed from the fabric graph (DESIGN.md "Cost semantics").
//
// For two hosts a != b (indices into Fabric::hosts):
//   hops             number of SWITCHES on the path (two hosts on one leaf: 1; leaf-spine-leaf:
//                    3; hosts cabled back to back: 0).
//   bottleneck_gbps  the slowest link data rate on the path, host cables included, in Gb/s.
//                    Among all shortest (fewest-switch) paths the one with the LARGEST
//                    bottleneck is taken (widest-shortest path). Parallel cables between two
//                    switches do not add up here: the faster one counts (their extra capacity
//                    matters for contention, which mapping/routes/fabric_routes.h / the predictor
//                    model). A link of unknown rate counts as the slowest known rate in the fabric;
//                    bottleneck_gbps is 0 only when no link of the fabric has a known rate.
//   latency_ns       modelled: nic_latency_ns + per_message_ns + switch_latency_ns * hops
//                    + link_latency_ns * (hops + 1)  (a path over h switches has h + 1 cables).
//   alpha_ns         = latency_ns.
//   beta_ns_per_byte = 8 / bottleneck_gbps (Gb/s is bits per ns); 0 when bottleneck_gbps is
//                    0 (no rate known: costs rank by latency alone).
// So m bytes cost alpha_ns + m * beta_ns_per_byte; smaller is closer. The diagonal is all 0
// (intra-host costs come from placement.h). Multi-rail and dual-homed hosts: the cost of a
// pair is that of its best port pair (fewest switches, then widest); see
// mapping/routes/host_graph.h for which nodes may carry host traffic (switches only, never routers)
// and the exact tie rules.
//
// Unreachable pairs (different partitions, or a host with no cabled port): hops = -1,
// bottleneck_gbps = 0 and latency_ns = alpha_ns = beta_ns_per_byte = +infinity, so they are
// farther than everything; test `hops < 0` rather than comparing infinities.
#ifndef TOPORR_MAPPING_COSTS_HOST_COSTS_H_
#define TOPORR_MAPPING_COSTS_HOST_COSTS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fabric/fabric.h"
#include "mapping/costs/cost_matrix.h"
#include "mapping/routes/host_graph.h"

namespace toporr::mapping {

// The cost model's constants. Defaults describe an HDR-class InfiniBand fabric; the other
// kinds, and the settings that change them, are in mapping/costs/cost_model.h.
struct CostModelOptions {
  // Both HCAs together (send + receive side, PCIe and NIC pipeline), ~300 ns each: what
  // remains of a ~1 us back-to-back MPI ping-pong after software overhead.
  double nic_latency_ns = 600.0;
  // Port-to-port cut-through latency of one switch (NVIDIA Quantum HDR ~130 ns; EDR
  // Switch-IB 2 ~90 ns; NDR Quantum-2 is similar to HDR).
  double switch_latency_ns = 130.0;
  // Propagation on one cable: ~5 ns/m in copper or fibre, 3 m (in-rack DAC) per cable.
  double link_latency_ns = 15.0;
  // Software cost of one message between two hosts beyond the NICs' (the MPI library's and
  // the transport's stack): 0 where nic_latency_ns already covers it (RDMA), tens of
  // microseconds over kernel TCP. Part of every inter-host pair's latency.
  double per_message_ns = 0.0;
  // Effective share of a link's data rate that messages get: the model's rate of a link is
  // its fabric rate x the scale of its tier. Host cables (one end a CA) and switch-to-switch
  // cables scale separately. 1: the fabric's rates as they are.
  double host_rate_scale = 1.0;
  double switch_rate_scale = 1.0;
};

struct HostPairCost {
  int32_t hops = 0;
  double bottleneck_gbps = 0;
  double latency_ns = 0;
  double alpha_ns = 0;
  double beta_ns_per_byte = 0;
};

struct HostPath {
  int32_t src_host = -1;
  int32_t dst_host = -1;
  // Source CA, switches, destination CA (see mapping/routes/host_graph.h).
  std::vector<PathHop> hops;
  HostPairCost cost;
};

// PairCosts::MatrixCompactRows' answer: row i of MatrixCompact(hosts) is stored row row_of[i] with
// its entry i replaced by that row's `diagonal` hops byte (0 for a valid host index,
// kCompactUnreachable for one out of range) and rate index 0. Immutable once filled; safe
// to read from several threads.
struct CompactRowSet {
  size_t n = 0;                    // hosts.size(): the length of every row
  std::vector<int32_t> row_of;     // per list entry: its stored row
  std::vector<uint8_t> diagonal;   // per stored row: the hops byte of its members' diagonal
  std::string hops;                // stored rows, n bytes each, row r at [r * n, (r + 1) * n)
  std::string rate_index;          // the same layout
  std::vector<double> rates_gbps;  // the palette, as MatrixCompact's

  size_t num_rows() const { return diagonal.size(); }
  // Appends a stored row of n zero bytes in `hops` and `rate_index` whose members' diagonal
  // is `diagonal_hops`; returns its index r (the row's bytes start at r * n).
  int32_t AddRow(uint8_t diagonal_hops);
  // Writes row i of the n x n matrix (n bytes each) to `hops_out` and `rate_out`.
  void CopyRow(size_t i, char* hops_out, char* rate_out) const;
  // Bytes held (for caches that bound their memory).
  size_t bytes() const { return hops.size() + rate_index.size() + row_of.size() * 4; }
};

// What the daemon serves for host pairs, whichever way routes are known: the cost of a
// pair, a row-major matrix over a host list, and the path (hop list) behind a cost.
// Implemented by HostCosts (widest-shortest paths in the fabric graph) and LftHostCosts
// (walks of the switches' forwarding tables, lft_host_costs.h).
class PairCosts : public HostCostMatrix {
 public:
  enum class RouteKind { kShortestPath, kForwardingTables };

  double AlphaNs(int a, int b) const override { return Cost(a, b).alpha_ns; }
  double BetaNs(int a, int b) const override { return Cost(a, b).beta_ns_per_byte; }

  // Host indices into Fabric::hosts. An index out of range yields the unreachable cost
  // (hops -1, infinite alpha and beta).
  virtual HostPairCost Cost(int a, int b) const = 0;
  // Row-major n x n (entry i*n+j is Cost(hosts[i], hosts[j])); `out` is resized.
  virtual void Matrix(const std::vector<int>& hosts, std::vector<HostPairCost>* out) const = 0;
  // The path Cost(a, b) describes. a == b: empty hop list, zero cost. kInvalidArgument for
  // an index out of range; kNotFound when there is no path/route.
  virtual absl::StatusOr<HostPath> Path(int a, int b) const = 0;
  virtual RouteKind route_kind() const = 0;
  // The latency model every cost is made with (MakePairCost).
  virtual const CostModelOptions& cost_model() const = 0;

  // The same matrix as Matrix(hosts) in the compact form of toporr.proto's CompactCosts,
  // written straight into byte buffers (no per-pair HostPairCost): `hops` and `rate_index`
  // are resized to n*n bytes, row-major, and `rates_gbps` receives the distinct bottleneck
  // rates in first-seen order. Entry k = i*n+j decodes (DecodeCompactPair) to exactly
  // Matrix(hosts)[k]:
  //   hops[k] == kCompactUnreachable (255): hops -1 (unreachable; also every pair with an
  //     index out of range, the diagonal included); rate_index[k] == 0.
  //   i == j (a valid host): both bytes 0; the all-zero cost.
  //   otherwise: hops[k] switches, bottleneck rates_gbps[rate_index[k]], latency from
  //     cost_model().
  // Errors (the buffers are then unspecified): kInvalidArgument when a host index appears
  // twice (Matrix gives such pairs the zero cost, which the form cannot say);
  // kOutOfRange when a path has more than kCompactMaxHops switches or the pairs have more
  // than kCompactMaxRates distinct rates: send Matrix() instead.
  // MatrixCompactRows expanded row by row (CompactRowSet::CopyRow).
  absl::Status MatrixCompact(const std::vector<int>& hosts, std::string* hops,
                             std::string* rate_index, std::vector<double>* rates_gbps) const;

  // The matrix MatrixCompact gives, with the rows that are equal off the diagonal stored
  // once (hosts on one leaf switch have one row): O(distinct rows * n) bytes instead of
  // n*n, so that one row of a 10,000-host list is a copy. Same palette, same errors.
  virtual absl::Status MatrixCompactRows(const std::vector<int>& hosts,
                                         CompactRowSet* out) const = 0;
};

inline constexpr uint8_t kCompactUnreachable = 255;
inline constexpr int kCompactMaxHops = 254;
inline constexpr int kCompactMaxRates = 255;

// Distinct bottleneck rates of a compact matrix in first-seen order, for MatrixCompact
// implementations. Not thread-safe (one per call).
class CompactRates {
 public:
  // Clears `rates`, which must outlive this object.
  explicit CompactRates(std::vector<double>* rates) : rates_(rates) { rates_->clear(); }
  // Index of `gbps` in the palette, added when new; -1 when kCompactMaxRates distinct rates
  // are already taken.
  int Index(double gbps) {
    if (last_ >= 0 && (*rates_)[last_] == gbps) return last_;
    for (size_t r = 0; r < rates_->size(); ++r) {
      if ((*rates_)[r] == gbps) return last_ = static_cast<int>(r);
    }
    if (static_cast<int>(rates_->size()) >= kCompactMaxRates) return -1;
    rates_->push_back(gbps);
    return last_ = static_cast<int>(rates_->size()) - 1;
  }

 private:
  std::vector<double>* rates_;
  int last_ = -1;
};

// The kOutOfRange MatrixCompact returns for a path of `hops` switches or a full palette.
absl::Status CompactTooManyHops(int32_t hops);
absl::Status CompactTooManyRates();

// The HostPairCost of a route with `switches` switches and bottleneck `gbps` under `model`
// (hops < 0: unreachable). The one place the latency model is applied.
HostPairCost MakePairCost(int32_t switches, double gbps, const CostModelOptions& model);

// The HostPairCost that compact entry (hops_byte, rate) stands for off the diagonal
// (`gbps_of_rate` = rates_gbps[rate_index]; ignored when unreachable).
inline HostPairCost DecodeCompactPair(uint8_t hops_byte, double gbps_of_rate,
                                      const CostModelOptions& model) {
  return hops_byte == kCompactUnreachable ? MakePairCost(-1, 0, model)
                                          : MakePairCost(hops_byte, gbps_of_rate, model);
}

// A HostCostMatrix over ALL hosts of the fabric (num_hosts() == fabric.hosts.size()).
//
// Create copies what it needs (the Fabric may be freed) and precomputes, for every pair of
// switches that have host ports, the switch count and widest bottleneck: one widest-shortest
// search per such switch, O(A * (S + L)) time and O(A^2) memory for A attachment switches, S
// switches and L inter-switch links. A pair query is then a table lookup per port pair.
// Immutable afterwards; all const methods are safe to call from several threads.
class HostCosts final : public PairCosts {
 public:
  // kInvalidArgument when the fabric is inconsistent (see HostGraph::Build).
  static absl::StatusOr<std::unique_ptr<HostCosts>> Create(const fabric::Fabric& fabric,
                                                           CostModelOptions options = {});

  int num_hosts() const override { return graph_.num_hosts(); }

  // Host indices into Fabric::hosts. An index out of range yields the unreachable cost.
  HostPairCost Cost(int a, int b) const override;

  // Row-major n x n (entry i*n+j is Cost(hosts[i], hosts[j])) over an explicit host list;
  // `out` is resized.
  void Matrix(const std::vector<int>& hosts, std::vector<HostPairCost>* out) const override;

  // The path Cost(a, b) describes, with the ports it enters and leaves each node by; the same
  // path FabricRoutes reports. a == b gives an empty hop list and zero cost.
  // kInvalidArgument for an index out of range; kNotFound ("no path") when disconnected.
  absl::StatusOr<HostPath> Path(int a, int b) const override;
  RouteKind route_kind() const override { return RouteKind::kShortestPath; }
  const CostModelOptions& cost_model() const override { return options_; }

  // One Choose per pair of host classes (hosts that hang off the same switch ports), then
  // a byte gather for one stored row per class: for 1,000 hosts on a few dozen leaves, a
  // few dozen rows and no per-pair work.
  absl::Status MatrixCompactRows(const std::vector<int>& hosts, CompactRowSet* out) const override;

  const CostModelOptions& options() const { return options_; }

 private:
  HostCosts(HostGraph graph, CostModelOptions options);
  HostPairCost FromChoice(const HostGraph::PairChoice& c) const;
  // Host classes of Matrix: cls[i] per list entry, rep[c] a representative host per class
  // (-1 for an index out of range, which is a class of its own).
  void Classes(const std::vector<int>& hosts, std::vector<int32_t>* cls,
               std::vector<int>* rep) const;
  HostGraph::PairChoice ChooseRep(int a, int b) const;

  HostGraph graph_;
  CostModelOptions options_;
  // Attachment-switch tables, row-major A x A: switch-to-switch links (-1 unreachable) and
  // widest bottleneck rank.
  std::vector<int32_t> att_hops_;
  std::vector<uint16_t> att_wide_;
};

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_COSTS_HOST_COSTS_H_
