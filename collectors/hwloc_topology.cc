#include "collectors/hwloc_topology.h"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace toporr::collectors {
namespace {

struct BitmapFree {
  void operator()(hwloc_bitmap_t b) const { hwloc_bitmap_free(b); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapFree>;

Bitmap NewBitmap() { return Bitmap(hwloc_bitmap_alloc()); }

std::string ListString(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set) < 0) return "?";
  std::string out(text);
  std::free(text);
  return out;
}

std::string_view Trim(std::string_view s) {
  const char* ws = " \t\r\n";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

int CountOf(hwloc_topology_t topology, hwloc_obj_type_t type) {
  int n = hwloc_get_nbobjs_by_type(topology, type);
  return n < 0 ? 0 : n;  // -1: several depths, which hwloc 2 never reports for these types
}

// The NUMA node a set of CPUs is local to: among `cpu_numa`, the one with the fewest CPUs
// containing the set, lowest logical index on ties.
hwloc_obj_t LocalNuma(const std::vector<hwloc_obj_t>& candidates, hwloc_const_cpuset_t set) {
  hwloc_obj_t best = nullptr;
  int best_weight = 0;
  for (hwloc_obj_t numa : candidates) {
    if (!hwloc_bitmap_isincluded(set, numa->cpuset)) continue;
    int weight = hwloc_bitmap_weight(numa->cpuset);
    if (best == nullptr || weight < best_weight ||
        (weight == best_weight && numa->logical_index < best->logical_index)) {
      best = numa;
      best_weight = weight;
    }
  }
  return best;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open hwloc XML file ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

HwlocSource HwlocSource::ThisMachine() { return HwlocSource(); }

HwlocSource HwlocSource::XmlFile(std::string path) {
  return HwlocSource{Kind::kXmlFile, std::move(path)};
}

HwlocSource HwlocSource::XmlString(std::string xml) {
  return HwlocSource{Kind::kXmlString, std::move(xml)};
}

HwlocSource HwlocSource::Synthetic(std::string description) {
  return HwlocSource{Kind::kSynthetic, std::move(description)};
}

std::string HwlocSource::Describe() const {
  switch (kind) {
    case Kind::kThisMachine:
      return "this machine";
    case Kind::kXmlFile:
      return absl::StrCat("hwloc XML file ", text);
    case Kind::kXmlString:
      return absl::StrCat("hwloc XML string (", text.size(), " bytes)");
    case Kind::kSynthetic:
      return absl::StrCat("synthetic topology '", text, "'");
  }
  return "unknown hwloc source";
}

std::string HwlocShape::Name() const {
  std::string name =
      absl::StrCat(packages, "pack-", numa_nodes, "numa-", l3_caches, "l3-", cores, "core");
  if (cores > 0 && pus % cores == 0) {
    if (pus != cores) absl::StrAppend(&name, "-smt", pus / cores);
  } else {
    absl::StrAppend(&name, "-", pus, "pu");
  }
  return name;
}

absl::StatusOr<std::unique_ptr<HwlocTopology>> HwlocTopology::Create(Options options) {
  HwlocSource& source = options.source;
  std::string xml;
  if (source.kind == HwlocSource::Kind::kXmlFile) {
    ASSIGN_OR_RETURN(xml, ReadFile(source.text));
  } else if (source.kind == HwlocSource::Kind::kXmlString) {
    xml = source.text;
  }

  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) {
    return absl::InternalError(absl::StrCat("hwloc_topology_init failed: ", std::strerror(errno)));
  }
  std::unique_ptr<HwlocTopology> result(new HwlocTopology(std::move(source), topology));

  switch (result->source_.kind) {
    case HwlocSource::Kind::kThisMachine:
      break;
    case HwlocSource::Kind::kXmlFile:
    case HwlocSource::Kind::kXmlString:
      // The size hwloc expects includes the terminating NUL (what its own export returns).
      if (hwloc_topology_set_xmlbuffer(topology, xml.c_str(), static_cast<int>(xml.size() + 1)) !=
          0) {
        return absl::InvalidArgumentError(
            absl::StrCat(result->source_.Describe(), ": hwloc cannot read it as topology XML (",
                         std::strerror(errno), "); check it with `lstopo -i <file>`"));
      }
      break;
    case HwlocSource::Kind::kSynthetic:
      if (hwloc_topology_set_synthetic(topology, result->source_.text.c_str()) != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            result->source_.Describe(),
            ": not a valid hwloc synthetic description (expected e.g. "
            "\"pack:2 numa:2 l3:1 core:4 pu:2\"; `lstopo -i '<description>'` explains why)"));
      }
      break;
  }
  if (hwloc_topology_load(topology) != 0) {
    absl::StatusCode code = result->source_.kind == HwlocSource::Kind::kThisMachine
                                ? absl::StatusCode::kInternal
                                : absl::StatusCode::kInvalidArgument;
    return absl::Status(code, absl::StrCat("hwloc cannot load ", result->source_.Describe(), ": ",
                                           std::strerror(errno)));
  }

