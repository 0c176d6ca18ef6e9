// Linear forwarding tables (LFTs) of a subnet's switches: the routing part of the fabric model.
//
// An LFT maps a destination LID to the switch port a packet for that LID leaves by
// (0 = the switch itself, 1..254 = a physical port). OpenSM computes them; the switches hold
// them; collectors/forwarding_tables.h parses the dumps that read them back (ibroute,
// dump_fts, dump_lfts.sh, opensm-lfts.dump) and collectors/live_discovery.h reads them live.
//
// What a value holds: per switch (by node GUID, in the order added) the LFT as one byte per
// LID; unassigned entries are kUnsetPort. `lid_port_guid` keeps the first port GUID named as
// owner of each LID, so a consumer can check that the tables and the topology describe the
// same LID assignment.
// Thread-safety: a ForwardingTables value is safe to read from several threads and not
// thread-safe to mutate.
#ifndef TOPORR_FABRIC_FORWARDING_TABLES_H_
#define TOPORR_FABRIC_FORWARDING_TABLES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"

namespace toporr::fabric {

// Highest unicast LID (0xC000 and up are multicast).
inline constexpr uint32_t kMaxUnicastLid = 0xBFFF;

struct SwitchForwardingTable {
  uint64_t guid = 0;  // switch node GUID
  // Switch LID: from the header's `Lid N` address (ibroute by LID, opensm-lfts.dump), else
  // the first LID the table delivers to port 0 (the switch itself), else 0.
  uint32_t lid = 0;
  std::string description;  // node description from the header, verbatim
  // out_port[lid] for lid < out_port.size(); kUnsetPort where nothing is assigned. LIDs at
  // or beyond size() are unassigned too.
  std::vector<uint8_t> out_port;

  // The port LID `lid` leaves by, kUnsetPort when unassigned.
  uint8_t OutPort(uint32_t lid) const;
};

class ForwardingTables {
 public:
  static constexpr uint8_t kUnsetPort = 255;

  // Switches in the order their first block appears.
  const std::vector<SwitchForwardingTable>& switches() const { return switches_; }
  // Index into switches(), -1 when the GUID has no table.
  int Find(uint64_t switch_guid) const;
  // The table of a switch, nullptr when absent.
  const SwitchForwardingTable* FindTable(uint64_t switch_guid) const;

  // lid_port_guid()[lid]: the port GUID the dump names as owner of `lid`, 0 when not named
  // (LIDs at or beyond size() are not named either).
  const std::vector<uint64_t>& lid_port_guid() const { return lid_port_guid_; }

  // Adds an empty table for `guid` (or returns the existing one). Used by the parser and by
  // tests that build or alter tables by hand. The returned pointer is valid until the next
  // call to Add.
  SwitchForwardingTable* Add(uint64_t guid);
  // Sets `switch_guid`'s entry for `lid` (growing its table); port kUnsetPort clears it.
  // kInvalidArgument when the switch has no table or lid > kMaxUnicastLid.
  absl::Status SetOutPort(uint64_t switch_guid, uint32_t lid, uint8_t port);
  // Records the owner of a LID (first writer wins); 0 is ignored.
  void NoteLidOwner(uint32_t lid, uint64_t port_guid);

  // Total bytes held by the tables (LFT bytes + GUID map), for memory reports.
  size_t MemoryBytes() const;

 private:
  std::vector<SwitchForwardingTable> switches_;
  std::unordered_map<uint64_t, int> by_guid_;
  std::vector<uint64_t> lid_port_guid_;
};

}  // namespace toporr::fabric

#endif  // TOPORR_FABRIC_FORWARDING_TABLES_H_
