// A route as traced hop by hop through the switches' forwarding tables (rdma-core's
// `ibtracert`, parsed by collectors/ibtracert.h): the model mapping/routes/trace_check.h checks
// the LFT walks against.
// Thread-safety: plain values.
#ifndef TOPORR_FABRIC_TRACE_H_
#define TOPORR_FABRIC_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/fabric.h"

namespace toporr::fabric {

// The `From` or `To` end of a trace.
struct TraceEndpoint {
  NodeType type = NodeType::kCa;  // meaningful only when Trace::detailed
  uint64_t node_guid = 0;
  int port = 0;            // 0 for a switch
  uint32_t lid_first = 0;  // LID range; 0-0 when not detailed
  uint32_t lid_last = 0;
  std::string description;  // empty when not detailed
};

// One `[out] -> ... [in]` line: the trace leaves the previous node by `out_port` and enters
// the node owning `port_guid` by `in_port`.
struct TraceHop {
  int out_port = 0;
  NodeType type = NodeType::kCa;  // meaningful only when Trace::detailed
  uint64_t port_guid = 0;         // = node GUID for switches
  int in_port = 0;
  uint32_t lid_first = 0;
  uint32_t lid_last = 0;
  std::string description;
};

struct Trace {
  bool detailed = true;  // false for `-n` output (no types, LIDs or descriptions)
  int line = 0;          // 1-based line of the `From` line, for messages
  TraceEndpoint from;
  std::vector<TraceHop> hops;  // in order; the last one enters the `To` node
  TraceEndpoint to;

  // Number of switches the trace crosses, counting a switch source or destination once.
  int NumSwitches() const;
};

}  // namespace toporr::fabric

#endif  // TOPORR_FABRIC_TRACE_H_
