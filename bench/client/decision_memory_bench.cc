// The memory of one process's part in a decision at 16,384 hosts (DESIGN.md § Client: the
// matrix is never held per rank; beyond a few thousand hosts the costs travel and are kept in
// leaf-group form, host -> leaf group plus group x group costs). The scale goal: <= 8 MB per
// process.
//
//   decision_memory_bench [HOSTS]          (default 16384; one rank per host)
//
// 16,384 processes cannot run here, so the one process measured plays one role of the job and
// the others are stood in for: client/mpi/leaf_groups.h CompressRows runs unchanged over a
// LeaderExchange whose collectives fill their receive buffers with what the other leaders
// would send (each other host's key and group-row hash computed from that host's row, the
// group rows of the representatives), so every buffer the real protocol allocates in this
// process is allocated here, at its real size. What is measured, per role, as heap bytes
// (every operator new/delete of the process counted, by malloc_usable_size; the stand-in's
// own work is not counted):
//   places     what Decide keeps of step 2 for the whole decision: the ranks' locations
//              (decision_steps.h RankPlaces) and the JobLayout made from their host names
//              (the names per rank are freed once the layout is made);
//   row        the leader's own cost row as the source returns it (2 n floats);
//   compress   the peak above that during CompressRows (keys, hashes, groups, group rows,
//              the gather buffer, and on rank 0 the HierarchicalCostMatrix it returns);
//   matrix     what rank 0 keeps of it for planning (the HierarchicalCostMatrix);
//   plan       the peak above that during rank 0's Plan (1 MiB allreduce, algorithm chosen
//              among all; client/plan/plan.h) with the placement it plans;
//   peak       the process's highest heap total during the decision, over all of the above.
// Roles: rank 0 (leader, representative of its group, root of the gathers, the planner),
// another leader (rank 1's host's leader when hosts have one rank each), a rank that is not
// a leader (hosts of 2 ranks). Not counted: the transient buffers of the MPI library's own
// collectives, gRPC's buffers while the row arrives, and the step 2 allgather's buffer
// (ranks x 64 bytes while it runs, freed before step 3), which the output names.
// The fabric: mapping::FatTreeCostMatrix (leaves of 32 hosts, pods of 16 leaves), rows as the
// daemon serves them (latency_ns, then Gb/s). Output: one JSON line per role, bytes.
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "bench/measure.h"
#include "client/costs/row_source.h"
#include "client/mpi/decision_steps.h"
#include "client/mpi/leaf_groups.h"
#include "client/plan/job_layout.h"
#include "client/plan/plan.h"
#include "mapping/costs/hierarchical_cost_matrix.h"

namespace {

std::atomic<int64_t> live_bytes{0}, peak_bytes{0};
std::atomic<bool> counting{true};  // false while the stand-in computes others' contributions

void Count(void* p, bool add) {
  if (p == nullptr) return;
  const int64_t n = static_cast<int64_t>(malloc_usable_size(p));
  const int64_t now = live_bytes += add ? n : -n;
  if (add && counting.load(std::memory_order_relaxed)) {
    int64_t peak = peak_bytes.load(std::memory_order_relaxed);
    while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
    }
  }
}

void* Allocate(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  Count(p, true);
  return p;
}

void Release(void* p) {
  Count(p, false);
  std::free(p);
}

}  // namespace

