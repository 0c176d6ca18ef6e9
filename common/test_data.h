// Locates test inputs: ../shared/fabrics (path in $TOPORR_SHARED_DIR) and the repo's own
// generated fabrics. Tests only.
#ifndef TOPORR_COMMON_TEST_DATA_H_
#define TOPORR_COMMON_TEST_DATA_H_

#include <string>

#include "absl/status/statusor.h"

namespace toporr::testing {

// Directory holding the shared samples (`<shared>/fabrics`). Aborts the test with a clear
// message when $TOPORR_SHARED_DIR is unset or wrong.
std::string SharedFabricsDir();

// Path of one shared sample, e.g. SharedFabric("ibnetdiscover_fattree_default.txt").
std::string SharedFabric(const std::string& name);

// Reads a shared sample with its `#@` provenance lines removed (the tool's exact output).
std::string ReadSharedFabric(const std::string& name);

// Reads any file whole; aborts on error.
std::string ReadFileOrDie(const std::string& path);

// A fresh empty directory under $TEST_TMPDIR (or /tmp) for this test.
std::string MakeTempDir(const std::string& tag);

}  // namespace toporr::testing

#endif  // TOPORR_COMMON_TEST_DATA_H_
