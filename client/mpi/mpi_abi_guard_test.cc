// The ABI guard's decision on fabricated libraries, and its view of this test process (built
// against one MPI library, which is the only one loaded).
#include "client/mpi/mpi_abi_guard.h"

#include <mpi.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace toporr::client::mpi {
namespace {

MpiLibrary OpenMpi(int major, int minor) {
  MpiLibrary lib;
  lib.family = MpiFamily::kOpenMpi;
  lib.major = major;
  lib.minor = minor;
  lib.version = "Open MPI v" + std::to_string(major) + "." + std::to_string(minor) + ".0";
  lib.path = "/opt/ompi/lib/libmpi.so.40";
  return lib;
}

MpiLibrary Mpich() {
  MpiLibrary lib;
  lib.family = MpiFamily::kMpich;
  lib.version = "MPICH Version: 4.0.2";
  lib.path = "/usr/lib/libmpich.so.12";
  return lib;
}

TEST(ParseOpenMpiVersion, ReadsMajorAndMinor) {
  int major = -1, minor = -1;
  EXPECT_TRUE(ParseOpenMpiVersion("Open MPI v4.1.4", &major, &minor));
  EXPECT_EQ(major, 4);
  EXPECT_EQ(minor, 1);
  EXPECT_FALSE(ParseOpenMpiVersion("MPICH Version: 4.0.2", &major, &minor));
  EXPECT_FALSE(ParseOpenMpiVersion("Open MPI vX", &major, &minor));
}

TEST(AbiMismatch, SameFamilyAndSeriesIsServed) {
  EXPECT_EQ(AbiMismatch(OpenMpi(4, 1), {OpenMpi(4, 0)}, "libtoporr.so"), "");
  EXPECT_EQ(AbiMismatch(Mpich(), {Mpich()}, "libtoporr.so"), "");
  // An Open MPI whose version string did not parse is served.
  EXPECT_EQ(AbiMismatch(OpenMpi(4, 1), {OpenMpi(-1, -1)}, "libtoporr.so"), "");
}

TEST(AbiMismatch, OtherFamilyIsOneLineNamingBoth) {
  const std::string line =
      AbiMismatch(OpenMpi(4, 1), {OpenMpi(4, 1), Mpich()}, "/opt/toporr/lib/libtoporr.so");
  EXPECT_EQ(line.rfind("toporr: error: MPI ABI mismatch: /opt/toporr/lib/libtoporr.so", 0), 0u);
  EXPECT_NE(line.find("built for Open MPI v4.1.0 (Open MPI 4.x ABI)"), std::string::npos);
  EXPECT_NE(line.find("runs MPICH Version: 4.0.2 (MPICH ABI family) from /usr/lib/libmpich.so.12"),
            std::string::npos);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NE(AbiMismatch(Mpich(), {OpenMpi(4, 1)}, "libtoporr.so"), "");
}

TEST(AbiMismatch, OtherOpenMpiMajorIsRefused) {
  EXPECT_NE(AbiMismatch(OpenMpi(4, 1), {OpenMpi(5, 0)}, "libtoporr.so"), "");
}

TEST(Guard, ThisProcessRunsTheMpiItWasBuiltFor) {
  const MpiLibrary built = BuiltFor();
  const std::vector<MpiLibrary> loaded = LoadedMpiLibraries();
  ASSERT_EQ(loaded.size(), 1u);
#ifdef OMPI_MAJOR_VERSION
  EXPECT_EQ(built.family, MpiFamily::kOpenMpi);
  EXPECT_EQ(built.major, OMPI_MAJOR_VERSION);
  EXPECT_EQ(loaded[0].family, MpiFamily::kOpenMpi);
  EXPECT_EQ(loaded[0].major, OMPI_MAJOR_VERSION);
  EXPECT_NE(loaded[0].path.find("libmpi.so"), std::string::npos);
#else
  EXPECT_EQ(built.family, MpiFamily::kMpich);
  EXPECT_EQ(loaded[0].family, MpiFamily::kMpich);
  EXPECT_NE(loaded[0].path.find("libmpich.so"), std::string::npos);
#endif
  EXPECT_EQ(AbiMismatch(built, loaded, "libtoporr.so"), "");
}

}  // namespace
}  // namespace toporr::client::mpi
