#include "client/costs/cost_file.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>

#include "absl/strings/str_cat.h"

namespace toporr::client {
namespace {

constexpr std::string_view kMagic = "TOPORRC1";
constexpr std::string_view kMagicRoutes = "TOPORRC2";

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

// The magic: TOPORRC1, or TOPORRC2 (*with_routes).
absl::Status CheckMagic(Reader& in, bool* with_routes) {
  const char* magic = nullptr;
  if (auto s = in.Take(kMagic.size(), "the header", &magic); !s.ok()) return s;
  const std::string_view m(magic, kMagic.size());
  if (m != kMagic && m != kMagicRoutes) {
    return in.Error("not a toporr cost file (bad magic; expected TOPORRC1 or TOPORRC2)");
  }
  *with_routes = m == kMagicRoutes;
  return absl::OkStatus();
}

// Route `cell` (= i * n + j) of a routes section: links[begin, end) must be empty exactly on
// the diagonal and name links below `num_links`. `error` formats the refusal.
using ErrorFn = std::function<absl::Status(std::string_view)>;

absl::Status CheckRoute(uint64_t n, uint64_t cell, uint64_t begin, uint64_t end,
                        const uint32_t* links, uint32_t num_links, const ErrorFn& error) {
  const uint64_t i = cell / n, j = cell % n;
  if (end < begin) return error(absl::StrCat("route offsets decrease at ", i, " -> ", j));
  if ((i == j) != (begin == end)) {
    return error(i == j ? absl::StrCat("a route from host ", i, " to itself")
                        : absl::StrCat("no route from host ", i, " to host ", j));
  }
  for (uint64_t k = begin; k < end; ++k) {
    if (links[k - begin] >= num_links) {
      return error(absl::StrCat("route ", i, " -> ", j, " names link ", links[k - begin], " of ",
                                num_links));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckRates(const std::vector<float>& gbps, const ErrorFn& error) {
  for (size_t l = 0; l < gbps.size(); ++l) {
    if (!(gbps[l] > 0)) return error(absl::StrCat("link ", l, " has rate ", gbps[l]));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CostFileHeader> ReadCostFileHeader(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the cost file"));
  const uint64_t size = static_cast<uint64_t>(in.tellg());
  std::string fixed(std::min<uint64_t>(size, kFixedHeader + sizeof(uint64_t)), '\0');
  if (auto s = ReadAt(in, path, 0, fixed.size(), fixed.data()); !s.ok()) return s;
  Reader head(fixed, path);
  bool with_routes = false;
  if (auto s = CheckMagic(head, &with_routes); !s.ok()) return s;
  CostFileHeader h;
  uint32_t n = 0;
  uint64_t routes_bytes = 0;
  if (auto s = head.Get("the snapshot id", &h.snapshot_id); !s.ok()) return s;
  if (auto s = head.Get("the host count", &n); !s.ok()) return s;
  if (with_routes) {
    if (auto s = head.Get("the routes size", &routes_bytes); !s.ok()) return s;
  }
  const uint64_t header = with_routes ? kFixedHeader + sizeof(uint64_t) : kFixedHeader;
  const uint64_t matrices = static_cast<uint64_t>(n) * n * kCellBytes;
  if (size < header || routes_bytes > size - header || matrices > size - header - routes_bytes ||
      size - header - routes_bytes - matrices < 4ull * n) {
    return head.Error(absl::StrCat("truncated: ", n, " hosts announced in ", size, " bytes"));
  }
  // The names fill exactly what the matrices and the routes leave.
  std::string names(size - header - matrices - routes_bytes, '\0');
  if (auto s = ReadAt(in, path, header, names.size(), names.data()); !s.ok()) return s;
  Reader in_names(names, path);
  if (auto s = ReadHosts(in_names, n, &h.hosts); !s.ok()) return s;
  if (in_names.remaining() != 0) {
    return in_names.Error("the host names and matrices do not add up to the file size");
  }
  h.matrices_offset = header + names.size();
  if (with_routes) {
    h.routes_offset = h.matrices_offset + matrices;
    const uint64_t cells = static_cast<uint64_t>(n) * n;
    if (routes_bytes < sizeof(uint32_t) + (cells + 1) * sizeof(uint64_t)) {
      return head.Error(absl::StrCat("routes section of ", routes_bytes, " bytes is truncated"));
    }
    std::string count(sizeof(uint32_t), '\0');
    if (auto s = ReadAt(in, path, h.routes_offset, count.size(), count.data()); !s.ok()) return s;
    std::memcpy(&h.num_links, count.data(), sizeof(uint32_t));
    const uint64_t fixed_routes =
        sizeof(uint32_t) + h.num_links * uint64_t{sizeof(float)} + (cells + 1) * sizeof(uint64_t);
    if (fixed_routes > routes_bytes || (routes_bytes - fixed_routes) % sizeof(uint32_t) != 0) {
      return head.Error(absl::StrCat("routes section of ", routes_bytes, " bytes does not fit ",
                                     h.num_links, " links and ", n, " hosts"));
    }
  }
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

absl::Status ReadCostFileRouteRow(const std::string& path, const CostFileHeader& header, int row,
                                  const std::vector<int>& columns, mapping::RouteRow* out) {
  const uint64_t n = header.hosts.size();
  if (header.routes_offset == 0) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": the cost file has no routes"));
  }
  if (row < 0 || static_cast<uint64_t>(row) >= n) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no row ", row));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the cost file"));
  const ErrorFn error = [&](std::string_view what) {
    return absl::DataLossError(absl::StrCat(path, ": ", std::string(what)));
  };
  const uint64_t rates_at = header.routes_offset + sizeof(uint32_t);
  const uint64_t offsets_at = rates_at + header.num_links * uint64_t{sizeof(float)};
  std::vector<float> rates(header.num_links);
  std::vector<uint64_t> offsets(n + 1);
  if (auto s = ReadAt(in, path, rates_at, rates.size() * sizeof(float),
                      reinterpret_cast<char*>(rates.data()));
      !s.ok()) {
    return s;
  }
  if (auto s = CheckRates(rates, error); !s.ok()) return s;
  if (auto s = ReadAt(in, path, offsets_at + row * n * sizeof(uint64_t),
                      offsets.size() * sizeof(uint64_t), reinterpret_cast<char*>(offsets.data()));
      !s.ok()) {
    return s;
  }
  const uint64_t links_at = offsets_at + (n * n + 1) * sizeof(uint64_t);
  if (offsets[n] < offsets[0] || offsets[n] - offsets[0] > (1ull << 32)) {
    return error(absl::StrCat("route offsets of host ", row, " decrease or are out of range"));
  }
  std::vector<uint32_t> links(offsets[n] - offsets[0]);
  if (auto s = ReadAt(in, path, links_at + offsets[0] * sizeof(uint32_t),
                      links.size() * sizeof(uint32_t), reinterpret_cast<char*>(links.data()));
      !s.ok()) {
    return s;
  }
  for (uint64_t j = 0; j < n; ++j) {
    if (auto s = CheckRoute(n, row * n + j, offsets[j], offsets[j + 1],
                            links.data() + (offsets[j] - offsets[0]), header.num_links, error);
        !s.ok()) {
      return s;
    }
  }
  out->offsets.assign(1, 0);
  out->links.clear();
  out->link_ids.clear();
  out->link_gbps.clear();
  std::vector<char> named(header.num_links, 0);
  for (int column : columns) {
    if (column < 0 || static_cast<uint64_t>(column) >= n) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": no column ", column));
    }
    for (uint64_t k = offsets[column]; k < offsets[column + 1]; ++k) {
      const uint32_t link = links[k - offsets[0]];
      out->links.push_back(link);
      if (!named[link]) {
        named[link] = 1;
        out->link_ids.push_back(link);
        out->link_gbps.push_back(rates[link]);
      }
    }
    out->offsets.push_back(static_cast<uint32_t>(out->links.size()));
  }
  return absl::OkStatus();
}

