#include "client/mpi/mpi_abi_guard.h"

#include <dlfcn.h>
#include <link.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace toporr::client::mpi {
namespace {

const char* FamilyName(MpiFamily family) {
  switch (family) {
    case MpiFamily::kOpenMpi:
      return "Open MPI ABI";
    case MpiFamily::kMpich:
      return "MPICH ABI family";
    case MpiFamily::kForumAbi:
      return "MPI standard ABI";
    case MpiFamily::kNone:
      break;
  }
  return "no known ABI";
}

std::string Describe(const MpiLibrary& lib) {
  std::string out = lib.version.empty() ? "an MPI library" : lib.version;
  if (lib.family == MpiFamily::kOpenMpi && lib.major >= 0) {
    out += " (Open MPI " + std::to_string(lib.major) + ".x ABI)";
  } else {
    out += " (" + std::string(FamilyName(lib.family)) + ")";
  }
  if (!lib.path.empty()) out += " from " + lib.path;
  return out;
}

// The first line of `lib`'s own PMPI_Get_library_version, trimmed. Larger than any
// library's MPI_MAX_LIBRARY_VERSION_STRING (MPICH's is 8192).
std::string LibraryVersion(void* handle) {
  using VersionFn = int (*)(char*, int*);
  auto fn = reinterpret_cast<VersionFn>(dlsym(handle, "PMPI_Get_library_version"));
  if (fn == nullptr) return "";
  static char buffer[16384];
  int length = 0;
  if (fn(buffer, &length) != 0 || length <= 0) return "";
  std::string text(buffer,
                   std::min<size_t>(static_cast<size_t>(length), strnlen(buffer, sizeof buffer)));
  text = text.substr(0, text.find_first_of("\r\n,"));  // Open MPI's goes on: ", package: ..."
  for (char& c : text) {
    if (c == '\t') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// True when the object loaded from `path` defines `symbol` itself (not one of its
// dependencies).
bool Defines(void* handle, const char* path, const char* symbol) {
  void* address = dlsym(handle, symbol);
  Dl_info info;
  return address != nullptr && dladdr(address, &info) != 0 && info.dli_fname != nullptr &&
         std::strcmp(info.dli_fname, path) == 0;
}

// The MPI library loaded from `path`, when the object there defines PMPI_Init itself.
bool ClassifyObject(const std::string& path, MpiLibrary* lib) {
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  const bool is_mpi = Defines(handle, path.c_str(), "PMPI_Init");
  if (is_mpi) {
    lib->path = path;
    lib->version = LibraryVersion(handle);
    const size_t slash = path.rfind('/');
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (Defines(handle, path.c_str(), "ompi_mpi_comm_world")) {
      lib->family = MpiFamily::kOpenMpi;
      ParseOpenMpiVersion(lib->version, &lib->major, &lib->minor);
    } else if (base.compare(0, 10, "libmpi_abi") == 0) {
      lib->family = MpiFamily::kForumAbi;
    } else {
      lib->family = MpiFamily::kMpich;
    }
  }
  dlclose(handle);
  return is_mpi;
}

// dl_iterate_phdr callback: the loaded objects' paths (the executable and the vDSO have
// none). The objects are opened after the iteration, which holds the loader's lock.
int CollectPath(dl_phdr_info* object, size_t, void* out) {
  if (object->dlpi_name != nullptr && object->dlpi_name[0] != '\0') {
    static_cast<std::vector<std::string>*>(out)->push_back(object->dlpi_name);
  }
  return 0;
}

// The file this code was loaded from (libtoporr.so, or the program it is linked into).
std::string SelfPath() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&SelfPath), &info) != 0 && info.dli_fname != nullptr &&
      info.dli_fname[0] != '\0') {
    return info.dli_fname;
  }
  return "libtoporr";
}

// Runs while libtoporr is loaded: the contract of mpi_abi_guard.h.
__attribute__((constructor)) void RefuseAnotherMpiAbi() {
  const MpiLibrary built = BuiltFor();
  if (built.family == MpiFamily::kNone) return;
  const std::string line = AbiMismatch(built, LoadedMpiLibraries(), SelfPath());
  if (line.empty()) return;
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  _exit(1);
}

}  // namespace

MpiLibrary BuiltFor() {
  MpiLibrary lib;
#if defined(OMPI_MAJOR_VERSION) && defined(OMPI_MINOR_VERSION)
  lib.family = MpiFamily::kOpenMpi;
  lib.major = OMPI_MAJOR_VERSION;
  lib.minor = OMPI_MINOR_VERSION;
  lib.version = "Open MPI " + std::to_string(OMPI_MAJOR_VERSION) + "." +
                std::to_string(OMPI_MINOR_VERSION) + "." + std::to_string(OMPI_RELEASE_VERSION);
#elif defined(MPICH_NUMVERSION)
  lib.family = MpiFamily::kMpich;
  lib.version = std::string("MPICH ") + MPICH_VERSION;
#endif
  return lib;
}

std::vector<MpiLibrary> LoadedMpiLibraries() {
  std::vector<std::string> paths;
  dl_iterate_phdr(CollectPath, &paths);
  std::vector<MpiLibrary> libs;
  for (const std::string& path : paths) {
    MpiLibrary lib;
    if (ClassifyObject(path, &lib)) libs.push_back(lib);
  }
  return libs;
}

bool ParseOpenMpiVersion(const std::string& version, int* major, int* minor) {
  const std::string prefix = "Open MPI v";
  if (version.compare(0, prefix.size(), prefix) != 0) return false;
  int a = -1, b = -1;
  if (std::sscanf(version.c_str() + prefix.size(), "%d.%d", &a, &b) != 2) return false;
  *major = a;
  *minor = b;
  return true;
}

std::string AbiMismatch(const MpiLibrary& built, const std::vector<MpiLibrary>& loaded,
                        const std::string& self) {
  for (const MpiLibrary& lib : loaded) {
    const bool other_family = lib.family != built.family;
    // An Open MPI whose version string does not parse is given the benefit of the doubt.
    const bool other_major =
        built.family == MpiFamily::kOpenMpi && lib.major >= 0 && lib.major != built.major;
    if (!other_family && !other_major) continue;
    return "toporr: error: MPI ABI mismatch: " + self + " was built for " + Describe(built) +
           " but this process runs " + Describe(lib) +
           "; use the libtoporr built for that MPI (docs/site-build.md), or rebuild it with "
           "deploy/site-mpi/build-libtoporr.sh; exiting";
  }
  return "";
}

}  // namespace toporr::client::mpi
