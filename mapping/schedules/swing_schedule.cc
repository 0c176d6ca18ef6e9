#include "mapping/schedules/swing_schedule.h"

#include <cstddef>

namespace toporr::mapping {
namespace {

// Negabinary (base -2) digits of x >= 0, as bits: x = sum_i bit_i * (-2)^i.
uint64_t Negabinary(uint64_t x) {
  constexpr uint64_t kOddBits = 0xAAAAAAAAAAAAAAAAull;
  return (x + kOddBits) ^ kOddBits;
}

}  // namespace

int64_t SwingRho(int step) {
  // (1 - (-2)^(step+1)) / 3
  int64_t power = 1;
  for (int i = 0; i <= step; ++i) power *= -2;
  return (1 - power) / 3;
}

int64_t SwingPeer(int64_t rank, int step, int64_t num_ranks) {
  const int64_t rho = SwingRho(step) % num_ranks;
  const int64_t peer = rank % 2 == 0 ? rank + rho : rank - rho;
  return ((peer % num_ranks) + num_ranks) % num_ranks;
}

int64_t SwingBlockKey(int64_t rank, int64_t num_ranks) {
  const int64_t x = rank % 2 != 0 ? rank : (num_ranks - rank) % num_ranks;
  // The low log2(n) negabinary digits of x depend only on x mod n, since (-2)^i = 0 mod n
  // for i >= log2(n).
  const uint64_t u = Negabinary(static_cast<uint64_t>(x)) & static_cast<uint64_t>(num_ranks - 1);
  return static_cast<int64_t>(u ^ (u >> 1));
}

BineTree BineBcastTree(int64_t num_ranks) {
  BineTree t;
  t.parent.assign(num_ranks, -1);
  t.stage.assign(num_ranks, -1);
  const int64_t pof2 = FloorPowerOfTwo(num_ranks);
  const int steps = Log2Floor(pof2);
  // Virtual ranks of the power-of-two tree; `holds[v]` once v has the data.
  std::vector<uint8_t> holds(pof2, 0);
  std::vector<int64_t> holders = {0};
  holds[0] = 1;
  for (int i = 0; i < steps; ++i) {
    const size_t senders = holders.size();
    for (size_t h = 0; h < senders; ++h) {
      const int64_t v = holders[h];
      const int64_t peer = SwingPeer(v, steps - 1 - i, pof2);
      if (holds[peer]) continue;  // never happens for a power of two (swing_schedule_test)
      holds[peer] = 1;
      holders.push_back(peer);
      const int64_t child = UnfoldedRank(peer, num_ranks, /*keep_odd=*/false);
      t.parent[child] = static_cast<int32_t>(UnfoldedRank(v, num_ranks, false));
      t.stage[child] = i;
    }
  }
  t.num_stages = steps;
  if (pof2 != num_ranks) {
    for (int64_t r = 1; r < 2 * (num_ranks - pof2); r += 2) {
      t.parent[r] = static_cast<int32_t>(r - 1);
      t.stage[r] = steps;
    }
    ++t.num_stages;
  }
  return t;
}

}  // namespace toporr::mapping
