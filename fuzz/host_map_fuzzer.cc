// libFuzzer harness: the GUID -> host map (collectors/hosts.h ParseHostMap + AssignHosts)
// applied through collectors/fabric_input.h to a fixed three-node fabric (one switch, node13
// with one port, node16 with two), under the default host rule and under bare host names
// without domain stripping. Accepted: the fabric validates and every mapped CA of this fabric
// carries its mapped host. Refused: fuzz/fuzz_checks.h CheckRefusal (the map's name first).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "collectors/fabric_input.h"
#include "collectors/hosts.h"
#include "fabric/validate.h"
#include "fuzz/fuzz_checks.h"

namespace {

constexpr std::string_view kFabric =
    "vendid=0x2c9\n"
    "devid=0xc738\n"
    "sysimgguid=0x2c90200500300\n"
    "switchguid=0x2c90200500300(2c90200500300)\n"
    "Switch\t4 \"S-0002c90200500300\"\t\t# \"MF0;leaf04:MSX6036/U1\" enhanced port 0 lid 7 lmc 0\n"
    "[1]\t\"H-0002c903000e0bd0\"[1](2c903000e0bd1) \t\t# \"node13 HCA-1\" lid 21 4xQDR\n"
    "[2]\t\"H-0002c903000e0c00\"[1](2c903000e0c01) \t\t# \"node16 HCA-1\" lid 8 4xQDR\n"
    "[3]\t\"H-0002c903000e0c00\"[2](2c903000e0c02) \t\t# \"node16 HCA-1\" lid 9 4xQDR\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0x1003\n"
    "sysimgguid=0x2c903000e0c03\n"
    "caguid=0x2c903000e0c00\n"
    "Ca\t2 \"H-0002c903000e0c00\"\t\t# \"node16 HCA-1\"\n"
    "[1](2c903000e0c01) \t\"S-0002c90200500300\"[2]\t\t# lid 8 lmc 0 \"MF0;leaf04:MSX6036/U1\" "
    "lid 7 4xQDR\n"
    "[2](2c903000e0c02) \t\"S-0002c90200500300\"[3]\t\t# lid 9 lmc 0 \"MF0;leaf04:MSX6036/U1\" "
    "lid 7 4xQDR\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0x1003\n"
    "sysimgguid=0x2c903000e0bd3\n"
    "caguid=0x2c903000e0bd0\n"
    "Ca\t2 \"H-0002c903000e0bd0\"\t\t# \"node13 HCA-1\"\n"
    "[1](2c903000e0bd1) \t\"S-0002c90200500300\"[1]\t\t# lid 21 lmc 0 \"MF0;leaf04:MSX6036/U1\" "
    "lid 7 4xQDR\n";

void CheckWithRule(const toporr::collectors::HostRule& rule, std::string_view map) {
  using toporr::fuzz::Check;
  toporr::collectors::FabricInput in;
  in.format = toporr::collectors::InputFormat::kIbnetdiscover;
  in.source_name = "fabric.topo";
  in.content = kFabric;
  in.host_rule = rule;
  in.host_map = map;
  in.host_map_name = std::string(toporr::fuzz::kSource);
  absl::StatusOr<toporr::fabric::Fabric> f = toporr::collectors::ParseFabricInput(in);
  if (!f.ok()) return toporr::fuzz::CheckRefusal(f.status(), map);
  toporr::fuzz::NoteAccepted();
  if (absl::Status valid = toporr::fabric::ValidateFabric(*f); !valid.ok()) {
    toporr::fuzz::Fail("host map gave a fabric that does not validate: " + valid.ToString());
  }
  // Map entries win: every CA named by the map (node or port GUID) has that host.
  absl::StatusOr<std::unordered_map<uint64_t, std::string>> parsed =
      toporr::collectors::ParseHostMap(map, toporr::fuzz::kSource);
  Check(parsed.ok(), "ParseFabricInput accepted a map ParseHostMap refuses");
  for (const toporr::fabric::Node& node : f->nodes) {
    if (node.type != toporr::fabric::NodeType::kCa) continue;
    auto it = parsed->find(node.guid);
    for (size_t p = 0; it == parsed->end() && p < node.ports.size(); ++p) {
      it = parsed->find(node.ports[p].guid);
    }
    if (it == parsed->end()) continue;
    Check(node.host >= 0 && f->hosts[node.host].name == it->second,
          "a mapped CA does not carry its mapped host");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view map(reinterpret_cast<const char*>(data), size);
  CheckWithRule(toporr::collectors::HostRule(), map);
  toporr::collectors::HostRule bare;
  bare.accept_bare_hostname = true;
  bare.strip_domain = false;
  CheckWithRule(bare, map);
  return 0;
}
