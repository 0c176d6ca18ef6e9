/* The few declarations of the CUDA driver API (cuda.h) and the HIP runtime API
 * (hip_runtime_api.h) that client/memory/device_memory.cc calls through dlsym, with the vendors'
 * values, so that no GPU headers are needed to build; C, so that the stand-in runtime of the
 * tests (client/testing/fake_gpu_driver.c) answers with the same ones. */
#ifndef TOPORR_CLIENT_MEMORY_GPU_RUNTIME_ABI_H_
#define TOPORR_CLIENT_MEMORY_GPU_RUNTIME_ABI_H_

/* CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) */
typedef int (*toporr_cu_pointer_get_attribute)(void* data, int attribute, unsigned long long ptr);
enum {
  TOPORR_CUDA_SUCCESS = 0,
  TOPORR_CUDA_ERROR_INVALID_VALUE = 1,
  TOPORR_CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2, /* data: unsigned int, a CUmemorytype */
  TOPORR_CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,  /* data: unsigned int, nonzero if managed */
  TOPORR_CU_MEMORYTYPE_HOST = 1,
  TOPORR_CU_MEMORYTYPE_DEVICE = 2,
};

/* hipPointerAttribute_t: the same layout in ROCm 5 and 6 (ROCm 6 renamed memoryType to type
 * and renumbered its values). */
typedef struct toporr_hip_pointer_attributes {
  int type;
  int device;
  void* device_pointer;
  void* host_pointer;
  int is_managed;
  unsigned allocation_flags;
} toporr_hip_pointer_attributes;
/* hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attributes, const void* ptr) */
typedef int (*toporr_hip_pointer_get_attributes)(toporr_hip_pointer_attributes* attributes,
                                                 const void* ptr);
/* hipError_t hipRuntimeGetVersion(int* version): HIP_VERSION, major * 10^7 + minor * 10^5 +
 * patch. */
typedef int (*toporr_hip_runtime_get_version)(int* version);
enum {
  TOPORR_HIP_SUCCESS = 0,
  TOPORR_HIP_ERROR_INVALID_VALUE = 1,
  /* ROCm 6 hipMemoryType */
  TOPORR_HIP6_UNREGISTERED = 0,
  TOPORR_HIP6_HOST = 1,
  TOPORR_HIP6_DEVICE = 2,
  TOPORR_HIP6_MANAGED = 3,
  /* ROCm 5 hipMemoryType */
  TOPORR_HIP5_HOST = 0,
  TOPORR_HIP5_DEVICE = 1,
};

#endif /* TOPORR_CLIENT_MEMORY_GPU_RUNTIME_ABI_H_ */
