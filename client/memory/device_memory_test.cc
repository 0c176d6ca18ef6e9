#include "client/memory/device_memory.h"

#include <dlfcn.h>

#include <cstddef>
#include <vector>

#include "gtest/gtest.h"

namespace toporr::client {
namespace {

// client/testing/fake_gpu_driver.c
constexpr int kFakeDevice = 1, kFakeManaged = 2, kFakePinnedHost = 3;
using RegisterFn = int (*)(const void*, size_t, int);
using SetHipVersionFn = void (*)(int);

// A stand-in runtime loaded the way a program loads the real one (after this process has
// started and made its first queries), unloaded again at the end of its scope.
class FakeDriver {
 public:
  explicit FakeDriver(const char* path) : handle_(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
    EXPECT_NE(handle_, nullptr) << dlerror();
  }
  ~FakeDriver() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  bool Register(const std::vector<char>& memory, int kind) const {
    auto f = reinterpret_cast<RegisterFn>(Symbol("fake_gpu_register"));
    return f != nullptr && f(memory.data(), memory.size(), kind) == 1;
  }
  void SetHipVersion(int major) const {
    if (auto f = reinterpret_cast<SetHipVersionFn>(Symbol("fake_gpu_set_hip_version"))) f(major);
  }

 private:
  void* Symbol(const char* name) const {
    return handle_ != nullptr ? dlsym(handle_, name) : nullptr;
  }
  void* handle_;
};

// What a process sees before and after it loads the CUDA driver, in one test so that it does
// not depend on the order tests run in (each test unloads what it loaded).
TEST(DeviceMemoryTest, CudaDriverLoadedLateIsFoundAndAsked) {
  std::vector<char> device(4096), managed(4096), pinned(4096), plain(4096);
  ASSERT_FALSE(GpuRuntimeLoaded());
  EXPECT_EQ(MemoryKindOf(device.data()), MemoryKind::kHost);
  {
    FakeDriver cuda("client/testing/fake_cuda.so");
    ASSERT_TRUE(cuda.Register(device, kFakeDevice));
    ASSERT_TRUE(cuda.Register(managed, kFakeManaged));
    ASSERT_TRUE(cuda.Register(pinned, kFakePinnedHost));
    EXPECT_TRUE(GpuRuntimeLoaded());
    EXPECT_EQ(MemoryKindOf(device.data()), MemoryKind::kDevice);
    EXPECT_EQ(MemoryKindOf(device.data() + 4095), MemoryKind::kDevice);
    EXPECT_EQ(MemoryKindOf(managed.data() + 10), MemoryKind::kManaged);
    EXPECT_EQ(MemoryKindOf(pinned.data()), MemoryKind::kHost);
    // CUDA_ERROR_INVALID_VALUE for memory the driver does not know: host memory.
    EXPECT_EQ(MemoryKindOf(plain.data()), MemoryKind::kHost);
    EXPECT_EQ(MemoryKindOf(nullptr), MemoryKind::kHost);
  }
  // Unloaded: never asked again.
  EXPECT_FALSE(GpuRuntimeLoaded());
  EXPECT_EQ(MemoryKindOf(device.data()), MemoryKind::kHost);
}

TEST(DeviceMemoryTest, HipRuntimeIsReadInItsMajorVersionsValues) {
  std::vector<char> device(4096), managed(4096), pinned(4096), plain(4096);
  for (int major : {6, 5}) {
    SCOPED_TRACE(major);
    FakeDriver hip("client/testing/fake_hip.so");
    hip.SetHipVersion(major);  // before the first query, which reads it
    ASSERT_TRUE(hip.Register(device, kFakeDevice));
    ASSERT_TRUE(hip.Register(managed, kFakeManaged));
    ASSERT_TRUE(hip.Register(pinned, kFakePinnedHost));
    EXPECT_TRUE(GpuRuntimeLoaded());
    // ROCm 6 renumbered the memory types (Host 0 -> 1, Device 1 -> 2) and answers unregistered
    // host memory with success and type Unregistered (0); ROCm 5 answers it with an error.
    EXPECT_EQ(MemoryKindOf(device.data()), MemoryKind::kDevice);
    EXPECT_EQ(MemoryKindOf(managed.data()), MemoryKind::kManaged);
    EXPECT_EQ(MemoryKindOf(pinned.data()), MemoryKind::kHost);
    EXPECT_EQ(MemoryKindOf(plain.data()), MemoryKind::kHost);
  }
}

}  // namespace
}  // namespace toporr::client
