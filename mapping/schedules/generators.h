// The schedule generators of pattern.h, one per (effective) algorithm, defined in one file per
// collective family as Open MPI's coll/base is: allreduce_schedules.cc, bcast_schedules.cc,
// allgather_schedules.cc, reduce_gather_schedules.cc. Each appends the steps of its algorithm
// for ctx.spec to `sink` (step_builder.h) and leaves Finish to the caller; the spec is valid
// and has at least two ranks. Internal to mapping/schedules.
#ifndef TOPORR_MAPPING_SCHEDULES_GENERATORS_H_
#define TOPORR_MAPPING_SCHEDULES_GENERATORS_H_

#include "mapping/schedules/step_builder.h"

namespace toporr::mapping::schedules_internal {

// Allreduce: ring and segmented ring; recursive doubling and Swing (whole vectors over the
// folded ranks); Rabenseifner and Swing bandwidth (recursive halving, then the allgather back).
void AllreduceRing(const Ctx& ctx, Sink& sink);
void AllreduceSegmentedRing(const Ctx& ctx, Sink& sink);
void AllreduceRecursiveDoubling(const Ctx& ctx, Sink& sink);
void AllreduceRabenseifner(const Ctx& ctx, Sink& sink);
void AllreduceSwing(const Ctx& ctx, Sink& sink);
void AllreduceSwingBandwidth(const Ctx& ctx, Sink& sink);

// Bcast: the segmented tree bcasts (binomial, binary, k-nomial, chain, pipeline) as a
// pipelined wavefront; split binary tree; scatter-allgather with a recursive-doubling or a
// ring allgather; Bine; linear.
void BcastBinomial(const Ctx& ctx, Sink& sink);
void BcastBinaryTree(const Ctx& ctx, Sink& sink);
void BcastKnomial(const Ctx& ctx, Sink& sink);
void BcastChain(const Ctx& ctx, Sink& sink);
void BcastPipeline(const Ctx& ctx, Sink& sink);
void BcastSplitBinaryTree(const Ctx& ctx, Sink& sink);
void BcastScatterAllgather(const Ctx& ctx, Sink& sink);
void BcastScatterAllgatherRing(const Ctx& ctx, Sink& sink);
void BcastBine(const Ctx& ctx, Sink& sink);
void BcastLinear(const Ctx& ctx, Sink& sink);

// Allgather: ring, recursive doubling (a power-of-two size), Bruck (radix 2).
void AllgatherRing(const Ctx& ctx, Sink& sink);
void AllgatherRecursiveDoubling(const Ctx& ctx, Sink& sink);
void AllgatherBruck(const Ctx& ctx, Sink& sink);

// Gather and reduce: up the in-order binomial tree (reduce segmented, as a wavefront).
void GatherBinomial(const Ctx& ctx, Sink& sink);
void ReduceBinomial(const Ctx& ctx, Sink& sink);

}  // namespace toporr::mapping::schedules_internal

#endif  // TOPORR_MAPPING_SCHEDULES_GENERATORS_H_