CostFileRoutes CostFileRoutesOf(const mapping::RouteSource& routes, int n) {
  CostFileRoutes out;
  out.link_gbps.resize(routes.num_directed_links());
  for (int l = 0; l < routes.num_directed_links(); ++l) {
    out.link_gbps[l] = static_cast<float>(routes.link_gbps(l));
  }
  out.offsets.reserve(static_cast<size_t>(n) * n + 1);
  out.offsets.push_back(0);
  std::vector<int32_t> route;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      route.clear();
      if (a != b) routes.Route(a, b, &route);
      out.links.insert(out.links.end(), route.begin(), route.end());
      out.offsets.push_back(out.links.size());
    }
  }
  return out;
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
  const CostFileRoutes& r = file.routes;
  uint64_t routes_bytes = 0;
  if (!r.empty()) {
    if (r.offsets.size() != n * n + 1 || r.offsets.front() != 0 ||
        r.offsets.back() != r.links.size()) {
      return absl::InvalidArgumentError(absl::StrCat("cost file: ", n, " hosts but ",
                                                     r.offsets.size(), " route offsets for ",
                                                     r.links.size(), " links"));
    }
    const ErrorFn error = [](std::string_view what) {
      return absl::InvalidArgumentError(absl::StrCat("cost file: ", std::string(what)));
    };
    const auto links = static_cast<uint32_t>(r.link_gbps.size());
    if (auto s = CheckRates(r.link_gbps, error); !s.ok()) return s;
    for (uint64_t cell = 0; cell < n * n; ++cell) {
      if (auto s = CheckRoute(n, cell, r.offsets[cell], r.offsets[cell + 1],
                              r.links.data() + r.offsets[cell], links, error);
          !s.ok()) {
        return s;
      }
    }
    routes_bytes = sizeof(uint32_t) + r.link_gbps.size() * sizeof(float) +
                   r.offsets.size() * sizeof(uint64_t) + r.links.size() * sizeof(uint32_t);
  }
  std::string out(r.empty() ? kMagic : kMagicRoutes);
  Put<int64_t>(&out, file.snapshot_id);
  Put<uint32_t>(&out, static_cast<uint32_t>(n));
  if (!r.empty()) Put<uint64_t>(&out, routes_bytes);
  for (const std::string& host : file.hosts) {
    Put<uint32_t>(&out, static_cast<uint32_t>(host.size()));
    out.append(host);
  }
  PutArray(&out, c.hops);
  PutArray(&out, c.bottleneck_gbps);
  PutArray(&out, c.latency_ns);
  if (!r.empty()) {
    Put<uint32_t>(&out, static_cast<uint32_t>(r.link_gbps.size()));
    PutArray(&out, r.link_gbps);
    PutArray(&out, r.offsets);
    PutArray(&out, r.links);
  }
  return out;
}

