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

// Outlier rejection, then the median: samples farther from the median than `k` scaled median
// absolute deviations (1.4826 MAD estimates the standard deviation of normal noise) are
// dropped and the median of the rest is returned. With MAD 0 (at least half the samples equal)
// that median is returned as is. A descheduled or interfered sample is one such outlier.
inline double RobustMedian(const std::vector<double>& v, double k = 3.0) {
  const double m = Median(v);
  std::vector<double> dev;
  for (double x : v) dev.push_back(x > m ? x - m : m - x);
  const double limit = k * 1.4826 * Median(dev);
  if (!(limit > 0)) return m;
  std::vector<double> kept;
  for (double x : v)
    if ((x > m ? x - m : m - x) <= limit) kept.push_back(x);
  return Median(kept);
}

}  // namespace toporr::probe

#endif  // TOPORR_PROBE_STATS_H_
