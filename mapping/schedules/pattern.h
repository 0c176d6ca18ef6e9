// Exact communication schedules of Open MPI's collective algorithms (coll/base of the 5.x
// development line), as the predictor and the reordering heuristics consume them.
//
// A schedule is a sequence of synchronous STEPS; the transfers of one step are concurrent
// (they are what a contention model must let collide). Ranks are communicator ranks
// 0..num_ranks-1; trees are built on shifted ranks v = (r - root + p) % p exactly like
// coll_base_topo.c, so any root works. Byte counts follow Open MPI's block splitting
// (COLL_BASE_COMPUTE_BLOCKCOUNT's early/late blocks, ceil(count/p) scatter blocks, segment
// counts from COLL_BASE_COMPUTED_SEGCOUNT), so a transfer of n elements carries
// n * type_size bytes.
//
// Data model (what a transfer carries). Every collective works on a "data space" of
// DataSpaceElements(spec) elements:
//   - allreduce, bcast, reduce: the `count` elements of the user buffer;
//   - allgather, gather: p * count elements, block b (elements [b*count, (b+1)*count)) being
//     rank b's contribution.
// A transfer carries the elements [elem_begin, elem_begin + elem_count) of that space, taken
// CYCLICALLY (Bruck and rooted gathers send ranges that wrap past the end). `combine` says
// what the receiver does: kCopy overwrites its copy of those elements with the sender's,
// kReduce adds the sender's partial result into its own. Within a step every sender sends
// the state it had before the step.
//
// Where Open MPI's timing is not a pure sequence of global steps, the step model is:
//   - segmented tree bcast (generic driver) and segmented reduce: step t carries segment
//     t - d from every node at tree stage d (a pipelined wavefront);
//   - a node's sends to several children in one step are concurrent (isend + waitall);
//     split_binary_tree and the scatter phase use blocking sends, modelled the same way;
//   - gather binomial receives children in mask order: step k carries the subtrees of all
//     ranks with lowest set bit 2^k.
//
// Algorithms Open MPI replaces at run time are replaced here too (EffectiveAlgorithm):
// allreduce ring with count < p -> recursive doubling; segmented ring whose segment does not
// split the message -> ring; split_binary_tree on fewer than 2 elements (or segments larger
// than a half) -> pipeline; scatter_allgather(_ring) with count < p -> linear; allgather
// recursive doubling on a non-power-of-two size -> Bruck (radix 2), which is also available
// directly as kBruck. swing_bandwidth with count < pof2 runs swing (as toporr's own
// Rabenseifner falls back to recursive doubling).
//
// Swing and Bine (not in Open MPI, toporr runs them itself, client/mpi/coll/):
//   - swing: the recursive doubling schedule above (same non-power-of-two fold: even ranks
//     of the first 2*extra send their vector to the odd neighbour and get the result back)
//     with the peer of virtual rank v at step k being SwingPeer(v, k, adj) instead of v ^ 2^k;
//   - swing_bandwidth: the Rabenseifner schedule above (same fold: pairs trade halves, the
//     odd member drops out) with peer SwingPeer(v, k, pof2) and the window a rank keeps
//     chosen by SwingBlockKey(v, pof2) instead of v (one contiguous range per transfer);
//   - bine: the Bine broadcast tree (BineBcastTree) on shifted ranks; the transfers of stage
//     t are the tree edges into the ranks that receive at t, whole message, no segments
//     (toporr's implementation sends to a node's children one after the other in stage
//     order, unlike Open MPI's trees, whose isends to all children are concurrent above).
//
// Scale: schedules are generated on the fly and never materialised; memory is O(p) (trees,
// per-rank counters) plus one step. ForEachStep (compressed) additionally folds runs of
// identical steps into one Step with repeat > 1 — ring and segmented ring become O(p) per
// distinct step shape instead of O(p^2) — see Step. Thread-safe (no shared state).
#ifndef TOPORR_MAPPING_SCHEDULES_PATTERN_H_
#define TOPORR_MAPPING_SCHEDULES_PATTERN_H_

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mapping/schedules/algorithms.h"

