#include "client/mpi/buffers.h"

#include <cstdint>

#include "client/memory/device_memory.h"

namespace toporr::client::mpi {
namespace {

// The attribute on a communicator: what its ranks agreed on at the first call.
enum CommGpu : intptr_t { kNoRuntime = 1, kSomeRuntime = 2 };

int Keyval() {
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, nullptr);
    return k;
  }();
  return keyval;
}

// The MPI library's own allreduce (never the PMPI layer's): one int, `op` over the ranks.
int AgreeInt(MPI_Comm comm, int mine, MPI_Op op) {
  int all = mine;
  if (PMPI_Allreduce(&mine, &all, 1, MPI_INT, op, comm) != MPI_SUCCESS) return 0;
  return all;
}

}  // namespace

bool HostBuffers(MPI_Comm comm, std::initializer_list<const void*> buffers) {
  const bool loaded = GpuRuntimeLoaded();
  void* value = nullptr;
  int found = 0;
  const int keyval = Keyval();
  PMPI_Comm_get_attr(comm, keyval, &value, &found);
  bool some_runtime = found && reinterpret_cast<intptr_t>(value) == kSomeRuntime;
  if (!found) {
    some_runtime = AgreeInt(comm, loaded ? 1 : 0, MPI_MAX) != 0;
    PMPI_Comm_set_attr(comm, keyval,
                       reinterpret_cast<void*>(some_runtime ? kSomeRuntime : kNoRuntime));
  }
  if (!loaded && !some_runtime) return true;
  int host = 1;
  if (loaded) {
    for (const void* b : buffers) {
      if (b != nullptr && b != MPI_IN_PLACE && MemoryKindOf(b) != MemoryKind::kHost) host = 0;
    }
  }
  return AgreeInt(comm, host, MPI_MIN) != 0;
}

}  // namespace toporr::client::mpi
