#include "client/mpi/multilevel.h"

#include <utility>

#include "client/mpi/coll/allreduce.h"
#include "client/mpi/coll/bcast.h"
#include "client/mpi/coll/reduce.h"
#include "client/mpi/coll/steps.h"

namespace toporr::client::mpi {
namespace {

using mapping::Algorithm;
using mapping::Collective;

constexpr int kTag = 0x7C02;  // on toporr's own communicators only

// Room for `n` elements of `type` (true extent; the pointer shifted by the true lower bound
// as MPI expects of a buffer argument). Empty for n == 0.
class TypedBuffer {
 public:
  TypedBuffer(MPI_Datatype type, int64_t n) {
    MPI_Aint lb = 0, true_lb = 0, true_extent = 0;
    PMPI_Type_get_extent(type, &lb, &extent_);
    PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
    storage_.resize(n > 0 ? static_cast<size_t>(true_extent + (n - 1) * extent_) : 1);
    base_ = storage_.data() - true_lb;
  }
  char* At(int64_t i) { return base_ + i * extent_; }

 private:
  MPI_Aint extent_ = 0;
  std::vector<char> storage_;
  char* base_;
};

int LocalCopy(const void* src, int src_count, MPI_Datatype src_type, void* dst, int dst_count,
              MPI_Datatype dst_type) {
  if (src == dst || (src_count == 0 && dst_count == 0)) return MPI_SUCCESS;
  return PMPI_Sendrecv(src, src_count, src_type, 0, kTag, dst, dst_count, dst_type, 0, kTag,
                       MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

}  // namespace

int Multilevel::Create(MPI_Comm comm, mapping::MultilevelPlan plan, int radix,
                       std::unique_ptr<Multilevel>* out) {
  std::unique_ptr<Multilevel> m(new Multilevel(std::move(plan), radix));
  const mapping::MultilevelPlan& p = m->plan_;
  int size = 0;
  PMPI_Comm_rank(comm, &m->rank_);
  PMPI_Comm_size(comm, &size);
  const int me = m->rank_;
  const int num_levels = p.ranks.num_levels();
  std::vector<int> color(num_levels, MPI_UNDEFINED), key(num_levels, 0);
  std::vector<bool> used(num_levels, false);
  m->stages_.resize(p.stages.size());
  // Gather: the ranks whose blocks each rank holds, in the order it holds them.
  std::vector<std::vector<int32_t>> held(p.ranks.num_ranks);
  for (int r = 0; r < p.ranks.num_ranks; ++r) held[r] = {r};
  for (size_t i = 0; i < p.stages.size(); ++i) {
    const mapping::Stage& stage = p.stages[i];
    MyStage& mine = m->stages_[i];
    mine.collective = stage.collective;
    used[stage.level] = true;
    for (size_t g = 0; g < stage.groups.size(); ++g) {
      const std::vector<int32_t>& members = stage.groups[g].members;
      for (size_t j = 0; j < members.size(); ++j) {
        if (members[j] != me) continue;
        color[stage.level] = static_cast<int>(g);
        key[stage.level] = static_cast<int>(j);
        mine.index = static_cast<int>(j);
        mine.algorithm = stage.groups[g].algorithm;
        if (stage.collective == Collective::kGather) {
          if (j == 0) {
            for (int32_t x : members) mine.member_blocks.push_back(held[x]);
          } else {
            mine.my_blocks = static_cast<int64_t>(held[me].size());
          }
        }
      }
      if (stage.collective == Collective::kGather) {
        std::vector<int32_t>& leader = held[members[0]];
        for (size_t j = 1; j < members.size(); ++j) {
          leader.insert(leader.end(), held[members[j]].begin(), held[members[j]].end());
          held[members[j]].clear();
        }
        if (members[0] == me) m->max_blocks_ = static_cast<int64_t>(leader.size());
      }
    }
  }
  // Every rank makes the same splits in the same order; failures are agreed on after.
  int ok = size == p.ranks.num_ranks;
  m->level_comms_.assign(num_levels, MPI_COMM_NULL);
  for (int k = 0; k < num_levels; ++k) {
    if (!used[k]) continue;
    if (PMPI_Comm_split(comm, color[k], key[k], &m->level_comms_[k]) != MPI_SUCCESS) ok = 0;
  }
  int all = 0;
  if (int rc = PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm); rc != MPI_SUCCESS) return rc;
  if (!all) return MPI_ERR_OTHER;  // the destructor frees what was made
  for (size_t i = 0; i < p.stages.size(); ++i) {
    if (m->stages_[i].index >= 0) m->stages_[i].comm = m->level_comms_[p.stages[i].level];
  }
  *out = std::move(m);
  return MPI_SUCCESS;
}

Multilevel::~Multilevel() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (finalized) return;
  for (MPI_Comm& c : level_comms_) {
    if (c != MPI_COMM_NULL) PMPI_Comm_free(&c);
  }
}

int Multilevel::RunBcast(const MyStage& s, void* buffer, int count, MPI_Datatype type) const {
  switch (s.algorithm) {
    case Algorithm::kBinaryTree:
      return coll::BcastBinaryTree(buffer, count, type, 0, s.comm);
    case Algorithm::kKnomial:
      return coll::BcastKnomial(buffer, count, type, 0, s.comm, radix_);
    case Algorithm::kScatterAllgather:
      return coll::BcastScatterAllgather(buffer, count, type, 0, s.comm);
    case Algorithm::kScatterAllgatherRing:
      return coll::BcastScatterAllgatherRing(buffer, count, type, 0, s.comm);
    default:
      return coll::BcastBinomial(buffer, count, type, 0, s.comm);
  }
}

int Multilevel::Bcast(void* buffer, int count, MPI_Datatype type) const {
  for (const MyStage& s : stages_) {
    if (s.comm != MPI_COMM_NULL) RETURN_IF_MPI_ERROR(RunBcast(s, buffer, count, type));
  }
  return MPI_SUCCESS;
}

int Multilevel::Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                       MPI_Op op) const {
  const bool root = rank_ == plan_.root;
  const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  // The partial result of a leader: the root's recvbuf, scratch on other leaders.
  bool leads = false;
  for (const MyStage& s : stages_) leads |= s.comm != MPI_COMM_NULL && s.index == 0;
  TypedBuffer scratch(type, leads && !root ? count : 0);
  void* acc = root ? recvbuf : scratch.At(0);
  bool holds = false;  // acc holds this rank's partial result
  for (const MyStage& s : stages_) {
    if (s.comm == MPI_COMM_NULL) continue;
    if (s.index != 0) {
      return coll::ReduceBinomial(holds ? acc : in, nullptr, count, type, op, 0, s.comm);
    }
    RETURN_IF_MPI_ERROR(
        coll::ReduceBinomial(holds ? MPI_IN_PLACE : in, acc, count, type, op, 0, s.comm));
    holds = true;
  }
  if (root && !holds) return LocalCopy(in, count, type, recvbuf, count, type);
  return MPI_SUCCESS;
}

