#include "probe/schedule.h"

#include <algorithm>

namespace toporr::probe {

std::vector<Round> RoundRobinRounds(int num_ranks) {
  std::vector<Round> rounds;
  if (num_ranks < 2) return rounds;
  const int seats = num_ranks + (num_ranks % 2);  // an odd count gets a bye seat
  const int bye = num_ranks % 2 ? seats - 1 : -1;
  std::vector<int> seat(seats);
  for (int i = 0; i < seats; ++i) seat[i] = i;
  for (int r = 0; r < seats - 1; ++r) {
    Round round;
    for (int i = 0; i < seats / 2; ++i) {
      const int x = seat[i], y = seat[seats - 1 - i];
      if (x == bye || y == bye) continue;
      round.push_back({std::min(x, y), std::max(x, y)});
    }
    std::sort(round.begin(), round.end());
    rounds.push_back(std::move(round));
    // Rotate every seat but the last one step.
    std::rotate(seat.begin(), seat.begin() + seats - 2, seat.begin() + seats - 1);
  }
  return rounds;
}

std::vector<Round> DisjointRounds(const std::vector<RankPair>& pairs, int num_ranks) {
  std::vector<Round> rounds;
  std::vector<std::vector<bool>> busy;  // per round, per rank
  for (const RankPair& p : pairs) {
    size_t r = 0;
    while (r < rounds.size() && (busy[r][p.first] || busy[r][p.second])) ++r;
    if (r == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back(num_ranks, false);
    }
    rounds[r].push_back(p);
    busy[r][p.first] = busy[r][p.second] = true;
  }
  return rounds;
}

}  // namespace toporr::probe
