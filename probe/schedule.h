// Which pairs of ranks toporr-probe measures when: rounds of DISJOINT pairs (each rank in at
// most one pair per round), so that all pairs of n ranks take n - 1 rounds (n even; n rounds
// for n odd) instead of n (n - 1) / 2 serial measurements, and every round's pairs run at
// the same time.
//
// RoundRobinRounds: the circle method of round-robin tournaments. Rank n-1 (or a "bye" when
// n is odd) stays fixed, the others rotate one seat per round; in round r the seats i and
// n-1-i meet. Every unordered pair appears in exactly one round. Pairs are (a, b) with a < b;
// a is the side that starts the ping-pongs.
//
// DisjointRounds: any list of pairs (the noisy ones to measure again) packed greedily into
// rounds of disjoint pairs, in list order (first fit): at most 2d - 1 rounds for a list whose
// busiest rank is in d pairs.
//
// Pure and thread-safe.
#ifndef TOPORR_PROBE_SCHEDULE_H_
#define TOPORR_PROBE_SCHEDULE_H_

#include <utility>
#include <vector>

namespace toporr::probe {

using RankPair = std::pair<int, int>;  // a < b
using Round = std::vector<RankPair>;

std::vector<Round> RoundRobinRounds(int num_ranks);

std::vector<Round> DisjointRounds(const std::vector<RankPair>& pairs, int num_ranks);

}  // namespace toporr::probe

#endif  // TOPORR_PROBE_SCHEDULE_H_
