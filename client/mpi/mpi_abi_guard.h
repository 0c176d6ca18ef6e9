// Which MPI library a build of libtoporr serves, and the load-time refusal when a process
// runs another one.
//
// libtoporr's MPI side is compiled against one mpi.h, and MPI libraries do not share a binary
// interface: Open MPI's handles (MPI_Comm, MPI_Datatype, MPI_Op...) are pointers to its
// objects and MPI_COMM_WORLD is the address of `ompi_mpi_comm_world`; the MPICH family's
// handles are 32-bit integers. One build therefore serves:
//   - built against Open MPI X.Y: Open MPI of the same major version X (Open MPI keeps the
//     C ABI within a major series, e.g. a 4.1 build runs on 4.0.x and 4.1.x); another major
//     version is refused, although Open MPI 5 promises to run 4.x applications: toporr
//     calls more of the library than most applications and is not tested across majors;
//   - built against MPICH (or any library of its ABI family: MPICH >= 3.1, Intel MPI >= 5,
//     MVAPICH2 >= 2, Cray MPICH >= 7, whose libmpi.so.12 / libmpich.so.12 are
//     interchangeable): every library of that family;
//   - built against neither (no OMPI_MAJOR_VERSION, no MPICH_NUMVERSION in mpi.h, e.g.
//     SimGrid SMPI): no claim, no check.
//
// The check runs once per process while libtoporr.so (and so libtoporr_pmpi.so, which
// depends on it) is loaded, before main() and before any MPI call: every loaded shared
// object that itself defines PMPI_Init is an MPI library, classified by symbols alone
// (Open MPI defines `ompi_mpi_comm_world`; a soname libmpi_abi* is the MPI Forum's standard
// ABI; any other is the MPICH family) and described by its own
// PMPI_Get_library_version, the one MPI call whose signature (char*, int*) every ABI shares
// and which MPI allows before MPI_Init. A library of another family than the build's, or
// an Open MPI of another major version, is a mismatch: two MPI libraries then share the
// process (libtoporr.so needs the one it was built for) and the program's handles reach
// toporr as the wrong types.
//
// Contract on mismatch: exactly one line on stderr, starting "toporr: error: MPI ABI
// mismatch:", naming the libtoporr file, the MPI it was built for, the MPI library running
// and what to do; then the process exits with status 1 (_exit: no destructor and no MPI
// call runs). The job is not continued without toporr because it cannot be made safe:
// libtoporr_pmpi.so's interceptors are compiled with one ABI's parameter types, and an
// MPICH build's `int` parameters cannot carry an Open MPI program's 64-bit handles to the
// library's own entry point (they arrive truncated), so forwarding every call untouched
// would corrupt handles in that direction. Without the check, both libraries are loaded
// and the first call toporr makes fails: an Open MPI build in an MPICH job passes Open MPI's
// MPI_ERRORS_RETURN to MPICH, which aborts the job ("Invalid errhandler"); an MPICH build in
// an Open MPI job passes an integer handle where Open MPI dereferences a pointer (SIGSEGV).
// A statically linked MPI library (in the executable) is not seen by the check.
#ifndef TOPORR_CLIENT_MPI_MPI_ABI_GUARD_H_
#define TOPORR_CLIENT_MPI_MPI_ABI_GUARD_H_

#include <string>
#include <vector>

namespace toporr::client::mpi {

enum class MpiFamily {
  kNone,      // no MPI library, or mpi.h names no family this build can check
  kOpenMpi,   // Open MPI's own ABI (pointer handles)
  kMpich,     // the MPICH ABI family (integer handles)
  kForumAbi,  // the MPI standard's ABI (libmpi_abi)
};

// One MPI library: the one a build was compiled for, or one loaded in the process.
struct MpiLibrary {
  MpiFamily family = MpiFamily::kNone;
  int major = -1;  // Open MPI's major version; -1 when unknown or not Open MPI
  int minor = -1;
  std::string path;     // the loaded file (empty for the build's)
  std::string version;  // first line of PMPI_Get_library_version, or the mpi.h version
};

// What this translation unit's mpi.h declares (its family and version macros).
MpiLibrary BuiltFor();

// The MPI libraries loaded in this process, in load order.
std::vector<MpiLibrary> LoadedMpiLibraries();

// Parses "Open MPI v4.1.4, package: ..." into major 4 and minor 1; false when `version` is
// not an Open MPI version string.
bool ParseOpenMpiVersion(const std::string& version, int* major, int* minor);

// Empty when every library in `loaded` is one `built` serves; else the one-line message of
// the contract above (without the trailing newline). `self` names the libtoporr file.
std::string AbiMismatch(const MpiLibrary& built, const std::vector<MpiLibrary>& loaded,
                        const std::string& self);

}  // namespace toporr::client::mpi

#endif  // TOPORR_CLIENT_MPI_MPI_ABI_GUARD_H_
