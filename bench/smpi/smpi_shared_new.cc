// Large C++ allocations of the SMPI build of libtoporr (bench/smpi/build_libtoporr_smpi.sh)
// are folded onto a little physical memory: a block of TOPORR_SMPI_FOLD_BYTES or more
// (default 4 MiB; 0 = never) is an address range whose every 1 MiB maps the same 1 MiB of
// shared memory (a memfd of the rank). Smaller blocks are ordinary private memory.
//
// Why: toporr's collectives hold their temporary buffers in std::vector (recursive doubling
// and Rabenseifner need the whole message per rank), so 256 simulated ranks x 64 MiB would
// need 16 GiB of real memory. The benchmark's payload is meaningless (its reduction
// operator leaves data alone, and SMPI does not copy message data out of or into its own
// SMPI_SHARED_MALLOC payload buffers), so folding the temporaries changes no simulated time.
// The threshold must stay above every allocation whose content matters (the planner's
// matrices on rank 0: ranks^2 doubles, 512 KiB at 256 ranks); run_collectives_eval.sh --quick
// checks that the decisions are the same with folding off.
//
// Not SMPI's own shared malloc (--cfg=smpi/auto-shared-malloc-thresh, which only reaches
// malloc() calls compiled with smpicc): it folds onto a file in /tmp, and on a disk-backed
// /tmp every write to a folded page after the kernel's periodic writeback takes a write
// fault whose cost grows with the number of mappings; the vectors' zero-filling then
// dominates a run's system time. A memfd (tmpfs) has no writeback. Freed
// folded blocks are also kept (up to kKept per rank) for the next allocation of the same
// size, so a rank maps its 64 MiB temporary once per run, not once per call.
//
// Globals here are per rank: SMPI loads one copy of the program per simulated rank, each
// with its own symbol scope, so the replacement covers the program's own objects only
// (SimGrid keeps the C++ runtime's allocator). Aligned (align_val_t) forms are not
// replaced; they pair with the runtime's own.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;  // the folded memory of a rank
constexpr int kLive = 32;                             // folded blocks tracked (more: private)
constexpr int kKept = 4;                              // freed folded blocks kept for reuse

struct Block {
  void* ptr = nullptr;
  std::size_t size = 0;
};
Block live[kLive];
Block kept[kKept];
int fold_fd = -2;  // -2: not set up yet; -1: folding off
std::size_t fold_bytes = 0;

// (std::getenv and memfd_create allocate nothing.)
bool FoldingOn() {
  if (fold_fd == -2) {
    fold_bytes = std::size_t{4} << 20;
    if (const char* v = std::getenv("TOPORR_SMPI_FOLD_BYTES")) {
      fold_bytes = std::strtoull(v, nullptr, 10);
    }
    fold_fd = -1;
    if (fold_bytes > 0) {
      const int fd = memfd_create("toporr-smpi-fold", MFD_CLOEXEC);
      if (fd >= 0 && ftruncate(fd, kChunk) == 0) {
        fold_fd = fd;
      } else {
        std::fprintf(stderr, "smpi_shared_new: memfd_create failed: large blocks stay private\n");
      }
    }
  }
  return fold_fd >= 0;
}

void* MapFolded(std::size_t size) {
  const std::size_t total = (size + kChunk - 1) / kChunk * kChunk;
  void* base = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  for (std::size_t off = 0; off < total; off += kChunk) {
    void* at = static_cast<char*>(base) + off;
    if (mmap(at, kChunk, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_POPULATE, fold_fd,
             0) != at) {
      munmap(base, total);
      return nullptr;
    }
  }
  return base;
}

void UnmapFolded(const Block& b) { munmap(b.ptr, (b.size + kChunk - 1) / kChunk * kChunk); }

void* Allocate(std::size_t size) {
  if (size == 0) size = 1;
  if (!FoldingOn() || size < fold_bytes) return std::malloc(size);
  Block* slot = nullptr;
  for (Block& l : live) {
    if (l.ptr == nullptr) {
      slot = &l;
      break;
    }
  }
  if (slot == nullptr) return std::malloc(size);  // too many at once: private
  void* p = nullptr;
  for (Block& k : kept) {
    if (k.ptr != nullptr && k.size == size) {
      p = k.ptr;
      k = Block{};
      break;
    }
  }
  if (p == nullptr) p = MapFolded(size);
  if (p == nullptr) return std::malloc(size);
  *slot = Block{p, size};
  return p;
}

void Free(void* p) {
  if (p == nullptr) return;
  for (Block& l : live) {
    if (l.ptr != p) continue;
    const Block freed = l;
    l = Block{};
    for (Block& k : kept) {
      if (k.ptr == nullptr) {
        k = freed;
        return;
      }
    }
    UnmapFolded(kept[0]);  // full: replace the first slot's block
    kept[0] = freed;
    return;
  }
  std::free(p);
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
