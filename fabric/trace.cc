#include "fabric/trace.h"

namespace toporr::fabric {

int Trace::NumSwitches() const {
  // Only switches forward, so every node between the ends is one; an end is a switch exactly
  // when its port is 0 (CA and router ports are numbered from 1).
  int nodes = 1 + static_cast<int>(hops.size());
  return nodes - (from.port != 0 ? 1 : 0) - (to.port != 0 ? 1 : 0);
}

}  // namespace toporr::fabric