absl::StatusOr<CostFile> DecodeCostFile(std::string_view bytes, std::string_view file_name) {
  Reader in(bytes, file_name);
  bool with_routes = false;
  if (auto s = CheckMagic(in, &with_routes); !s.ok()) return s;
  CostFile file;
  uint32_t n = 0;
  uint64_t routes_bytes = 0;
  if (auto s = in.Get("the snapshot id", &file.snapshot_id); !s.ok()) return s;
  if (auto s = in.Get("the host count", &n); !s.ok()) return s;
  if (with_routes) {
    if (auto s = in.Get("the routes size", &routes_bytes); !s.ok()) return s;
  }
  // Every host needs at least its 4-byte length: reject absurd counts before allocating.
  if (n > in.remaining() / 4) return in.Error(absl::StrCat("truncated: ", n, " hosts announced"));
  if (auto s = ReadHosts(in, n, &file.hosts); !s.ok()) return s;
  const size_t cells = static_cast<size_t>(n) * n;
  file.costs.n = static_cast<int>(n);
  if (auto s = in.GetArray("the hops matrix", cells, &file.costs.hops); !s.ok()) return s;
  if (auto s = in.GetArray("the bottleneck matrix", cells, &file.costs.bottleneck_gbps); !s.ok())
    return s;
  if (auto s = in.GetArray("the latency matrix", cells, &file.costs.latency_ns); !s.ok()) return s;
  if (with_routes) {
    if (in.remaining() != routes_bytes) {
      return in.Error(
          absl::StrCat(in.remaining(), " bytes of routes, the header says ", routes_bytes));
    }
    CostFileRoutes& r = file.routes;
    uint32_t num_links = 0;
    if (auto s = in.Get("the link count", &num_links); !s.ok()) return s;
    if (auto s = in.GetArray("the link rates", num_links, &r.link_gbps); !s.ok()) return s;
    if (auto s = in.GetArray("the route offsets", cells + 1, &r.offsets); !s.ok()) return s;
    if (r.offsets[0] != 0 || r.offsets[cells] != in.remaining() / sizeof(uint32_t) ||
        in.remaining() % sizeof(uint32_t) != 0) {
      return in.Error(absl::StrCat("the route offsets end at ", r.offsets[cells], " but ",
                                   in.remaining(), " bytes of links follow"));
    }
    if (auto s = in.GetArray("the route links", r.offsets[cells], &r.links); !s.ok()) return s;
    const ErrorFn error = [&](std::string_view what) { return in.Error(what); };
    if (auto s = CheckRates(r.link_gbps, error); !s.ok()) return s;
    for (uint64_t cell = 0; cell < cells; ++cell) {
      const uint64_t begin = r.offsets[cell], end = r.offsets[cell + 1];
      if (end < begin || end > r.links.size()) {
        return in.Error(absl::StrCat("route offsets decrease at ", cell / n, " -> ", cell % n));
      }
      if (auto s = CheckRoute(n, cell, begin, end, r.links.data() + begin, num_links, error);
          !s.ok()) {
        return s;
      }
    }
  }
  if (in.remaining() != 0) {
    return in.Error(absl::StrCat(in.remaining(), " bytes after the latency matrix"));
  }
  return file;
}

}  // namespace toporr::client
