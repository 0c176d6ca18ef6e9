// Disjoint sets over 0..n-1 with path halving; the single-linkage clustering of levels.h and
// measured_levels.h. Union keeps the smaller index as the root, so a set's root is its lowest
// member. Not thread-safe (Find compresses paths).
#ifndef TOPORR_MAPPING_LEVELS_UNION_FIND_H_
#define TOPORR_MAPPING_LEVELS_UNION_FIND_H_

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace toporr::mapping {

class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int Find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  // False when a and b were already in one set.
  bool Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return false;
    parent_[std::max(a, b)] = std::min(a, b);
    return true;
  }
  // Per element the number of its set, 0..*num_sets-1, numbered by their lowest member.
  std::vector<int32_t> Labels(int32_t* num_sets) {
    const int n = static_cast<int>(parent_.size());
    std::vector<int32_t> label(n, -1), id_of_root(n, -1);
    *num_sets = 0;
    for (int x = 0; x < n; ++x) {
      int32_t& id = id_of_root[Find(x)];
      if (id < 0) id = (*num_sets)++;
      label[x] = id;
    }
    return label;
  }

 private:
  std::vector<int> parent_;
};

}  // namespace toporr::mapping

#endif  // TOPORR_MAPPING_LEVELS_UNION_FIND_H_