  // The CPU NUMA nodes: the local node of at least one PU.
  std::vector<hwloc_obj_t> all_numa;
  for (hwloc_obj_t numa = nullptr;
       (numa = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, numa)) != nullptr;) {
    if (numa->cpuset != nullptr && !hwloc_bitmap_iszero(numa->cpuset)) all_numa.push_back(numa);
  }
  std::vector<bool> is_local(all_numa.size(), false);
  for (hwloc_obj_t pu = nullptr;
       (pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, pu)) != nullptr;) {
    hwloc_obj_t local = LocalNuma(all_numa, pu->cpuset);
    for (size_t i = 0; i < all_numa.size(); ++i) {
      if (all_numa[i] == local) is_local[i] = true;
    }
  }
  for (size_t i = 0; i < all_numa.size(); ++i) {
    if (is_local[i]) result->cpu_numa_.push_back(all_numa[i]);
  }
  return result;
}

HwlocTopology::HwlocTopology(HwlocSource source, hwloc_topology_t topology)
    : source_(std::move(source)), topology_(topology) {}

HwlocTopology::~HwlocTopology() { hwloc_topology_destroy(topology_); }

bool HwlocTopology::IsThisMachine() const { return hwloc_topology_is_thissystem(topology_) != 0; }

HwlocShape HwlocTopology::Shape() const {
  HwlocShape shape;
  shape.packages = CountOf(topology_, HWLOC_OBJ_PACKAGE);
  shape.numa_nodes = CountOf(topology_, HWLOC_OBJ_NUMANODE);
  shape.l3_caches = CountOf(topology_, HWLOC_OBJ_L3CACHE);
  shape.cores = CountOf(topology_, HWLOC_OBJ_CORE);
  shape.pus = CountOf(topology_, HWLOC_OBJ_PU);
  return shape;
}

PuLocation HwlocTopology::LocateSet(hwloc_const_cpuset_t set) const {
  PuLocation location;
  for (hwloc_obj_t obj = hwloc_get_obj_covering_cpuset(topology_, set); obj != nullptr;
       obj = obj->parent) {
    auto index = static_cast<int32_t>(obj->logical_index);
    switch (obj->type) {
      case HWLOC_OBJ_CORE:
        location.core = index;
        break;
      case HWLOC_OBJ_L3CACHE:
        location.l3 = index;
        break;
      case HWLOC_OBJ_PACKAGE:
        location.package = index;
        break;
      default:
        break;
    }
  }
  if (hwloc_obj_t numa = LocalNuma(cpu_numa_, set); numa != nullptr) {
    location.numa = static_cast<int32_t>(numa->logical_index);
  }
  return location;
}

absl::StatusOr<PuLocation> HwlocTopology::LocatePu(unsigned index, PuIndex kind) const {
  hwloc_obj_t pu = kind == PuIndex::kOs ? hwloc_get_pu_obj_by_os_index(topology_, index)
                                        : hwloc_get_obj_by_type(topology_, HWLOC_OBJ_PU, index);
  if (pu == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(source_.Describe(), " has no PU with ",
                     kind == PuIndex::kOs ? "OS index P#" : "logical index L#", index, " (it has ",
                     Shape().pus, " PUs)"));
  }
  return LocateSet(pu->cpuset);
}

absl::StatusOr<PuLocation> HwlocTopology::LocateCpuset(std::string_view cpuset) const {
  std::string text(Trim(cpuset));
  Bitmap set = NewBitmap();
  bool hex = text.rfind("0x", 0) == 0;
  int rc = hex ? hwloc_bitmap_sscanf(set.get(), text.c_str())
               : hwloc_bitmap_list_sscanf(set.get(), text.c_str());
  if (text.empty() || rc != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cpuset '", text, "' is neither a PU list like \"0-3,16-19\" nor an hwloc bitmap like ",
        "\"0x0000000f\""));
  }
  if (hwloc_bitmap_weight(set.get()) <= 0) {  // -1: infinite ("0-"), 0: empty
    return absl::InvalidArgumentError(
        absl::StrCat("cpuset '", text, "' must name a finite, non-empty set of PUs"));
  }
  hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(topology_);
  if (!hwloc_bitmap_isincluded(set.get(), all)) {
    Bitmap extra = NewBitmap();
    hwloc_bitmap_andnot(extra.get(), set.get(), all);
    return absl::InvalidArgumentError(
        absl::StrCat("cpuset '", text, "' names PUs P#", ListString(extra.get()), " that ",
                     source_.Describe(), " does not have (it has P#", ListString(all), ")"));
  }
  return LocateSet(set.get());
}

