// Node-local topology from hwloc: where a PU, a cpuset or this process's binding sits inside
// one host (package, NUMA node, L3 cache, core), the host's core slots, and what its NUMA
// distance matrices say about intra-host communication cost.
//
// Vocabulary (hwloc's):
//   - PU: a hardware thread. A PU has an OS index (the number Linux, taskset, cpusets and
//     `P#` in lstopo use) and a logical index (`L#`, hwloc's depth-first order, which is the
//     same on every machine of one shape). They differ on most Intel machines, where the two
//     hyperthreads of core L#0 are P#0 and P#<cores>.
//   - Every id in a PuLocation is a hwloc *logical* index of a Package, NUMANode, L3Cache or
//     Core object, local to the host. -1 means "not known at this level" (see LocateCpuset
//     for when).
//   - The probe returns plain locations and distance matrices only; client/plan/node_topology.h
//     turns them into the mapping engine's RankLocation, core slots and IntraHostModel.
//
// Sources (the test seam): this machine, an XML file or string written by `lstopo --of xml`
// / `hwloc-gather-topology`, or a one-line synthetic description such as
// "pack:2 numa:2 l3:1 core:4 pu:2" (see hwloc's "Synthetic topologies" documentation).
#ifndef TOPORR_COLLECTORS_HWLOC_TOPOLOGY_H_
#define TOPORR_COLLECTORS_HWLOC_TOPOLOGY_H_

#include <hwloc.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace toporr::collectors {

// Where the topology comes from. Build one with the factory functions.
struct HwlocSource {
  enum class Kind {
    kThisMachine,  // hwloc's native discovery of the machine this process runs on
    kXmlFile,      // `text` is a path to an hwloc XML file (v1 or v2 format)
    kXmlString,    // `text` is the XML document itself
    kSynthetic,    // `text` is a synthetic description, e.g. "pack:2 l3:2 core:8 pu:2"
  };
  Kind kind = Kind::kThisMachine;
  std::string text;

  static HwlocSource ThisMachine();
  static HwlocSource XmlFile(std::string path);
  static HwlocSource XmlString(std::string xml);
  static HwlocSource Synthetic(std::string description);

  // For error messages: "this machine", "hwloc XML file a.xml", "synthetic topology
  // 'pack:2 pu:2'", "hwloc XML string (1234 bytes)".
  std::string Describe() const;
};

// Where a PU or a set of PUs sits inside one host: hwloc logical indexes, -1 when not known
// at that level (see LocateCpuset).
struct PuLocation {
  int32_t package = -1;
  int32_t numa = -1;
  int32_t l3 = -1;
  int32_t core = -1;
};

// How LocatePu interprets its index.
enum class PuIndex {
  kOs,       // OS index (P#): the CPU number of Linux, taskset, sched_setaffinity, cpusets
  kLogical,  // hwloc logical index (L#) among all PUs
};

// Object counts of a whole machine.
struct HwlocShape {
  int packages = 0;
  int numa_nodes = 0;  // all NUMA nodes, including CPU-less ones (HBM, CXL, NVDIMM)
  int l3_caches = 0;
  int cores = 0;
  int pus = 0;

  // The shape as the test data names it: "<packages>pack-<numa>numa-<l3>l3-<cores>core",
  // then "-smt<pus/cores>" when a core holds several PUs (or "-<pus>pu" when pus is not a
  // multiple of cores, or there are no Core objects), e.g. "2pack-4numa-4l3-16core-smt2".
  std::string Name() const;
};

// One hwloc distance matrix between NUMA nodes, as the topology carries it.
//
// `values` is row-major over `numa`: values[i * size() + j] is the distance *from* NUMA node
// numa[i] (more precisely from the CPUs local to it, the initiator) *to* the memory of NUMA
// node numa[j] (the target). For a latency matrix smaller is closer; for a bandwidth matrix
// larger is closer. hwloc does not fix units: the OS matrix on Linux ("NUMALatency", from
// the ACPI SLIT) is relative, 10 meaning local and 21 meaning 2.1 times the local latency;
// user matrices carry whatever their author put in (ns, MB/s, ...). Only ratios to the
// diagonal are unit-free, which is why IntraHostModelFromHwloc uses nothing else.
struct NumaDistanceMatrix {
  std::string name;              // e.g. "NUMALatency"; may be empty for user matrices
  bool means_bandwidth = false;  // false: latency (HWLOC_DISTANCES_KIND_MEANS_LATENCY)
  bool from_os = false;          // false: from the user (HWLOC_DISTANCES_KIND_FROM_USER)
  std::vector<int32_t> numa;     // logical index of the NUMA node of row/column k
  std::vector<uint64_t> values;  // size() * size(), row-major, see above

