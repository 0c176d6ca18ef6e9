// Whether a buffer is host memory, as far as the GPU runtimes already loaded in this process
// know: toporr's collectives read and reduce buffers on the CPU, so a collective on GPU
// memory must stay with the MPI library (which may be GPU-aware).
//
// Runtimes asked, when (and only when) the process has already loaded them; this code never
// loads one (dlopen with RTLD_NOLOAD):
//   - the CUDA driver (libcuda.so.1, libcuda.so): cuPointerGetAttribute with
//     CU_POINTER_ATTRIBUTE_MEMORY_TYPE and CU_POINTER_ATTRIBUTE_IS_MANAGED;
//   - the HIP runtime (libamdhip64.so.6, .so.5, .so): hipPointerGetAttributes, read with the
//     memory-type values of the runtime's major version (hipRuntimeGetVersion; ROCm 6
//     renumbered them).
// Any error a runtime returns for a pointer means "not its memory", i.e. host memory: the
// CUDA driver answers CUDA_ERROR_INVALID_VALUE for ordinary host memory and
// CUDA_ERROR_NOT_INITIALIZED before cuInit (when no device memory can exist), ROCm 5
// hipErrorInvalidValue. Pinned or registered host memory (cuMemHostAlloc, hipHostMalloc) is
// host memory; managed memory (cudaMallocManaged, hipMallocManaged) is not, though the CPU
// can reach it: the runtime migrates it, and the MPI library may know better than toporr.
//
// Cost: the set of loaded objects is watched through glibc's load counters (dl_iterate_phdr
// dlpi_adds / dlpi_subs, one step: tens of ns); the runtimes are looked up again only when
// that set changed, so a runtime loaded late (after MPI_Init, after earlier collectives) is
// still found. With no runtime loaded a query costs that one step and nothing else.
//
// Thread-safety: every function may be called from any thread at any time.
#ifndef TOPORR_CLIENT_MEMORY_DEVICE_MEMORY_H_
#define TOPORR_CLIENT_MEMORY_DEVICE_MEMORY_H_

namespace toporr::client {

enum class MemoryKind {
  kHost,     // host memory, or memory no loaded runtime claims
  kDevice,   // GPU memory: CUDA device or array memory; HIP device, array or unified memory
  kManaged,  // CUDA or HIP managed memory
};

// True when the CUDA driver or the HIP runtime is loaded in this process (and exports the
// entry point above).
bool GpuRuntimeLoaded();

// What the loaded runtimes say about `p`: kHost for nullptr, when no runtime is loaded, and
// when every loaded runtime answers with an error or a host memory type.
MemoryKind MemoryKindOf(const void* p);

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_MEMORY_DEVICE_MEMORY_H_
