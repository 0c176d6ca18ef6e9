#include "common/test_data.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace toporr::testing {
namespace {
[[noreturn]] void Die(const std::string& msg) {
  std::fprintf(stderr, "test_data: %s\n", msg.c_str());
  std::abort();
}
}  // namespace

std::string SharedFabricsDir() {
  const char* shared = std::getenv("TOPORR_SHARED_DIR");
  if (shared == nullptr || *shared == '\0') {
    Die("TOPORR_SHARED_DIR is unset; run tests with "
        "--test_env=TOPORR_SHARED_DIR=/path/to/shared (the README's test command does)");
  }
  std::string dir = std::string(shared) + "/fabrics";
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) Die(dir + " is not a directory");
  return dir;
}

std::string SharedFabric(const std::string& name) { return SharedFabricsDir() + "/" + name; }

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Die("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ReadSharedFabric(const std::string& name) {
  std::string raw = ReadFileOrDie(SharedFabric(name));
  std::string out;
  out.reserve(raw.size());
  size_t pos = 0;
  while (pos < raw.size()) {
    size_t nl = raw.find('\n', pos);
    size_t end = nl == std::string::npos ? raw.size() : nl + 1;
    if (raw.compare(pos, 2, "#@") != 0) out.append(raw, pos, end - pos);
    pos = end;
  }
  return out;
}

std::string MakeTempDir(const std::string& tag) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/" + tag + ".XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) Die("mkdtemp failed for " + tmpl);
  return tmpl;
}

}  // namespace toporr::testing
