#include "client/mpi/leaf_groups.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/mpi/collective_status.h"
#include "common/fnv.h"
#include "common/status_macros.h"
#include "mapping/costs/hierarchical_cost_matrix.h"

namespace toporr::client::mpi {
namespace {

constexpr uint64_t kHashSeed = kFnv64Offset;
uint64_t Mix(uint64_t h, uint64_t v) { return Fnv64aWord(h, v); }
uint64_t Bits(float f) {
  uint32_t b = 0;
  std::memcpy(&b, &f, sizeof(b));
  return b;
}

// The group of every host: hosts with one key, numbered by first appearance over the host
// list. `keyed`: (key, host) per leader.
std::vector<int32_t> GroupHosts(const std::vector<uint64_t>& keyed, int n, int* num_groups) {
  std::vector<uint64_t> host_key(n, 0);
  std::vector<char> seen(n, 0);
  for (size_t l = 0; 2 * l < keyed.size(); ++l) {
    const int h = static_cast<int>(keyed[2 * l + 1]);
    if (!seen[h]) host_key[h] = keyed[2 * l];
    seen[h] = 1;
  }
  std::unordered_map<uint64_t, int32_t> ids;
  std::vector<int32_t> group_of(n);
  for (int h = 0; h < n; ++h) {
    group_of[h] = ids.emplace(host_key[h], static_cast<int32_t>(ids.size())).first->second;
  }
  *num_groups = static_cast<int>(ids.size());
  return group_of;
}

// This leader's group row: [lat to each group | Gb/s to each group | intra lat | intra
// Gb/s], -1 where no host exists (the intra entry of a one-host group).
// kFailedPrecondition when the row's costs to the hosts of one group differ; *grow is then
// filled up to the first such host.
absl::Status GroupRow(const CostRow& row, const JobLayout& layout, int my_host,
                      const std::vector<int32_t>& group_of, int g, std::vector<float>* grow) {
  const int n = static_cast<int>(layout.hosts.size());
  const int own = group_of[my_host];
  grow->assign(2 * static_cast<size_t>(g) + 2, -1.0f);
  const float* lat = row.values.data();
  const float* gbps = lat + n;
  for (int j = 0; j < n; ++j) {
    if (j == my_host) continue;
    const int G = group_of[j];
    float* l = G == own ? &(*grow)[2 * g] : &(*grow)[G];
    float* b = G == own ? &(*grow)[2 * g + 1] : &(*grow)[g + G];
    if (*l < 0) {
      *l = lat[j];
      *b = gbps[j];
    } else if (*l != lat[j] || *b != gbps[j]) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the costs of ", layout.hosts[my_host], " to the hosts grouped with ", layout.hosts[j],
          " differ: the fabric is not leaf-grouped (raise TOPORR_COMPRESS_ABOVE)"));
    }
  }
  return absl::OkStatus();
}

// Every leader of a group must have the same group row (the hosts of a leaf are alike):
// *rep_of_group, the first leader of each group, or kFailedPrecondition naming two hosts of a
// group whose rows (`hashes`, per leader) differ.
absl::Status Representatives(const std::vector<uint64_t>& keyed,
                             const std::vector<uint64_t>& hashes,
                             const std::vector<int32_t>& group_of, const JobLayout& layout,
                             std::vector<int>* rep_of_group) {
  for (size_t l = 0; l < hashes.size(); ++l) {
    const int G = group_of[static_cast<int>(keyed[2 * l + 1])];
    int& rep = (*rep_of_group)[G];
    if (rep < 0) {
      rep = static_cast<int>(l);
    } else if (hashes[l] != hashes[rep]) {
      return absl::FailedPreconditionError(absl::StrCat(
          "hosts ", layout.hosts[keyed[2 * rep + 1]], " and ", layout.hosts[keyed[2 * l + 1]],
          " look alike but see the fabric differently"));
    }
  }
  return absl::OkStatus();
}

