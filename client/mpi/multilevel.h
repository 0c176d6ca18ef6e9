// The multi-level (leader based) bcast, reduce, allreduce and gather of mapping/levels/multilevel.h
// run over MPI: one communicator per level that has a stage (MPI_Comm_split of toporr's
// private communicator by the level's group, members in the plan's order so that the
// group's leader is rank 0 of it), each stage running the algorithm the plan chose for its
// group (coll/). Built once per decision and cached with it on the caller's
// communicator (library.h), freed with it.
//
// Contract as coll/steps.h: the caller's arguments of MPI_Bcast / MPI_Reduce /
// MPI_Allreduce / MPI_Gather on the communicator the plan was made for (the root is the
// plan's), any count including 0 and counts that do not divide, MPI_IN_PLACE, predefined and
// derived datatypes, commutative ops (partial results are combined in tree order; callers
// send non-commutative ops to the MPI library). Gather keeps the blocks in the caller's rank
// order: each leader receives a member's blocks contiguously (sendtype at inner leaders, whose
// recvtype MPI leaves undefined) and the root receives them straight into their places
// (an indexed datatype over their ranks). MPI error codes; every call is collective.
// Not thread-safe: one thread calls a communicator's collectives at a time, as MPI requires.
#ifndef TOPORR_CLIENT_MPI_MULTILEVEL_H_
#define TOPORR_CLIENT_MPI_MULTILEVEL_H_

#include <mpi.h>

#include <memory>
#include <vector>

#include "mapping/levels/multilevel.h"

namespace toporr::client::mpi {

class Multilevel {
 public:
  // Collective over `comm` (toporr's private communicator, in the order the plan's ranks
  // are numbered in). On any rank's failure every rank gets the same MPI error code and
  // nothing is kept. `radix`: k-nomial stages.
  static int Create(MPI_Comm comm, mapping::MultilevelPlan plan, int radix,
                    std::unique_ptr<Multilevel>* out);
  ~Multilevel();
  Multilevel(const Multilevel&) = delete;
  Multilevel& operator=(const Multilevel&) = delete;

  const mapping::MultilevelPlan& plan() const { return plan_; }

  int Bcast(void* buffer, int count, MPI_Datatype type) const;
  int Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op) const;
  int Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op) const;
  int Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype) const;

 private:
  // This rank's part of one stage of the plan.
  struct MyStage {
    MPI_Comm comm = MPI_COMM_NULL;  // the level's communicator; null: not a member
    int index = -1;                 // member index (0: the leader)
    mapping::Collective collective = mapping::Collective::kBcast;
    mapping::Algorithm algorithm = mapping::Algorithm::kBinomial;
    // Gather: the leader's view: the ranks whose blocks each member sends, member order
    // (entry 0 = the leader's own); a member's view: how many blocks it sends.
    std::vector<std::vector<int32_t>> member_blocks;
    int64_t my_blocks = 1;
  };

  Multilevel(mapping::MultilevelPlan plan, int radix) : plan_(std::move(plan)), radix_(radix) {}
  int RunBcast(const MyStage& s, void* buffer, int count, MPI_Datatype type) const;
  int ReduceUp(const void* sendbuf, void* acc, bool acc_holds_input, int count, MPI_Datatype type,
               MPI_Op op, bool stop_below_top, bool* done) const;

  mapping::MultilevelPlan plan_;
  int radix_;
  int rank_ = 0;
  std::vector<MPI_Comm> level_comms_;  // per level; MPI_COMM_NULL where not a member
  std::vector<MyStage> stages_;        // per plan stage
  int64_t max_blocks_ = 1;             // gather: most blocks this rank holds
};

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_MULTILEVEL_H_
