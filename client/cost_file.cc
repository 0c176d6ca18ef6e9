#include "client/cost_file.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"

namespace toporr::client {
namespace {

constexpr std::string_view kMagic = "TOPORRC1";

template <typename T>
void Put(std::string* out, T value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

template <typename T>
void PutArray(std::string* out, const std::vector<T>& values) {
  out->append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// Reads fixed-size values off the front of the input; every read is bounds-checked.
class Reader {
 public:
  Reader(std::string_view bytes, std::string_view file_name)
      : rest_(bytes), file_name_(file_name) {}

  absl::Status Error(std::string_view what) const {
    return absl::DataLossError(absl::StrCat(std::string(file_name_), ": ", std::string(what)));
  }

  absl::Status Take(size_t size, std::string_view what, const char** data) {
    if (rest_.size() < size) return Error(absl::StrCat("truncated in ", std::string(what)));
    *data = rest_.data();
    rest_.remove_prefix(size);
    return absl::OkStatus();
  }

  template <typename T>
  absl::Status Get(std::string_view what, T* value) {
    const char* data = nullptr;
    if (auto s = Take(sizeof(T), what, &data); !s.ok()) return s;
    std::memcpy(value, data, sizeof(T));
    return absl::OkStatus();
  }

  template <typename T>
  absl::Status GetArray(std::string_view what, size_t count, std::vector<T>* values) {
    const char* data = nullptr;
    if (count > rest_.size() / sizeof(T))
      return Error(absl::StrCat("truncated in ", std::string(what)));
    if (auto s = Take(count * sizeof(T), what, &data); !s.ok()) return s;
    values->resize(count);
    std::memcpy(values->data(), data, count * sizeof(T));
    return absl::OkStatus();
  }

  size_t remaining() const { return rest_.size(); }

 private:
  std::string_view rest_;
  std::string_view file_name_;
};

// The n length-prefixed host names: non-empty, distinct.
absl::Status ReadHosts(Reader& in, uint32_t n, std::vector<std::string>* hosts) {
  std::set<std::string_view> seen;
  hosts->reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t length = 0;
    const char* name = nullptr;
    if (auto s = in.Get("a host name length", &length); !s.ok()) return s;
    if (auto s = in.Take(length, "a host name", &name); !s.ok()) return s;
    std::string_view host(name, length);
    if (host.empty()) return in.Error(absl::StrCat("host ", i, " has an empty name"));
    if (!seen.insert(host).second)
      return in.Error(absl::StrCat("duplicate host '", std::string(host), "'"));
    hosts->emplace_back(host);
  }
  return absl::OkStatus();
}

constexpr size_t kFixedHeader = 8 + sizeof(int64_t) + sizeof(uint32_t);
constexpr size_t kCellBytes = sizeof(int32_t) + 2 * sizeof(float);

// pread of exactly `size` bytes at `offset`.
absl::Status ReadAt(std::ifstream& in, const std::string& path, uint64_t offset, size_t size,
                    char* out) {
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(out, static_cast<std::streamsize>(size));
  if (!in)
    return absl::DataLossError(absl::StrCat(path, ": cannot read ", size, " bytes at ", offset));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CostFileHeader> ReadCostFileHeader(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the cost file"));
  const uint64_t size = static_cast<uint64_t>(in.tellg());
  std::string fixed(std::min<uint64_t>(size, kFixedHeader), '\0');
  if (auto s = ReadAt(in, path, 0, fixed.size(), fixed.data()); !s.ok()) return s;
  Reader head(fixed, path);
  const char* magic = nullptr;
  if (auto s = head.Take(kMagic.size(), "the header", &magic); !s.ok()) return s;
  if (std::string_view(magic, kMagic.size()) != kMagic) {
    return head.Error("not a toporr cost file (bad magic; expected TOPORRC1)");
  }
  CostFileHeader h;
  uint32_t n = 0;
  if (auto s = head.Get("the snapshot id", &h.snapshot_id); !s.ok()) return s;
  if (auto s = head.Get("the host count", &n); !s.ok()) return s;
  const uint64_t matrices = static_cast<uint64_t>(n) * n * kCellBytes;
  if (matrices > size - kFixedHeader || size - kFixedHeader - matrices < 4ull * n) {
    return head.Error(absl::StrCat("truncated: ", n, " hosts announced in ", size, " bytes"));
  }
  // The names fill exactly what the matrices leave.
  std::string names(size - kFixedHeader - matrices, '\0');
  if (auto s = ReadAt(in, path, kFixedHeader, names.size(), names.data()); !s.ok()) return s;
  Reader in_names(names, path);
  if (auto s = ReadHosts(in_names, n, &h.hosts); !s.ok()) return s;
  if (in_names.remaining() != 0) {
    return in_names.Error("the host names and matrices do not add up to the file size");
  }
  h.matrices_offset = kFixedHeader + names.size();
  return h;
}

absl::Status ReadCostFileRow(const std::string& path, const CostFileHeader& header, int row,
                             std::vector<float>* bottleneck_gbps, std::vector<float>* latency_ns) {
  const uint64_t n = header.hosts.size();
  if (row < 0 || static_cast<uint64_t>(row) >= n) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no row ", row));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the cost file"));
  const uint64_t gbps_at =
      header.matrices_offset + n * n * sizeof(int32_t) + row * n * sizeof(float);
  const uint64_t latency_at = gbps_at + n * n * sizeof(float);
  bottleneck_gbps->resize(n);
  latency_ns->resize(n);
  if (auto s = ReadAt(in, path, gbps_at, n * sizeof(float),
                      reinterpret_cast<char*>(bottleneck_gbps->data()));
      !s.ok()) {
    return s;
  }
  return ReadAt(in, path, latency_at, n * sizeof(float),
                reinterpret_cast<char*>(latency_ns->data()));
}

absl::StatusOr<std::string> EncodeCostFile(const CostFile& file) {
  const size_t n = file.hosts.size();
  const CostMatrixArrays& c = file.costs;
  if (static_cast<size_t>(c.n) != n || c.hops.size() != n * n ||
      c.bottleneck_gbps.size() != n * n || c.latency_ns.size() != n * n) {
    return absl::InvalidArgumentError(
        absl::StrCat("cost file: ", n, " hosts but a matrix of n=", c.n, " with ", c.hops.size(),
                     "/", c.bottleneck_gbps.size(), "/", c.latency_ns.size(), " elements"));
  }
  std::string out(kMagic);
  Put<int64_t>(&out, file.snapshot_id);
  Put<uint32_t>(&out, static_cast<uint32_t>(n));
  for (const std::string& host : file.hosts) {
    Put<uint32_t>(&out, static_cast<uint32_t>(host.size()));
    out.append(host);
  }
  PutArray(&out, c.hops);
  PutArray(&out, c.bottleneck_gbps);
  PutArray(&out, c.latency_ns);
  return out;
}

absl::StatusOr<CostFile> DecodeCostFile(std::string_view bytes, std::string_view file_name) {
  Reader in(bytes, file_name);
  const char* magic = nullptr;
  if (auto s = in.Take(kMagic.size(), "the header", &magic); !s.ok()) return s;
  if (std::string_view(magic, kMagic.size()) != kMagic) {
    return in.Error("not a toporr cost file (bad magic; expected TOPORRC1)");
  }
  CostFile file;
  uint32_t n = 0;
  if (auto s = in.Get("the snapshot id", &file.snapshot_id); !s.ok()) return s;
  if (auto s = in.Get("the host count", &n); !s.ok()) return s;
  // Every host needs at least its 4-byte length: reject absurd counts before allocating.
  if (n > in.remaining() / 4) return in.Error(absl::StrCat("truncated: ", n, " hosts announced"));
  if (auto s = ReadHosts(in, n, &file.hosts); !s.ok()) return s;
  const size_t cells = static_cast<size_t>(n) * n;
  file.costs.n = static_cast<int>(n);
  if (auto s = in.GetArray("the hops matrix", cells, &file.costs.hops); !s.ok()) return s;
  if (auto s = in.GetArray("the bottleneck matrix", cells, &file.costs.bottleneck_gbps); !s.ok())
    return s;
  if (auto s = in.GetArray("the latency matrix", cells, &file.costs.latency_ns); !s.ok()) return s;
  if (in.remaining() != 0) {
    return in.Error(absl::StrCat(in.remaining(), " bytes after the latency matrix"));
  }
  return file;
}

}  // namespace toporr::client
