#include "fuzz/parser_checks.h"

#include <string>

#include "fabric/forwarding_tables.h"
#include "fabric/validate.h"
#include "fuzz/fuzz_checks.h"

namespace toporr::fuzz {

void CheckTopologyInput(collectors::InputFormat format, std::string_view input) {
  collectors::FabricInput in;
  in.format = format;
  in.source_name = std::string(kSource);
  in.content = input;
  absl::StatusOr<fabric::Fabric> f = collectors::ParseFabricInput(in);
  if (!f.ok()) return CheckRefusal(f.status(), input);
  NoteAccepted();
  if (absl::Status valid = fabric::ValidateFabric(*f); !valid.ok()) {
    Fail("accepted a topology that does not validate: " + valid.ToString());
  }
}

void CheckForwardingTablesInput(collectors::InputFormat format, std::string_view input) {
  absl::StatusOr<fabric::ForwardingTables> t =
      collectors::ParseForwardingTablesInput(format, std::string(kSource), input);
  if (!t.ok()) return CheckRefusal(t.status(), input);
  NoteAccepted();
  Check(!t->switches().empty(), "accepted forwarding tables without a switch");
  Check(t->lid_port_guid().size() <= fabric::kMaxUnicastLid + 1,
        "LID owner table beyond the unicast range");
  for (size_t i = 0; i < t->switches().size(); ++i) {
    const fabric::SwitchForwardingTable& sw = t->switches()[i];
    Check(t->Find(sw.guid) == static_cast<int>(i), "switch GUID listed twice or not found");
    Check(sw.out_port.size() <= fabric::kMaxUnicastLid + 1, "LFT beyond the unicast range");
    Check(sw.lid <= fabric::kMaxUnicastLid, "switch LID beyond the unicast range");
    for (uint8_t port : sw.out_port) {
      Check(port <= 254 || port == fabric::ForwardingTables::kUnsetPort, "LFT port above 254");
    }
    CheckPrintable(sw.description, "switch description");
  }
}

void CheckTracesInput(std::string_view input) {
  absl::StatusOr<std::vector<fabric::Trace>> traces =
      collectors::ParseTracesInput(std::string(kSource), input);
  if (!traces.ok()) return CheckRefusal(traces.status(), input);
  NoteAccepted();
  Check(!traces->empty(), "accepted ibtracert output without a trace");
  const size_t lines = CountLines(input);
  for (const fabric::Trace& t : *traces) {
    Check(t.line >= 1 && static_cast<size_t>(t.line) <= lines, "trace line outside the input");
    Check(!t.hops.empty(), "accepted a trace without hops");
    Check(t.from.lid_first <= t.from.lid_last && t.to.lid_first <= t.to.lid_last,
          "endpoint LID range reversed");
    CheckPrintable(t.from.description, "trace From description");
    CheckPrintable(t.to.description, "trace To description");
    for (const fabric::TraceHop& h : t.hops) {
      Check(h.lid_first <= h.lid_last, "hop LID range reversed");
      CheckPrintable(h.description, "trace hop description");
    }
  }
}

}  // namespace toporr::fuzz
