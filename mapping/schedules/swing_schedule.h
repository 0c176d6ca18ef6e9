// Peer schedules of two locality-seeking algorithms that are not in the MPI libraries' menus,
// shared by the mapping engine's patterns (pattern.cc) and toporr's MPI implementations
// (client/mpi/coll/allreduce.cc, bcast.cc), so that what is predicted is what runs:
//
//   Swing allreduce (De Sensi et al., "Swing: Short-cutting Rings for Higher Bandwidth
//   Allreduce", NSDI'24). On a power-of-two number of ranks n, rank r talks at step s
//   (s = 0 .. log2(n) - 1, distances growing) to
//       SwingPeer(r, s, n) = r + rho(s) (r even) or r - rho(s) (r odd), mod n,
//       rho(s) = sum_{i=0..s} (-2)^i = 1, -1, 3, -5, 11, -21, ...
//   so |distance| = (2^(s+1) - (-1)^(s+1)) / 3: 1, 1, 3, 5, 11, 21 instead of recursive
//   doubling's 1, 2, 4, 8 — peers stay closer on a ring of ranks (the paper's "short-cut
//   ring"). The peer relation of every step is an involution (parity alternates).
//   For the bandwidth-optimal variant (reduce-scatter then allgather over the same peers),
//   SwingBlockKey(r, n) numbers the ranks so that key(peer at step s) agrees with key(r) on
//   bits 0..s-1 and differs in bit s: the data window a rank keeps after steps 0..s is then
//   selected by the low s+1 bits of its key exactly as in Rabenseifner's recursive halving
//   (bit s = 0 keeps the lower half), every transfer is ONE contiguous range, and rank r
//   ends with the fully reduced window of its key. The key is the "remapped rank" of the
//   authors' reference code (their nu(r, n), bit-reversed): with x = r for odd r and
//   x = -r mod n for even r, u = the log2(n) low negabinary digits of x, key = u ^ (u >> 1).
//
//   Bine-tree broadcast (De Sensi et al., "Bine Trees: Enhancing Collective Operations by
//   Optimizing Communication Locality", SC'25, arXiv 2508.17311). On n = 2^k ranks shifted so
//   that the root is 0, a binomial tree with distance halving whose edges are the Swing
//   peers: at step i = 0 .. k-1 every rank holding the data sends it to
//   SwingPeer(v, k - 1 - i, n) (distances 11, 5, 3, 1, 1 for n = 32), which is always a rank
//   that does not hold it yet (the negabinary digits of the holders' labels agree at the
//   low k - i positions). This is the authors' reference bcast (bine_bcast_small), whose
//   partner is the rank whose negabinary label differs in the low (k - i) digits.
//
// Sizes that are not powers of two. The Swing peers are defined modulo a power of two only
// (mod n they stop being an involution and stop reaching every rank), so both algorithms
// fold the sizes exactly like Open MPI's recursive doubling allreduce
// (ompi_coll_base_allreduce_intra_recursivedoubling; the scheme of Thakur, Rabenseifner and
// Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA 19(1), 2005),
// as the authors' latency-optimal allreduce does: with pof2 = the largest power of two <= n and
// extra = n - pof2, the first 2 * extra ranks pair up (2j, 2j + 1), one rank of each pair takes
// part in the power-of-two algorithm as virtual rank j, the others as virtual rank r - extra
// (FoldedRank, UnfoldedRank of collective_shapes.h). Which member of a pair takes part is the
// caller's choice (allreduce latency: the odd one, as Open MPI; allreduce bandwidth: the even one,
// as Open MPI's Rabenseifner; bcast: the even one, so that shifted rank 0 — the root — takes part,
// and the odd partners receive from it in one last step).
//
// Pure functions, thread-safe. Ranks are int64 to serve the pattern generator's sizes.
#ifndef TOPORR_MAPPING_SCHEDULES_SWING_SCHEDULE_H_
#define TOPORR_MAPPING_SCHEDULES_SWING_SCHEDULE_H_

#include <cstdint>
#include <vector>

#include "mapping/schedules/collective_shapes.h"

namespace toporr::mapping {

// sum_{i=0..step} (-2)^i; 0 <= step <= 60.
int64_t SwingRho(int step);

// Swing peer of `rank` at `step` among `num_ranks` ranks (a power of two >= 2).
int64_t SwingPeer(int64_t rank, int step, int64_t num_ranks);

// Block key of `rank` for the bandwidth-optimal Swing allreduce (num_ranks a power of two):
// a permutation of 0..num_ranks-1 with the bit property described above.
int64_t SwingBlockKey(int64_t rank, int64_t num_ranks);

// The Bine broadcast tree over `num_ranks` shifted ranks (root 0), any size >= 1: the
// power-of-two tree above on the folded ranks (even pair members take part), then one last
// stage in which rank 2j sends to 2j + 1 for j < extra.
struct BineTree {
  // Per shifted rank: the shifted rank it receives from (-1 for the root) and the stage
  // (0-based synchronous step) at which it receives (-1 for the root).
  std::vector<int32_t> parent;
  std::vector<int32_t> stage;
  int num_stages = 0;  // log2(pof2), plus 1 when num_ranks is not a power of two
};
BineTree BineBcastTree(int64_t num_ranks);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_SCHEDULES_SWING_SCHEDULE_H_
