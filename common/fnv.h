// FNV-1a, 64 bits: the one non-cryptographic hash of the tree, for names and keys. The offset
// basis and prime are the published ones (14695981039346656037, 1099511628211), so a value is
// the same as any other FNV-1a 64 implementation's and stable across releases: values derived
// from it may be stored (synthesised GUIDs of Omni-Path nodes and of measured topologies,
// topograph's label values for long names).
#ifndef TOPORR_COMMON_FNV_H_
#define TOPORR_COMMON_FNV_H_

#include <cstdint>
#include <string_view>

namespace toporr {

inline constexpr uint64_t kFnv64Offset = 14695981039346656037ull;
inline constexpr uint64_t kFnv64Prime = 1099511628211ull;

// FNV-1a over `bytes`, continuing from `h`.
constexpr uint64_t Fnv64a(std::string_view bytes, uint64_t h = kFnv64Offset) {
  for (unsigned char c : bytes) h = (h ^ c) * kFnv64Prime;
  return h;
}

// One FNV-1a step over a whole 64-bit word instead of a byte: for keys of integers that stay
// inside one process or job (cache keys, argument checks), where speed matters more than
// matching the byte-wise hash.
constexpr uint64_t Fnv64aWord(uint64_t h, uint64_t word) { return (h ^ word) * kFnv64Prime; }

}  // namespace toporr

#endif  // TOPORR_COMMON_FNV_H_
