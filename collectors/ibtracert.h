// Parser for the unicast output of rdma-core's `ibtracert` (infiniband-diags), the hop-by-hop
// route the switches' forwarding tables give one destination LID.
//
// Accepted (one or several traces concatenated, e.g. one run per LID of an LMC range):
//   default / -G / -D (the addresses only change how ibtracert is asked, not its output):
//     From <ca|switch|router> {0x<node guid>} portnum <p> lid <first>-<last> "<desc>"
//     [<out port>] -> <ca|switch|router> port {0x<port guid>}[<in port>] lid <f>-<l> "<desc>"
//     ...
//     To <ca|switch|router> {0x<node guid>} portnum <p> lid <first>-<last> "<desc>"
//   -n / --no_info:
//     From {0x<node guid>}[<p>]
//     [<out port>] -> {0x<port guid>}[<in port>]
//     To {0x<node guid>}[<p>]
// Notes on the fields (ibtracert.c): `From`/`To` carry NODE GUIDs, the `->` lines the PORT
// GUID of the port the trace enters by (every port of a switch reports the switch GUID); a
// switch endpoint has portnum 0; `lid f-l` is the LID range of the port (f = base LID,
// l = base + 2^LMC - 1), for a switch the port-0 LID. The destination LID ibtracert was asked
// for is NOT printed: within an LMC range every DLID prints the same `To` line.
//
// Tolerated: blank lines and the tools' stderr lines (`ibwarn: ...`, `... iberror: ...`) mixed
// in by `2>&1`. Errors (kInvalidArgument, "<file_name>:<line>: <what is wrong>"): a malformed
// line; a hop or `To` line outside a trace; a trace with no `To` line (ibtracert stops
// without one when it meets a bad port state or forwarding entry; the message quotes the
// ibwarn line when there is one); the multicast layout of `ibtracert -m` (not supported);
// an input with no trace.
// Thread-safety: pure function.
#ifndef TOPORR_COLLECTORS_IBTRACERT_H_
#define TOPORR_COLLECTORS_IBTRACERT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fabric/trace.h"

namespace toporr::collectors {

struct IbtracertOptions {
  // Name used in error messages, which read "<file_name>:<line>: <what is wrong>".
  std::string file_name = "ibtracert";
};

// Parses `text` (`#@` provenance lines of the shared samples must already be stripped).
absl::StatusOr<std::vector<fabric::Trace>> ParseIbtracert(std::string_view text,
                                                          const IbtracertOptions& options = {});

}  // namespace toporr::collectors

#endif  // TOPORR_COLLECTORS_IBTRACERT_H_