void* operator new(size_t n) { return Allocate(n); }
void* operator new[](size_t n) { return Allocate(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  void* p = std::malloc(n == 0 ? 1 : n);
  Count(p, true);
  return p;
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { Release(p); }
void operator delete[](void* p) noexcept { Release(p); }
void operator delete(void* p, size_t) noexcept { Release(p); }
void operator delete[](void* p, size_t) noexcept { Release(p); }

namespace toporr::bench {
namespace {

using client::CostRow;
using client::JobLayout;
using client::mpi::LeaderExchange;

int64_t Live() { return live_bytes.load(); }
// Starts a peak measurement at the current total.
void ResetPeak() { peak_bytes.store(live_bytes.load()); }
int64_t Peak() { return peak_bytes.load(); }

// Host h's row as the daemon serves it (latency_ns[0..n) then bottleneck_gbps[0..n)).
void FillRow(const mapping::HostCostMatrix& fabric, int h, std::vector<float>* values) {
  const int n = fabric.num_hosts();
  values->resize(2 * static_cast<size_t>(n));
  for (int b = 0; b < n; ++b) {
    (*values)[b] = h == b ? 0.0f : static_cast<float>(fabric.AlphaNs(h, b));
    const double beta = fabric.BetaNs(h, b);
    (*values)[n + b] = h == b || beta <= 0 ? 0.0f : static_cast<float>(8.0 / beta);
  }
}

// The other leaders of a job with one leader per host (leader l on host l), computed from the
// fabric: their keys, their group rows' hashes, the representatives' group rows. Its own work
// is not counted; what it writes goes to the buffers CompressRows allocated.
class StandInExchange final : public LeaderExchange {
 public:
  StandInExchange(const mapping::HostCostMatrix& fabric, const JobLayout& layout, int my_leader,
                  bool leader)
      : fabric_(fabric), layout_(layout), me_(my_leader), leader_(leader) {}
  int rank() const override { return leader_ ? me_ : 1; }
  bool leader() const override { return leader_; }
  int num_leaders() const override { return fabric_.num_hosts(); }
  int leader_rank() const override { return me_; }

  int AllgatherLeaders(const uint64_t* mine, int count, uint64_t* all) override {
    counting = false;
    const int n = fabric_.num_hosts();
    CostRow row;
    if (count == 2) {  // step 1: (key, host) of every leader
      for (int l = 0; l < n; ++l) {
        FillRow(fabric_, l, &row.values);
        all[2 * l] = l == me_ ? mine[0] : client::mpi::LeafKey(row, n, l);
        all[2 * l + 1] = l == me_ ? mine[1] : static_cast<uint64_t>(l);
      }
      keyed_.assign(all, all + 2 * static_cast<size_t>(n));
    } else {  // step 4: every leader's group-row hash
      std::vector<int32_t> group_of = GroupOf(&groups_);
      std::vector<float> grow;
      for (int l = 0; l < n; ++l) {
        if (l == me_) {
          all[l] = mine[0];
          continue;
        }
        FillRow(fabric_, l, &row.values);
        (void)client::mpi::GroupRowHash(row, layout_, l, group_of, groups_, &grow, &all[l]);
      }
    }
    counting = true;
    return 0;
  }

  int GathervToLeaderZero(const float* mine, int count, float* all, const int* counts,
                          const int* displs) override {
    if (me_ != 0) return 0;
    counting = false;
    std::vector<int32_t> group_of = GroupOf(&groups_);
    CostRow row;
    std::vector<float> grow;
    uint64_t hash = 0;
    for (int l = 0; l < fabric_.num_hosts(); ++l) {
      if (counts[l] == 0) continue;
      if (l == me_) {
        std::copy(mine, mine + count, all + displs[l]);
        continue;
      }
      FillRow(fabric_, l, &row.values);
      (void)client::mpi::GroupRowHash(row, layout_, l, group_of, groups_, &grow, &hash);
      std::copy(grow.begin(), grow.end(), all + displs[l]);
    }
    counting = true;
    return 0;
  }

  absl::Status Agree(const absl::Status& mine) override { return mine; }

 private:
  // The groups of step 2 from the keys of step 1 (first appearance order, as GroupHosts).
  std::vector<int32_t> GroupOf(int* g) const {
    std::vector<int32_t> group_of(fabric_.num_hosts());
    std::vector<std::pair<uint64_t, int32_t>> seen;
    for (int h = 0; h < fabric_.num_hosts(); ++h) {
      const uint64_t key = keyed_[2 * h];
      int32_t id = -1;
      for (const auto& [k, i] : seen) {
        if (k == key) id = i;
      }
      if (id < 0) {
        id = static_cast<int32_t>(seen.size());
        seen.emplace_back(key, id);
      }
      group_of[h] = id;
    }
    *g = static_cast<int>(seen.size());
    return group_of;
  }

  const mapping::HostCostMatrix& fabric_;
  const JobLayout& layout_;
  int me_;
  bool leader_;
  std::vector<uint64_t> keyed_;
  int groups_ = 0;
};

struct Figures {
  int64_t places = 0, row = 0, compress = 0, matrix = 0, plan = 0, peak = 0;
  int groups = 0;
  std::string status = "ok";
};

// One role's part of a decision. `leader`: host `host`'s leader; `root`: rank 0.
Figures Role(const mapping::HostCostMatrix& fabric, int ranks_per_host, int host, bool leader) {
  const int n = fabric.num_hosts();
  const bool root = leader && host == 0;
  Figures f;
  const int64_t base = Live();
  ResetPeak();
  // Step 2's result as Decide keeps it.
  client::mpi::RankPlaces places;
  places.hosts.resize(static_cast<size_t>(n) * ranks_per_host);
  places.bound.resize(places.hosts.size());
  for (size_t r = 0; r < places.hosts.size(); ++r) {
    places.hosts[r] = "node" + std::to_string(r / ranks_per_host);
  }
  const JobLayout layout = client::LayoutFromRankHosts(places.hosts);
  std::vector<std::string>().swap(places.hosts);  // as Decide does once the layout is made
  f.places = Live() - base;
  // Steps 4 and 5.
  CostRow row;
  if (leader) {
    counting = false;
    std::vector<float> values;
    FillRow(fabric, host, &values);
    counting = true;
    row.values = values;  // the row as it arrived, counted
  }
  f.row = Live() - base - f.places;
  std::unique_ptr<mapping::HostCostMatrix> matrix;
  const int64_t before_compress = Live();
  ResetPeak();
  StandInExchange exchange(fabric, layout, host, leader);
  absl::Status s = client::mpi::CompressRows(exchange, layout, host, row, &matrix);
  f.compress = Peak() - before_compress;
  int64_t peak = Peak();
  if (!s.ok()) f.status = s.ToString();
  row = CostRow{};
  f.matrix = matrix != nullptr ? Live() - before_compress : 0;
  if (root && matrix != nullptr) {
    // Step 6 on rank 0.
    const int64_t before_plan = Live();
    ResetPeak();
    client::PlanRequest request;
    request.collective = mapping::Collective::kAllreduce;
    request.message_bytes = 1 << 20;
    absl::StatusOr<client::PlanResult> r =
        client::Plan(request, client::JobPlacement(layout, places.bound), *matrix, nullptr, {});
    if (!r.ok()) f.status = r.status().ToString();
    f.plan = Peak() - before_plan;
    peak = std::max(peak, Peak());
  }
  f.peak = std::max(peak, base + f.places + f.row) - base;
  return f;
}

}  // namespace
}  // namespace toporr::bench

int main(int argc, char** argv) {
  using namespace toporr;
  const int hosts = argc > 1 ? std::atoi(argv[1]) : 16384;
  mapping::FatTreeShape shape;
  shape.num_hosts = hosts;
  shape.core_gbps = 50;
  absl::StatusOr<std::unique_ptr<mapping::HierarchicalCostMatrix>> fabric =
      mapping::FatTreeCostMatrix(shape);
  if (!fabric.ok()) {
    std::fprintf(stderr, "%s\n", fabric.status().ToString().c_str());
    return 1;
  }
  struct {
    const char* name;
    int ranks_per_host, host;
    bool leader;
  } roles[] = {{"rank0_leader_planner", 1, 0, true},
               {"other_leader", 1, 1, true},
               {"non_leader_2_ranks_per_host", 2, 0, false}};
  for (const auto& role : roles) {
    const double rss_before = bench::CurrentRssMb();
    bench::Figures f = bench::Role(**fabric, role.ranks_per_host, role.host, role.leader);
    std::printf(
        "{\"hosts\":%d,\"role\":\"%s\",\"ranks\":%d,\"status\":\"%s\",\"places_bytes\":%lld,"
        "\"row_bytes\":%lld,\"compress_peak_bytes\":%lld,\"matrix_bytes\":%lld,"
        "\"plan_peak_bytes\":%lld,\"peak_bytes\":%lld,\"peak_mb\":%.2f,"
        "\"places_allgather_transient_bytes\":%lld,\"rss_now_minus_before_mb\":%.1f,"
        "\"process_peak_rss_mb\":%.1f}\n",
        hosts, role.name, hosts * role.ranks_per_host, f.status.c_str(),
        static_cast<long long>(f.places), static_cast<long long>(f.row),
        static_cast<long long>(f.compress), static_cast<long long>(f.matrix),
        static_cast<long long>(f.plan), static_cast<long long>(f.peak), f.peak / 1048576.0,
        static_cast<long long>(64LL * hosts * role.ranks_per_host),
        bench::CurrentRssMb() - rss_before, bench::PeakRssMb());
    std::fflush(stdout);
  }
  return 0;
}