// The g x g matrices from the representatives' group rows (`*all`, the row of group G at
// displs[rep_of_group[G]]), which are freed once read, before the matrix is built.
// kFailedPrecondition when two groups' hosts are connected differently inside their groups.
absl::StatusOr<std::unique_ptr<mapping::HostCostMatrix>> GroupMatrix(
    std::vector<float>* all, const std::vector<int>& displs, const std::vector<int>& rep_of_group,
    std::vector<int32_t> group_of) {
  const float* rows = all->data();
  const int g = static_cast<int>(rep_of_group.size());
  mapping::HierarchicalCostMatrix::Options o;
  o.host_group = std::move(group_of);
  o.num_groups = g;
  o.group_alpha_ns.assign(static_cast<size_t>(g) * g, 0.0);
  o.group_beta_ns.assign(static_cast<size_t>(g) * g, 0.0);
  float intra_lat = -1, intra_gbps = -1;
  for (int G = 0; G < g; ++G) {
    const float* r = rows + displs[rep_of_group[G]];
    for (int H = 0; H < g; ++H) {
      if (H == G) continue;
      o.group_alpha_ns[static_cast<size_t>(G) * g + H] = r[H];
      o.group_beta_ns[static_cast<size_t>(G) * g + H] = r[g + H] > 0 ? 8.0 / r[g + H] : 0.0;
    }
    if (r[2 * g] < 0) continue;  // a one-host group
    if (intra_lat < 0) {
      intra_lat = r[2 * g];
      intra_gbps = r[2 * g + 1];
    } else if (intra_lat != r[2 * g] || intra_gbps != r[2 * g + 1]) {
      return absl::FailedPreconditionError(
          "hosts inside different leaf groups are connected differently (raise "
          "TOPORR_COMPRESS_ABOVE)");
    }
  }
  std::vector<float>().swap(*all);
  o.intra_group_alpha_ns = std::max(0.0f, intra_lat);
  o.intra_group_beta_ns = intra_gbps > 0 ? 8.0 / intra_gbps : 0.0;
  ASSIGN_OR_RETURN(std::unique_ptr<mapping::HierarchicalCostMatrix> m,
                   mapping::HierarchicalCostMatrix::Create(std::move(o)));
  return std::unique_ptr<mapping::HostCostMatrix>(std::move(m));
}

}  // namespace

uint64_t LeafKey(const CostRow& row, int n, int my_host) {
  const float* lat = row.values.data();
  const float* gbps = lat + n;
  float nearest = std::numeric_limits<float>::infinity();
  for (int j = 0; j < n; ++j) {
    if (j != my_host) nearest = std::min(nearest, lat[j]);
  }
  uint64_t key = kHashSeed;
  for (int j = 0; j < n; ++j) {
    const bool masked = j == my_host || lat[j] == nearest;
    key = Mix(Mix(key, masked ? ~0ull : Bits(lat[j])), masked ? ~0ull : Bits(gbps[j]));
  }
  return key;
}

absl::Status GroupRowHash(const CostRow& row, const JobLayout& layout, int my_host,
                          const std::vector<int32_t>& group_of, int num_groups,
                          std::vector<float>* group_row, uint64_t* hash) {
  absl::Status s = GroupRow(row, layout, my_host, group_of, num_groups, group_row);
  uint64_t h = kHashSeed;
  for (float v : *group_row) h = Mix(h, Bits(v));
  *hash = h;
  return s;
}

MpiLeaderExchange::MpiLeaderExchange(MPI_Comm work, MPI_Comm leaders)
    : work_(work), leaders_(leaders) {
  PMPI_Comm_rank(work, &rank_);
  if (leaders != MPI_COMM_NULL) {
    PMPI_Comm_size(leaders, &num_leaders_);
    PMPI_Comm_rank(leaders, &leader_rank_);
  }
}

int MpiLeaderExchange::AllgatherLeaders(const uint64_t* mine, int count, uint64_t* all) {
  return PMPI_Allgather(mine, count, MPI_UINT64_T, all, count, MPI_UINT64_T, leaders_);
}

int MpiLeaderExchange::GathervToLeaderZero(const float* mine, int count, float* all,
                                           const int* counts, const int* displs) {
  return PMPI_Gatherv(mine, count, MPI_FLOAT, all, counts, displs, MPI_FLOAT, 0, leaders_);
}