int Multilevel::Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op) const {
  if (sendbuf != MPI_IN_PLACE)
    RETURN_IF_MPI_ERROR(LocalCopy(sendbuf, count, type, recvbuf, count, type));
  for (const MyStage& s : stages_) {
    if (s.comm == MPI_COMM_NULL) continue;
    switch (s.collective) {
      case Collective::kReduce:
        RETURN_IF_MPI_ERROR(coll::ReduceBinomial(s.index == 0 ? MPI_IN_PLACE : recvbuf,
                                                 s.index == 0 ? recvbuf : nullptr, count, type, op,
                                                 0, s.comm));
        break;
      case Collective::kAllreduce:
        if (s.algorithm == Algorithm::kRing) {
          RETURN_IF_MPI_ERROR(coll::AllreduceRing(MPI_IN_PLACE, recvbuf, count, type, op, s.comm));
        } else if (s.algorithm == Algorithm::kRabenseifner) {
          RETURN_IF_MPI_ERROR(
              coll::AllreduceRabenseifner(MPI_IN_PLACE, recvbuf, count, type, op, s.comm));
        } else {
          RETURN_IF_MPI_ERROR(
              coll::AllreduceRecursiveDoubling(MPI_IN_PLACE, recvbuf, count, type, op, s.comm));
        }
        break;
      default:
        RETURN_IF_MPI_ERROR(RunBcast(s, recvbuf, count, type));
    }
  }
  return MPI_SUCCESS;
}

