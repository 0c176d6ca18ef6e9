// Robust statistics of toporr-probe's samples. Pure.
#ifndef TOPORR_PROBE_STATS_H_
#define TOPORR_PROBE_STATS_H_

#include <algorithm>
#include <vector>

namespace toporr::probe {

// Median of `v` (the mean of the two middle values for an even count); 0 when empty.
inline double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2) return v[mid];
  const double upper = v[mid];
  return 0.5 * (upper + *std::max_element(v.begin(), v.begin() + mid));
}

}  // namespace toporr::probe

#endif  // TOPORR_PROBE_STATS_H_