  int size() const { return static_cast<int>(numa.size()); }
  uint64_t At(int row, int col) const { return values[static_cast<size_t>(row) * size() + col]; }
};

// A loaded, immutable hwloc topology.
//
// Thread-safety: after Create() every method is const and only reads the topology, which
// hwloc allows from several threads at once.
class HwlocTopology {
 public:
  struct Options {
    // Default: this machine.
    HwlocSource source;
  };

  // Loads the topology. Errors: kNotFound (XML file missing), kInvalidArgument (XML that
  // hwloc cannot parse, bad synthetic description), kInternal (hwloc failed otherwise).
  static absl::StatusOr<std::unique_ptr<HwlocTopology>> Create(Options options);

  ~HwlocTopology();
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;

  const HwlocSource& source() const { return source_; }
  // True when the topology describes the machine this process runs on, so bindings mean
  // something (hwloc_topology_is_thissystem).
  bool IsThisMachine() const;
  HwlocShape Shape() const;

  // Location of one PU: its core, L3, local NUMA node (see LocateCpuset) and package; -1
  // only for a level the machine does not have (no L3 cache, no Package or Core objects).
  // kNotFound when no PU has that index.
  absl::StatusOr<PuLocation> LocatePu(unsigned index, PuIndex kind) const;

  // Location of a set of PUs, e.g. a process's binding. `cpuset` holds PU *OS* indexes,
  // either as a list ("0-3,16-19", the form of taskset -c, /proc/<pid>/status
  // Cpus_allowed_list and `hwloc-calc --cpuset-output-format list`) or in hwloc's bitmap
  // form ("0x0000000f", comma-separated 32-bit words with the most significant first, as
  // `hwloc-bind --get` prints); a leading "0x" selects the latter.
  //
  // Each level is the object of that type whose CPUs include the whole set, or -1 when the
  // set spans several of them (or the machine has none). So a process bound to one core or
  // to one of its PUs gets all four ids; one bound to a whole package gets `package` (and
  // `numa`/`l3` only if that package has a single one); an unbound process gets only the
  // levels of which the machine has exactly one. For `numa` only the "CPU NUMA nodes"
  // count: the local node of some PU, i.e. the NUMA node with the fewest CPUs that
  // contains the PU (lowest logical index on ties). That skips CPU-less memory such as
  // CXL or HBM nodes that hwloc attaches above the DRAM node.
  //
  // kInvalidArgument for an unparsable or empty set, or one naming PUs the topology lacks.
  absl::StatusOr<PuLocation> LocateCpuset(std::string_view cpuset) const;

  // LocateCpuset of this process's current binding (hwloc_get_cpubind with
  // HWLOC_CPUBIND_PROCESS: the union of the bindings of all its threads).
  // kFailedPrecondition when the topology is not this machine (XML or synthetic source);
  // kUnavailable when the OS refuses to report the binding.
  absl::StatusOr<PuLocation> LocateThisProcess() const;

  // The NUMA-to-NUMA latency and bandwidth matrices the topology carries (OS or user
  // provided), in hwloc's order. Empty when there are none (synthetic topologies, single-
  // NUMA machines, kernels that expose no SLIT).
  absl::StatusOr<std::vector<NumaDistanceMatrix>> NumaDistanceMatrices() const;

  // cpu_numa_packages()[numa logical index]: the package (logical index, -1 unknown) of a
  // CPU NUMA node (one that is the local node of some PU, see LocateCpuset), -2 for a NUMA
  // node that holds no CPUs of its own (CPU-less memory). Size: Shape().numa_nodes.
  std::vector<int32_t> CpuNumaPackages() const;

  // For code that needs hwloc itself (e.g. binding). Owned by this object.
  hwloc_topology_t raw() const { return topology_; }

 private:
  friend std::vector<PuLocation> CoreLocations(const HwlocTopology& topology);

  HwlocTopology(HwlocSource source, hwloc_topology_t topology);
  // Precondition: `set` is non-empty and within the topology's cpuset.
  PuLocation LocateSet(hwloc_const_cpuset_t set) const;

  HwlocSource source_;
  hwloc_topology_t topology_;
  std::vector<hwloc_obj_t> cpu_numa_;  // the CPU NUMA nodes, in logical order
};

// One location per Core object in logical order (core L#0 first), each located like LocatePu
// of that core's PUs: entry i has core == i. A machine without Core objects (some virtual
// machines and synthetic topologies) gets one entry per PU with core == -1 instead.
std::vector<PuLocation> CoreLocations(const HwlocTopology& topology);

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_HWLOC_TOPOLOGY_H_