int Multilevel::Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype) const {
  const bool root = rank_ == plan_.root;
  MPI_Datatype block = MPI_DATATYPE_NULL;  // the root's unit: one rank's block
  TypedBuffer held(sendtype, root ? 0 : max_blocks_ * sendcount);
  if (root) {
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(recvtype, &lb, &extent);
    if (sendbuf != MPI_IN_PLACE) {
      RETURN_IF_MPI_ERROR(LocalCopy(sendbuf, sendcount, sendtype,
                                    static_cast<char*>(recvbuf) + rank_ * recvcount * extent,
                                    recvcount, recvtype));
    }
    RETURN_IF_MPI_ERROR(PMPI_Type_contiguous(recvcount, recvtype, &block));
  } else if (max_blocks_ > 1) {
    RETURN_IF_MPI_ERROR(LocalCopy(sendbuf, sendcount, sendtype, held.At(0), sendcount, sendtype));
  }
  int rc = MPI_SUCCESS;
  int64_t have = 1;  // blocks held (non-root)
  for (const MyStage& s : stages_) {
    if (s.comm == MPI_COMM_NULL || rc != MPI_SUCCESS) continue;
    if (s.index != 0) {  // send what this rank holds to the leader; done
      const void* data = max_blocks_ > 1 ? held.At(0) : sendbuf;
      rc = PMPI_Send(data, static_cast<int>(s.my_blocks * sendcount), sendtype, 0, kTag, s.comm);
      break;
    }
    std::vector<MPI_Request> requests;
    for (size_t i = 1; i < s.member_blocks.size() && rc == MPI_SUCCESS; ++i) {
      const std::vector<int32_t>& ranks = s.member_blocks[i];
      MPI_Request req = MPI_REQUEST_NULL;
      if (root) {  // straight into the ranks' places
        MPI_Datatype placed = MPI_DATATYPE_NULL;
        rc = PMPI_Type_create_indexed_block(static_cast<int>(ranks.size()), 1, ranks.data(), block,
                                            &placed);
        if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&placed);
        if (rc == MPI_SUCCESS) {
          rc = PMPI_Irecv(recvbuf, 1, placed, static_cast<int>(i), kTag, s.comm, &req);
        }
        if (placed != MPI_DATATYPE_NULL) PMPI_Type_free(&placed);  // freed when req completes
      } else {                                                     // appended to the held blocks
        rc = PMPI_Irecv(held.At(have * sendcount), static_cast<int>(ranks.size() * sendcount),
                        sendtype, static_cast<int>(i), kTag, s.comm, &req);
        have += static_cast<int64_t>(ranks.size());
      }
      if (rc == MPI_SUCCESS) requests.push_back(req);
    }
    const int wait_rc = requests.empty() ? MPI_SUCCESS
                                         : PMPI_Waitall(static_cast<int>(requests.size()),
                                                        requests.data(), MPI_STATUSES_IGNORE);
    if (rc == MPI_SUCCESS) rc = wait_rc;
  }
  if (block != MPI_DATATYPE_NULL) PMPI_Type_free(&block);
  return rc;
}

}  // namespace toporr::client::mpi
