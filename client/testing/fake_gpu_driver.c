/* A stand-in GPU runtime for tests on machines without a GPU: the few entry points libtoporr
 * asks (client/memory/device_memory.h) with the CUDA driver's and the HIP runtime's signatures and
 * values, answering from address ranges the test registers. Built twice (BUILD.bazel): with
 * soname libcuda.so.1 (the CUDA driver) and libamdhip64.so.6 (the HIP runtime), so that a
 * program that loads one has that runtime "loaded in the process". The registered memory is
 * ordinary host memory, which the MPI library can still read: what a test checks is who ran
 * the call, not whether a GPU was used.
 *
 * Answers, for an address inside a registered range of `kind`:
 *   cuPointerGetAttribute MEMORY_TYPE: DEVICE, or HOST for kFakePinnedHost;
 *                         IS_MANAGED: 1 for kFakeManaged, else 0;
 *   hipPointerGetAttributes: type Device / Managed (isManaged 1) / Host, in the enum of the
 *                         HIP major version set with fake_gpu_set_hip_version (default 6).
 * For any other address: CUDA_ERROR_INVALID_VALUE, as the CUDA driver answers for host memory
 * it does not know; HIP 6 answers success with type Unregistered, HIP 5 hipErrorInvalidValue.
 * The values are the vendors' (client/memory/gpu_runtime_abi.h). */
#include <stddef.h>
#include <stdint.h>

#include "client/memory/gpu_runtime_abi.h"

enum { kFakeDevice = 1, kFakeManaged = 2, kFakePinnedHost = 3 };

struct Range {
  uintptr_t begin, end;
  int kind;
};

static struct Range ranges[32];
static int num_ranges;
static int hip_major = 6;
static long queries;

/* Registers [p, p + bytes) as memory of `kind`; 0 when the table is full. Not thread-safe:
 * register before the threads start. */
int fake_gpu_register(const void* p, size_t bytes, int kind) {
  if (num_ranges == (int)(sizeof(ranges) / sizeof(ranges[0]))) return 0;
  ranges[num_ranges].begin = (uintptr_t)p;
  ranges[num_ranges].end = (uintptr_t)p + bytes;
  ranges[num_ranges].kind = kind;
  ++num_ranges;
  return 1;
}

void fake_gpu_set_hip_version(int major) { hip_major = major; }

/* Pointer queries answered so far (both runtimes). */
long fake_gpu_queries(void) { return __atomic_load_n(&queries, __ATOMIC_RELAXED); }

static int KindOf(uintptr_t p) {
  __atomic_fetch_add(&queries, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < num_ranges; ++i) {
    if (p >= ranges[i].begin && p < ranges[i].end) return ranges[i].kind;
  }
  return 0;
}

int cuPointerGetAttribute(void* data, int attribute, unsigned long long ptr) {
  const int kind = KindOf((uintptr_t)ptr);
  if (kind == 0) return TOPORR_CUDA_ERROR_INVALID_VALUE;
  if (attribute == TOPORR_CU_POINTER_ATTRIBUTE_MEMORY_TYPE) {
    *(unsigned*)data =
        kind == kFakePinnedHost ? TOPORR_CU_MEMORYTYPE_HOST : TOPORR_CU_MEMORYTYPE_DEVICE;
    return TOPORR_CUDA_SUCCESS;
  }
  if (attribute == TOPORR_CU_POINTER_ATTRIBUTE_IS_MANAGED) {
    *(unsigned*)data = kind == kFakeManaged;
    return TOPORR_CUDA_SUCCESS;
  }
  return TOPORR_CUDA_ERROR_INVALID_VALUE;
}

int hipPointerGetAttributes(toporr_hip_pointer_attributes* a, const void* ptr) {
  const int kind = KindOf((uintptr_t)ptr);
  const int v6 = hip_major >= 6;
  a->device = 0;
  a->device_pointer = a->host_pointer = NULL;
  a->is_managed = kind == kFakeManaged;
  a->allocation_flags = 0;
  switch (kind) {
    case 0:
      if (!v6) return TOPORR_HIP_ERROR_INVALID_VALUE;
      a->type = TOPORR_HIP6_UNREGISTERED;
      return TOPORR_HIP_SUCCESS;
    case kFakePinnedHost:
      a->type = v6 ? TOPORR_HIP6_HOST : TOPORR_HIP5_HOST;
      return TOPORR_HIP_SUCCESS;
    case kFakeManaged:
      a->type = v6 ? TOPORR_HIP6_MANAGED : TOPORR_HIP5_DEVICE;
      return TOPORR_HIP_SUCCESS;
    default:
      a->type = v6 ? TOPORR_HIP6_DEVICE : TOPORR_HIP5_DEVICE;
      return TOPORR_HIP_SUCCESS;
  }
}

int hipRuntimeGetVersion(int* version) {
  *version = hip_major * 10000000;
  return TOPORR_HIP_SUCCESS;
}
