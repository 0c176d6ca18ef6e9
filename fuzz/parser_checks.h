// The harness bodies of the collectors' parsers (collectors/fabric_input.h): each feeds one
// input to its parser and checks fuzz/fuzz_checks.h's refusal rules on an error and the
// result's invariants on success. Each *_fuzzer.cc calls one of them.
#ifndef TOPORR_FUZZ_PARSER_CHECKS_H_
#define TOPORR_FUZZ_PARSER_CHECKS_H_

#include <string_view>

#include "collectors/fabric_input.h"

namespace toporr::fuzz {

// A topology format: on success fabric::ValidateFabric holds. (An empty fabric is allowed:
// opareport reports "0 Links in Fabric" and collectors/opa_links_test accepts it.)
void CheckTopologyInput(collectors::InputFormat format, std::string_view input);

// kLft / kOpensmLfts: on success at least one switch, GUIDs unique and found by Find, every
// table within the unicast LID range with ports 0..254 or unset, descriptions printable.
void CheckForwardingTablesInput(collectors::InputFormat format, std::string_view input);

// ibtracert: on success at least one trace, each with a hop, its line within the input,
// LID ranges ordered and descriptions printable.
void CheckTracesInput(std::string_view input);

}  // namespace toporr::fuzz

#endif  // TOPORR_FUZZ_PARSER_CHECKS_H_