namespace toporr::mapping {

// Collective and Algorithm, and every algorithm's identity: algorithms.h (the registry).

// The registry's lower-case names (algorithms.h), used on the command line and in the API.
// Parse* return kInvalidArgument listing the accepted names.
std::string_view AlgorithmName(Algorithm a);
std::string_view CollectiveName(Collective c);
absl::StatusOr<Algorithm> ParseAlgorithm(std::string_view name);
absl::StatusOr<Collective> ParseCollective(std::string_view name);

// Algorithms offered for a collective (the registry's selectable column), in registry order
// (selection iterates them).
std::vector<Algorithm> AlgorithmsFor(Collective c);

struct PatternSpec {
  Collective collective = Collective::kAllreduce;
  Algorithm algorithm = Algorithm::kRing;
  int num_ranks = 1;
  int root = 0;  // rooted collectives only (bcast, gather, reduce)
  // Elements of the user buffer; for allgather/gather, elements contributed PER RANK
  // (MPI's sendcount). Must be >= 1.
  int64_t count = 1;
  int type_size = 1;     // bytes per element
  int radix = 4;         // knomial radix (Open MPI tuned default 4), >= 2
  int chain_fanout = 4;  // chain bcast: number of chains (clipped to 32 like Open MPI)
  // Segment size in bytes for segmented algorithms (tree bcasts, pipeline/chain,
  // split_binary_tree, segmented_ring, reduce); 0 = whole message in one segment.
  int64_t segment_bytes = 0;
};

enum class Combine : uint8_t {
  kCopy,    // receiver's copy of the elements := sender's
  kReduce,  // receiver's partial result += sender's (op applied)
};

struct Transfer {
  int32_t src = 0;
  int32_t dst = 0;
  // Bytes of one repetition of this transfer. For a folded step (Step::repeat > 1) it is the
  // LARGEST size this transfer has in any of the repetitions (Open MPI's early/late blocks
  // differ by at most one element), so step times are upper bounds within one element.
  int64_t bytes = 0;
  // Exact bytes over all repetitions of the step (== bytes when repeat == 1). Use it for
  // volumes (hop-bytes, communication graphs).
  int64_t total_bytes = 0;
  // Data carried (see the data model above). Only meaningful in ForEachExactStep; folded
  // steps set elem_count = -1.
  int64_t elem_begin = 0;
  int64_t elem_count = 0;
  Combine combine = Combine::kCopy;
};

struct Step {
  std::vector<Transfer> transfers;  // concurrent
  int64_t repeat = 1;               // consecutive synchronous steps with these peers/sizes
};

using StepVisitor = std::function<void(const Step&)>;

// Checks the spec: sizes in range, root in range, the algorithm implements the collective,
// no 64-bit overflow of bytes. kInvalidArgument naming the field otherwise.
absl::Status ValidateSpec(const PatternSpec& spec);

// The algorithm Open MPI actually runs for `spec` after its built-in fallbacks (see above).
// Precondition: ValidateSpec(spec).ok().
Algorithm EffectiveAlgorithm(const PatternSpec& spec);

// toporr's own scatter-allgather bcasts (client/mpi/coll/bcast.h) run a binomial tree when
// the message has fewer elements than ranks, where Open MPI runs the linear bcast that the
// patterns (and EffectiveAlgorithm) model. Candidate lists of toporr's own bcast algorithms
// for `bytes` over `ranks` leave them out there (bytes bound the element count from above;
// binomial is a candidate of its own), so that what is predicted is what runs.
void DropOwnScatterAllgatherBelowBlock(int64_t bytes, int ranks,
                                       std::vector<Algorithm>* candidates);

// Number of elements in the data space (count, or p * count for allgather/gather).
int64_t DataSpaceElements(const PatternSpec& spec);

// Visits the schedule with runs of identical steps folded (Step::repeat >= 1). The visitor
// is called once per distinct step in order; the Step reference is valid only during the
// call. Steps with no transfers are never emitted. p == 1 emits nothing.
absl::Status ForEachStep(const PatternSpec& spec, const StepVisitor& visit);

// Visits every synchronous step individually (repeat == 1) with the data each transfer
// carries. O(total transfers) time; for ring that is 2(p-1) * p.
absl::Status ForEachExactStep(const PatternSpec& spec, const StepVisitor& visit);

// Weighted communication graph: total bytes sent from src to dst over the whole collective,
// one entry per ordered pair that communicates, sorted by (src, dst). Sparse: O(edges).
struct WeightedEdge {
  int32_t src = 0;
  int32_t dst = 0;
  int64_t bytes = 0;
};
absl::StatusOr<std::vector<WeightedEdge>> CommunicationGraph(const PatternSpec& spec);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_SCHEDULES_PATTERN_H_
