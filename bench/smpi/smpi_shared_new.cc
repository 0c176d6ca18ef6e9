// C++ allocations of the SMPI build of libtoporr (bench/smpi/build_libtoporr_smpi.sh) go
// through SMPI's malloc interception, so `--cfg=smpi/auto-shared-malloc-thresh:N` applies to
// them as it does to malloc() in code compiled with smpicc: a block of N bytes or more is a
// shared allocation (one physical copy for all simulated ranks, and SMPI skips copying
// message data into or out of it); smaller blocks are ordinary private memory.
//
// Why: toporr's collectives hold their temporary buffers in std::vector (one per rank:
// recursive doubling and Rabenseifner need the whole message), so 256 simulated ranks x
// 64 MiB would need 16 GiB of real memory. The benchmark's payload is meaningless (its
// reduction operator leaves data alone), so sharing the temporaries changes no simulated
// time. The threshold must stay above every allocation whose content matters (the planner's
// matrices on rank 0: ranks^2 doubles, 512 KiB at 256 ranks); run_collectives_eval.sh uses
// 4 MiB and its --quick gate checks that the decisions are the same with sharing off.
//
// Mapping a shared block costs the kernel one page-table entry per 4 KiB page (SMPI maps it
// with MAP_POPULATE), ~1 s of system time per GiB: 256 ranks x 64 MiB per call would
// dominate the run. So blocks of kReuseBytes and more are not returned to SMPI when freed
// but kept (up to kKept per rank) for the next allocation of the same size: a rank maps its
// 64 MiB temporary once per run instead of once per call. Globals here are per rank (SMPI
// loads one copy of the program per rank).
//
// The replacement covers the program's own objects only: SMPI loads each rank's copy of the
// program with its own symbol scope, and SimGrid's internals keep the C++ runtime's
// allocator. Aligned (align_val_t) forms are not replaced; they pair with the runtime's own.
#include <smpi/smpi.h>
#include <smpi/smpi_helpers_internal.h>

#include <cstddef>
#include <new>

namespace {

constexpr std::size_t kReuseBytes = std::size_t{4} << 20;
constexpr int kLive = 32;  // large blocks tracked at once (more: not reused)
constexpr int kKept = 4;   // freed large blocks kept for reuse

struct Block {
  void* ptr = nullptr;
  std::size_t size = 0;
};
Block live[kLive];  // large blocks handed out
Block kept[kKept];  // large blocks freed, ready for reuse

void* Allocate(std::size_t size) {
  if (size < kReuseBytes)
    return smpi_shared_malloc_intercept(size == 0 ? 1 : size, __FILE__, __LINE__);
  void* p = nullptr;
  for (Block& k : kept) {
    if (k.ptr != nullptr && k.size == size) {
      p = k.ptr;
      k = Block{};
      break;
    }
  }
  if (p == nullptr) p = smpi_shared_malloc_intercept(size, __FILE__, __LINE__);
  for (Block& l : live) {
    if (l.ptr == nullptr) {
      l = Block{p, size};
      break;
    }
  }
  return p;
}

void Free(void* p) {
  if (p == nullptr) return;
  for (Block& l : live) {
    if (l.ptr != p) continue;
    Block freed = l;
    l = Block{};
    for (Block& k : kept) {
      if (k.ptr == nullptr) {
        k = freed;
        return;
      }
    }
    smpi_shared_free(kept[0].ptr);  // full: drop the oldest slot's block
    kept[0] = freed;
    return;
  }
  smpi_shared_free(p);
}

}  // namespace

void* operator new(std::size_t size) {
  if (void* p = Allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return Allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return Allocate(size); }
void operator delete(void* p) noexcept { Free(p); }
void operator delete[](void* p) noexcept { Free(p); }
void operator delete(void* p, std::size_t) noexcept { Free(p); }
void operator delete[](void* p, std::size_t) noexcept { Free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { Free(p); }