absl::StatusOr<PuLocation> HwlocTopology::LocateThisProcess() const {
  if (!IsThisMachine()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the process binding refers to this machine, but the topology is ",
                     source_.Describe(), "; load HwlocSource::ThisMachine() instead"));
  }
  Bitmap set = NewBitmap();
  if (hwloc_get_cpubind(topology_, set.get(), HWLOC_CPUBIND_PROCESS) != 0) {
    return absl::UnavailableError(
        absl::StrCat("hwloc_get_cpubind(process) failed: ", std::strerror(errno)));
  }
  // The binding may name PUs that hwloc left out (offline, or outside this cgroup); they
  // cannot run the process anyway.
  hwloc_bitmap_and(set.get(), set.get(), hwloc_topology_get_topology_cpuset(topology_));
  if (hwloc_bitmap_iszero(set.get())) {
    return absl::UnavailableError("the process binding contains no PU of this topology");
  }
  return LocateSet(set.get());
}

absl::StatusOr<std::vector<NumaDistanceMatrix>> HwlocTopology::NumaDistanceMatrices() const {
  const unsigned long kind = HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_FROM_USER |
                             HWLOC_DISTANCES_KIND_MEANS_LATENCY |
                             HWLOC_DISTANCES_KIND_MEANS_BANDWIDTH;
  unsigned count = 0;
  if (hwloc_distances_get_by_type(topology_, HWLOC_OBJ_NUMANODE, &count, nullptr, kind, 0) != 0) {
    return absl::InternalError(
        absl::StrCat("hwloc_distances_get_by_type(NUMANode) failed: ", std::strerror(errno)));
  }
  std::vector<hwloc_distances_s*> raw(count, nullptr);
  if (count > 0 && hwloc_distances_get_by_type(topology_, HWLOC_OBJ_NUMANODE, &count, raw.data(),
                                               kind, 0) != 0) {
    return absl::InternalError(
        absl::StrCat("hwloc_distances_get_by_type(NUMANode) failed: ", std::strerror(errno)));
  }
  // `count` is now the number found, which only exceeds raw.size() if the topology changed,
  // and it cannot: it is loaded and never modified.
  std::vector<NumaDistanceMatrix> matrices;
  for (size_t m = 0; m < raw.size() && m < count; ++m) {
    hwloc_distances_s* d = raw[m];
    NumaDistanceMatrix out;
    const char* name = hwloc_distances_get_name(topology_, d);
    out.name = name != nullptr ? name : "";
    out.means_bandwidth = (d->kind & HWLOC_DISTANCES_KIND_MEANS_BANDWIDTH) != 0;
    out.from_os = (d->kind & HWLOC_DISTANCES_KIND_FROM_OS) != 0;
    for (unsigned i = 0; i < d->nbobjs; ++i) {
      out.numa.push_back(static_cast<int32_t>(d->objs[i]->logical_index));
    }
    out.values.assign(d->values, d->values + static_cast<size_t>(d->nbobjs) * d->nbobjs);
    hwloc_distances_release(topology_, d);
    matrices.push_back(std::move(out));
  }
  return matrices;
}

std::vector<PuLocation> CoreLocations(const HwlocTopology& topology) {
  hwloc_topology_t raw = topology.raw();
  hwloc_obj_type_t type =
      hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  std::vector<PuLocation> locations;
  for (hwloc_obj_t obj = nullptr; (obj = hwloc_get_next_obj_by_type(raw, type, obj)) != nullptr;) {
    locations.push_back(topology.LocateSet(obj->cpuset));
  }
  return locations;
}

std::vector<int32_t> HwlocTopology::CpuNumaPackages() const {
  std::vector<int32_t> packages(Shape().numa_nodes, -2);
  for (hwloc_obj_t numa : cpu_numa_) {
    packages[numa->logical_index] = LocateSet(numa->cpuset).package;
  }
  return packages;
}

}  // namespace toporr::collectors
