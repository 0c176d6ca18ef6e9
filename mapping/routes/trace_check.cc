#include "mapping/routes/trace_check.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace toporr::mapping {
namespace {

using fabric::Fabric;
using fabric::NodeType;

std::string Guid(uint64_t g) { return fabric::FormatGuid(g); }

}  // namespace

std::vector<std::string> CompareTrace(const LftRoutes& routes, const fabric::Trace& trace,
                                      uint32_t dlid) {
  std::vector<std::string> out;
  const Fabric& f = routes.fabric();
  const std::string where = absl::StrCat("trace at line ", trace.line, ": ");
  const int src = f.FindNodeByGuid(trace.from.node_guid);
  if (src < 0) {
    out.push_back(absl::StrCat(where, "the source node ", Guid(trace.from.node_guid),
                               " is not in the fabric"));
    return out;
  }
  const int dst = f.FindNodeByGuid(trace.to.node_guid);
  if (dlid == 0) {
    if (trace.detailed && trace.to.lid_first != 0) {
      dlid = trace.to.lid_first;
    } else if (dst >= 0) {
      const fabric::Node& n = f.nodes[dst];
      const fabric::Port* p = n.FindPort(trace.to.port);
      dlid = n.type == NodeType::kSwitch ? n.lid : (p != nullptr ? p->lid : 0);
    }
  }
  if (dlid == 0) {
    out.push_back(absl::StrCat(where, "no destination LID: the trace's 'To' node ",
                               Guid(trace.to.node_guid), " is not in the fabric"));
    return out;
  }
  absl::StatusOr<LftRoute> walk = routes.RouteToLid({src, trace.from.port}, dlid);
  if (!walk.ok()) {
    out.push_back(absl::StrCat(where, "ibtracert reached LID ", dlid,
                               " but the LFT walk fails: ", walk.status().message()));
    return out;
  }
  const std::vector<PathHop>& w = walk->hops;
  // trace.hops[i] is the step from walk node i to walk node i + 1.
  const size_t common = std::min(trace.hops.size(), w.size() - 1);
  for (size_t i = 0; i < common; ++i) {
    const fabric::TraceHop& th = trace.hops[i];
    const PathHop& from = w[i];
    const PathHop& to = w[i + 1];
    const std::string step = absl::StrCat(where, "hop ", i + 1, ": ");
    if (th.out_port != from.out_port) {
      out.push_back(absl::StrCat(step, "ibtracert leaves ", routes.NodeName(from.node), " by port ",
                                 th.out_port, ", the LFT walk to LID ", dlid, " by port ",
                                 from.out_port));
      return out;  // past a different turn every later hop differs too
    }
    const fabric::Port* p = f.nodes[to.node].FindPort(to.in_port);
    const uint64_t walk_guid = p != nullptr ? p->guid : f.nodes[to.node].guid;
    if (th.port_guid != walk_guid || th.in_port != to.in_port) {
      out.push_back(absl::StrCat(step, "ibtracert enters port ", Guid(th.port_guid), "[",
                                 th.in_port, "], the LFT walk ", routes.NodeName(to.node), " [",
                                 to.in_port, "] (port GUID ", Guid(walk_guid), ")"));
      return out;
    }
  }
  if (trace.hops.size() != w.size() - 1) {
    out.push_back(absl::StrCat(where, "ibtracert crosses ", trace.hops.size(),
                               " cables, the LFT walk to LID ", dlid, " ", w.size() - 1));
  }
  const PathHop& last = w.back();
  const int last_port = f.nodes[last.node].type == NodeType::kSwitch ? 0 : last.in_port;
  if (f.nodes[last.node].guid != trace.to.node_guid || last_port != trace.to.port) {
    out.push_back(absl::StrCat(where, "ibtracert ends at ", Guid(trace.to.node_guid), " port ",
                               trace.to.port, ", the LFT walk at ", routes.NodeName(last.node),
                               " port ", last_port));
  }
  return out;
}

}  // namespace toporr::mapping
