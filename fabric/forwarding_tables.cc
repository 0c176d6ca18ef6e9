#include "fabric/forwarding_tables.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace toporr::fabric {

uint8_t SwitchForwardingTable::OutPort(uint32_t lid) const {
  return lid < out_port.size() ? out_port[lid] : ForwardingTables::kUnsetPort;
}

int ForwardingTables::Find(uint64_t switch_guid) const {
  auto it = by_guid_.find(switch_guid);
  return it == by_guid_.end() ? -1 : it->second;
}

const SwitchForwardingTable* ForwardingTables::FindTable(uint64_t switch_guid) const {
  int i = Find(switch_guid);
  return i < 0 ? nullptr : &switches_[i];
}

SwitchForwardingTable* ForwardingTables::Add(uint64_t guid) {
  auto [it, inserted] = by_guid_.emplace(guid, static_cast<int>(switches_.size()));
  if (inserted) {
    switches_.emplace_back();
    switches_.back().guid = guid;
  }
  return &switches_[it->second];
}

absl::Status ForwardingTables::SetOutPort(uint64_t switch_guid, uint32_t lid, uint8_t port) {
  int i = Find(switch_guid);
  if (i < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("no forwarding table for switch GUID ", absl::Hex(switch_guid)));
  }
  if (lid > kMaxUnicastLid) {
    return absl::InvalidArgumentError(absl::StrCat("LID ", lid, " is not a unicast LID"));
  }
  std::vector<uint8_t>& t = switches_[i].out_port;
  if (lid >= t.size()) t.resize(lid + 1, kUnsetPort);
  t[lid] = port;
  return absl::OkStatus();
}

void ForwardingTables::NoteLidOwner(uint32_t lid, uint64_t port_guid) {
  if (port_guid == 0 || lid > kMaxUnicastLid) return;
  if (lid >= lid_port_guid_.size()) lid_port_guid_.resize(lid + 1, 0);
  if (lid_port_guid_[lid] == 0) lid_port_guid_[lid] = port_guid;
}

size_t ForwardingTables::MemoryBytes() const {
  size_t n = switches_.capacity() * sizeof(SwitchForwardingTable) +
             lid_port_guid_.capacity() * sizeof(uint64_t) +
             by_guid_.size() * (sizeof(uint64_t) + sizeof(int) + 2 * sizeof(void*));
  for (const auto& s : switches_) n += s.out_port.capacity() + s.description.capacity();
  return n;
}

}  // namespace toporr::fabric