absl::Status MpiLeaderExchange::Agree(const absl::Status& mine) {
  return toporr::client::mpi::Agree(work_, mine);
}

absl::Status CompressRows(MPI_Comm work, MPI_Comm leaders, const JobLayout& layout, int my_host,
                          const CostRow& row, std::unique_ptr<mapping::HostCostMatrix>* out) {
  MpiLeaderExchange exchange(work, leaders);
  return CompressRows(exchange, layout, my_host, row, out);
}

absl::Status CompressRows(LeaderExchange& x, const JobLayout& layout, int my_host,
                          const CostRow& row, std::unique_ptr<mapping::HostCostMatrix>* out) {
  const int rank = x.rank();
  const bool leader = x.leader();
  const int n = static_cast<int>(layout.hosts.size());

  // 1. Every leader learns every leader's key: n entries.
  int num_leaders = 0;
  std::vector<uint64_t> keyed;  // (key, host) per leader
  int rc = MPI_SUCCESS;
  if (leader) {
    const uint64_t mine[2] = {LeafKey(row, n, my_host), static_cast<uint64_t>(my_host)};
    num_leaders = x.num_leaders();
    keyed.resize(2 * static_cast<size_t>(num_leaders));
    rc = x.AllgatherLeaders(mine, 2, keyed.data());
  }
  RETURN_IF_ERROR(x.Agree(MpiStatus("key allgather", rc)));
  if (!leader) {  // the others take part in the two agreements of the leaders' steps
    RETURN_IF_ERROR(x.Agree(absl::OkStatus()));
    return x.Agree(absl::OkStatus());
  }

  // 2. The keys group the hosts.
  int g = 0;
  std::vector<int32_t> group_of = GroupHosts(keyed, n, &g);

  // 3. Each leader checks its row is one value per other group and one inside its own.
  // 4. All leaders of a group have the same group row, compared by hash (every leader takes
  // part, its own check passed or not).
  std::vector<float> grow;
  uint64_t row_hash = 0;
  absl::Status local = GroupRowHash(row, layout, my_host, group_of, g, &grow, &row_hash);
  std::vector<uint64_t> hashes(num_leaders);
  rc = x.AllgatherLeaders(&row_hash, 1, hashes.data());
  if (local.ok()) local = MpiStatus("hash allgather", rc);
  std::vector<int> rep_of_group(g, -1);
  if (local.ok()) local = Representatives(keyed, hashes, group_of, layout, &rep_of_group);
  RETURN_IF_ERROR(x.Agree(local));  // over everyone: the others passed OK above

  // 5. Each group's representative sends its group row to rank 0 (leader 0).
  const int my_leader = x.leader_rank();
  const bool rep = rep_of_group[group_of[my_host]] == my_leader;
  const int row_len = 2 * g + 2;
  std::vector<int> counts(num_leaders, 0), displs(num_leaders, 0);
  for (int G = 0; G < g; ++G) counts[rep_of_group[G]] = row_len;
  for (int l = 0, off = 0; l < num_leaders; ++l) {
    displs[l] = off;
    off += counts[l];
  }
  std::vector<float> all(my_leader == 0 ? static_cast<size_t>(row_len) * g : 0);
  rc = x.GathervToLeaderZero(grow.data(), rep ? row_len : 0, all.data(), counts.data(),
                             displs.data());

  // 6. Rank 0 builds the g x g matrices (what the steps before needed freed first).
  absl::Status built = MpiStatus("group row gather", rc);
  std::vector<uint64_t>().swap(keyed);
  std::vector<uint64_t>().swap(hashes);
  std::vector<float>().swap(grow);
  std::vector<int>().swap(counts);
  if (built.ok() && rank == 0) {
    absl::StatusOr<std::unique_ptr<mapping::HostCostMatrix>> m =
        GroupMatrix(&all, displs, rep_of_group, std::move(group_of));
    if (m.ok()) {
      *out = *std::move(m);
    } else {
      built = m.status();
    }
  }
  return x.Agree(built);
}

}  // namespace toporr::client::mpi
