#include "client/memory/device_memory.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string_view>

#include "client/memory/gpu_runtime_abi.h"

namespace toporr::client {
namespace {

using CuPointerGetAttributeFn = toporr_cu_pointer_get_attribute;
using HipPointerAttributes = toporr_hip_pointer_attributes;
using HipPointerGetAttributesFn = toporr_hip_pointer_get_attributes;
using HipRuntimeGetVersionFn = toporr_hip_runtime_get_version;

// What the last look-up found, for the load generation it was made at (0: none yet; glibc's
// counters start at 1 with the main program).
std::atomic<unsigned long long> probed_generation{0};
std::atomic<CuPointerGetAttributeFn> cuda{nullptr};
std::atomic<HipPointerGetAttributesFn> hip{nullptr};
std::atomic<int> hip_major{6};
std::mutex probe_mu;

int FirstObject(dl_phdr_info* info, size_t, void* data) {
  *static_cast<unsigned long long*>(data) = info->dlpi_adds + info->dlpi_subs;
  return 1;  // one object is enough: the counters are process-wide
}

// Changes whenever an object is loaded into or unloaded from the process.
unsigned long long LoadGeneration() {
  unsigned long long generation = 0;
  dl_iterate_phdr(FirstObject, &generation);
  return generation;
}

// What LoadedSymbol found: the entry point, a second symbol of the same object (null when
// not asked for or absent) and the name the object was found under.
struct Found {
  void* fn = nullptr;
  void* other = nullptr;
  std::string_view name;
};

// The first of `names` already loaded that exports `symbol`. The reference RTLD_NOLOAD takes
// is dropped again: the pointers stay valid while the program keeps the runtime loaded.
Found LoadedSymbol(std::initializer_list<const char*> names, const char* symbol,
                   const char* other_symbol = nullptr) {
  for (const char* name : names) {
    void* handle = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    Found found{dlsym(handle, symbol), other_symbol ? dlsym(handle, other_symbol) : nullptr, name};
    dlclose(handle);
    if (found.fn != nullptr) return found;
  }
  return {};
}

// The HIP runtime's major version: hipRuntimeGetVersion (HIP_VERSION = major * 10^7 +
// minor * 10^5 + patch), else the soname's, else 6.
int HipMajor(const Found& hip_runtime) {
  int version = 0;
  if (hip_runtime.other != nullptr &&
      reinterpret_cast<HipRuntimeGetVersionFn>(hip_runtime.other)(&version) == TOPORR_HIP_SUCCESS &&
      version > 0) {
    return version / 10000000;
  }
  const std::string_view name = hip_runtime.name;
  return name.size() > 2 && name.substr(name.size() - 2) == ".5" ? 5 : 6;
}

void Probe(unsigned long long generation) {
  std::lock_guard<std::mutex> lock(probe_mu);
  if (probed_generation.load(std::memory_order_acquire) == generation) return;
  const Found cuda_driver = LoadedSymbol({"libcuda.so.1", "libcuda.so"}, "cuPointerGetAttribute");
  cuda.store(reinterpret_cast<CuPointerGetAttributeFn>(cuda_driver.fn), std::memory_order_release);
  const Found hip_runtime = LoadedSymbol({"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"},
                                         "hipPointerGetAttributes", "hipRuntimeGetVersion");
  if (hip_runtime.fn != nullptr) hip_major.store(HipMajor(hip_runtime), std::memory_order_relaxed);
  hip.store(reinterpret_cast<HipPointerGetAttributesFn>(hip_runtime.fn), std::memory_order_release);
  probed_generation.store(generation, std::memory_order_release);
}

void Refresh() {
  const unsigned long long generation = LoadGeneration();
  if (probed_generation.load(std::memory_order_acquire) != generation) Probe(generation);
}

MemoryKind CudaKind(CuPointerGetAttributeFn f, const void* p) {
  const auto ptr = static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p));
  unsigned type = 0, managed = 0;
  if (f(&type, TOPORR_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr) != TOPORR_CUDA_SUCCESS)
    return MemoryKind::kHost;
  if (f(&managed, TOPORR_CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr) == TOPORR_CUDA_SUCCESS &&
      managed != 0) {
    return MemoryKind::kManaged;
  }
  return type == TOPORR_CU_MEMORYTYPE_HOST ? MemoryKind::kHost : MemoryKind::kDevice;
}

MemoryKind HipKind(HipPointerGetAttributesFn f, const void* p) {
  HipPointerAttributes a = {};
  if (f(&a, p) != TOPORR_HIP_SUCCESS) return MemoryKind::kHost;
  if (a.is_managed != 0) return MemoryKind::kManaged;
  if (hip_major.load(std::memory_order_relaxed) >= 6) {
    if (a.type == TOPORR_HIP6_UNREGISTERED || a.type == TOPORR_HIP6_HOST) return MemoryKind::kHost;
    return a.type == TOPORR_HIP6_MANAGED ? MemoryKind::kManaged : MemoryKind::kDevice;
  }
  return a.type == TOPORR_HIP5_HOST ? MemoryKind::kHost : MemoryKind::kDevice;
}

}  // namespace

bool GpuRuntimeLoaded() {
  Refresh();
  return cuda.load(std::memory_order_acquire) != nullptr ||
         hip.load(std::memory_order_acquire) != nullptr;
}

MemoryKind MemoryKindOf(const void* p) {
  if (p == nullptr) return MemoryKind::kHost;
  Refresh();
  if (CuPointerGetAttributeFn f = cuda.load(std::memory_order_acquire)) {
    if (MemoryKind k = CudaKind(f, p); k != MemoryKind::kHost) return k;
  }
  if (HipPointerGetAttributesFn f = hip.load(std::memory_order_acquire)) return HipKind(f, p);
  return MemoryKind::kHost;
}

}  // namespace toporr::client
