// A main() for the harnesses without libFuzzer (the gcc build of the normal test suite): runs
// LLVMFuzzerTestOneInput once on each file named on the command line, as a libFuzzer binary
// does when given files. Exits 2 when a file cannot be read; a broken invariant aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::fprintf(stderr, "input %s\n", argv[i]);
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      return 2;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Exactly `size` bytes on the heap, no terminating NUL: the buffer libFuzzer passes.
    auto data = std::make_unique<uint8_t[]>(bytes.size());
    std::memcpy(data.get(), bytes.data(), bytes.size());
    LLVMFuzzerTestOneInput(data.get(), bytes.size());
  }
  std::printf("replayed %d inputs\n", argc - 1);
  return 0;
}
