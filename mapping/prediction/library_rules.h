// What the MPI library would run by itself: the decision rules of the libraries toporr is
// linked into, as schedules the mapping engine can predict. This is the "MPI library's own
// call" candidate of toporr's collective selection: toporr acts only when one of its
// (algorithm, order) pairs is predicted strictly faster than this.
//
// Rule sets (commutative ops, intra-communicators; the message size is count x type size of
// the whole buffer, per rank for allgather):
//   kOpenMpi    Open MPI's coll/tuned fixed decision tables (coll_tuned_decision_fixed.c,
//               the tables Open MPI 4.1 introduced and 5.x keeps), segment size 0;
//   kMpich      MPICH 4.0's default JSON tuning (MPIR_Allreduce/Bcast/Allgather_intra_auto):
//               allreduce recursive doubling up to 8 B and when count < pof2(p), else
//               reduce-scatter + allgather (Rabenseifner); bcast binomial below 8 ranks or up
//               to 12 KiB, scatter + recursive-doubling allgather up to 512 KiB on powers of
//               two, else scatter + ring allgather; allgather recursive doubling (powers of
//               two, total < 512 KiB), Bruck (others, total < 80 KiB), else ring;
//   kSmpiOmpi   SimGrid SMPI's `ompi` selector (3.31 and later: Open MPI 4's tables above,
//               run with SMPI's own implementations; its segmented ring uses 1 MiB
//               segments).
// Approximations (each documented where it is made): algorithms the mapping engine has no
// schedule for are predicted with the closest one it has — Open MPI's and SMPI's
// "nonoverlapping"/"redbcast" allreduce as a binomial reduce followed by a binomial bcast
// (two phases), Open MPI's allgather "neighbor exchange" as a ring (same volume and
// neighbour-local peers), "two_proc" allgather as recursive doubling (identical for p = 2);
// MPICH's node-aware compositions (used when several ranks share a node) as their flat
// inter-node algorithm. Reduce is not covered: toporr's reduce always runs the library's own
// reduce (on a reordered communicator), so its identity candidate already is the library's.
#ifndef TOPORR_MAPPING_PREDICTION_LIBRARY_RULES_H_
#define TOPORR_MAPPING_PREDICTION_LIBRARY_RULES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "mapping/schedules/pattern.h"

namespace toporr::mapping {

enum class LibraryRules { kOpenMpi, kMpich, kSmpiOmpi };

// "openmpi", "mpich", "smpi-ompi".
std::string_view LibraryRulesName(LibraryRules rules);
absl::StatusOr<LibraryRules> ParseLibraryRules(std::string_view name);

// The library's choice as phases run one after the other (one phase except the two-phase
// approximations above). `name` is the library's own algorithm name (e.g. "rabenseifner",
// "reduce_scatter_allgather", "pipeline"), for reports.
struct LibraryChoice {
  std::string name;
  std::vector<PatternSpec> phases;
};

// kInvalidArgument for a collective the rules do not cover (reduce, gather) or an invalid
// size. `count` and `type_size` as in PatternSpec (count >= 1).
absl::StatusOr<LibraryChoice> LibraryDefault(LibraryRules rules, Collective collective,
                                             int num_ranks, int64_t count, int type_size, int root);

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_PREDICTION_LIBRARY_RULES_H_
