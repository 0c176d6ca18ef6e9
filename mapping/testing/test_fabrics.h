// Hand-built fabrics for mapping/ tests and benchmarks (tests only). Names encode the shape.
#ifndef TOPORR_MAPPING_TESTING_TEST_FABRICS_H_
#define TOPORR_MAPPING_TESTING_TEST_FABRICS_H_

#include <string>
#include <unordered_map>
#include <vector>

#include "fabric/fabric.h"

namespace toporr::mapping::testing {

// Builds a Fabric by name; aborts on misuse (tests only). Hosts get one CA each unless
// AddHost is called again with the same name (another rail). Call Finish() last: it sorts
// hosts by name and sets Node::host.
class FabricBuilder {
 public:
  // Returns the node index.
  int AddSwitch(const std::string& name, int num_ports = 36);
  // Adds one CA with `num_ports` ports to host `host` (created on first use).
  int AddHostCa(const std::string& host, int num_ports = 1);
  int AddNode(fabric::NodeType type, const std::string& description, int num_ports);
  // Cables node x port px to node y port py. Width 4 lanes unless given.
  int Connect(int x, int px, int y, int py, fabric::LinkSpeed speed = fabric::LinkSpeed::kHDR,
              int width = 4);
  fabric::Fabric Finish();

 private:
  fabric::Fabric fabric_;
  std::unordered_map<std::string, int> host_index_;
  uint64_t next_guid_ = 0x1000;
};

// Three-level fat tree: `pods` pods, each with `edges` edge switches of `hosts_per_edge`
// hosts and `aggs` aggregation switches (every edge cabled to every agg of its pod); each agg
// cabled to `cores_per_agg` cores (agg k of every pod to cores k*cores_per_agg ..), all HDR
// 4x. Host names "h00000".. in order pod, edge, slot.
fabric::Fabric MakeFatTree3(int pods, int edges, int aggs, int hosts_per_edge, int cores_per_agg);

}  // namespace toporr::mapping::testing

#endif  // TOPORR_MAPPING_TESTING_TEST_FABRICS_H_
