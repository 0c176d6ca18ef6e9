#include "bench/measure.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace toporr::bench {

double PeakRssMb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // KiB on Linux
}

double CurrentRssMb() {
  std::ifstream statm("/proc/self/statm");
  double size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return -1;
  return resident_pages * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

std::string ReadFileOrExit(const std::string& path) {
  // Straight into a string of the file's size: a stringstream would hold the text twice at
  // the peak, and peak RSS is what the benchmarks report.
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::string text;
  if (in) {
    text.resize(static_cast<size_t>(in.tellg()));
    in.seekg(0);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
  }
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  return text;
}

size_t LineScan(std::string_view text) {
  size_t lines = 0;
  unsigned sum = 0;
  for (size_t pos = 0; pos < text.size();) {
    const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
    const size_t end = nl ? static_cast<const char*>(nl) - text.data() : text.size();
    for (size_t i = pos; i < end; ++i) sum += static_cast<unsigned char>(text[i]);
    ++lines;
    pos = end + 1;
  }
  return lines + sum;
}

double Percentile(double* first, double* last, double q) {
  if (first == last) return 0;
  std::sort(first, last);
  const size_t n = static_cast<size_t>(last - first);
  return first[static_cast<size_t>(q * static_cast<double>(n - 1))];
}

}  // namespace toporr::bench
