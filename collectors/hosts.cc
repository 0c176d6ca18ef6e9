#include "collectors/hosts.h"

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/printable.h"
#include "common/text_scan.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::FormatGuid;
using fabric::Host;
using fabric::Node;
using fabric::NodeType;
using fabric::NodeTypeName;
namespace {

using std::string_view;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

template <typename Pred>
bool All(string_view s, Pred pred) {
  for (char c : s)
    if (!pred(c)) return false;
  return true;
}

bool Digits(string_view s) { return !s.empty() && All(s, IsDigit); }

bool StripPrefix(string_view s, string_view prefix, string_view* rest) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  *rest = s.substr(prefix.size());
  return true;
}

// The built-in device-name forms listed in hosts.h.
bool IsBuiltinDeviceName(string_view d) {
  string_view r;
  if (StripPrefix(d, "mlx5_bond_", &r)) return Digits(r);
  if (StripPrefix(d, "mlx4_", &r) || StripPrefix(d, "mlx5_", &r) || StripPrefix(d, "hfi1_", &r) ||
      StripPrefix(d, "HCA-", &r) || StripPrefix(d, "mthca", &r)) {
    return Digits(r);
  }
  if (StripPrefix(d, "qib", &r) || StripPrefix(d, "bnxt_re", &r)) {
    if (!r.empty() && (r[0] == '_' || r[0] == ' ')) r.remove_prefix(1);
    return Digits(r);
  }
  if (StripPrefix(d, "ibp", &r)) return !r.empty() && IsDigit(r[0]) && All(r, IsAlnum);
  if (StripPrefix(d, "irdma", &r)) {
    if (!r.empty() && r[0] == '-') {
      r.remove_prefix(1);
      return !r.empty() && All(r, IsAlnum);
    }
    return All(r, IsAlnum);
  }
  return false;
}

bool IsDeviceName(const HostRule& rule, string_view d) {
  if (IsBuiltinDeviceName(d)) return true;
  for (const std::string& prefix : rule.extra_hca_prefixes) {
    string_view r;
    if (!prefix.empty() && StripPrefix(d, prefix, &r) && !r.empty() &&
        All(r, [](char c) { return IsAlnum(c) || c == '_' || c == '-'; })) {
      return true;
    }
  }
  return false;
}

bool IsHostName(string_view h) {
  return !h.empty() && h.size() <= 253 && IsAlnum(h[0]) &&
         All(h, [](char c) { return IsAlnum(c) || c == '.' || c == '_' || c == '-'; });
}

// A refusal of the map entry for `guid`: at its line when the origin is known.
absl::Status MapError(const HostMapOrigin* origin, uint64_t guid, const std::string& what) {
  if (origin != nullptr) {
    auto it = origin->line.find(guid);
    if (it != origin->line.end()) return LineError(origin->file_name, it->second, what);
  }
  return absl::InvalidArgumentError("host map: " + what);
}

// The host a map entry gives CA `node`, "" if none.
absl::StatusOr<std::string> MappedHost(const Node& node,
                                       const std::unordered_map<uint64_t, std::string>& map,
                                       const HostMapOrigin* origin) {
  std::string host;
  uint64_t from = 0;
  auto consider = [&](uint64_t guid) -> absl::Status {
    auto it = map.find(guid);
    if (it == map.end()) return absl::OkStatus();
    if (!host.empty() && host != it->second) {
      return MapError(origin, guid,
                      "GUID " + FormatGuid(guid) + " is mapped to \"" + it->second +
                          "\" but GUID " + FormatGuid(from) + " of the same CA (" +
                          Quoted(node.description, 80) + ") to \"" + host + "\"");
    }
    host = it->second;
    from = guid;
    return absl::OkStatus();
  };
  absl::Status st = consider(node.guid);
  for (size_t i = 0; st.ok() && i < node.ports.size(); ++i) {
    if (node.ports[i].guid != node.guid) st = consider(node.ports[i].guid);
  }
  if (!st.ok()) return st;
  return host;
}

}  // namespace

std::optional<std::string> HostFromDescription(const HostRule& rule, string_view description) {
  for (const std::string& marker : rule.vendor_default_markers) {
    if (!marker.empty() && description.find(marker) != string_view::npos) return std::nullopt;
  }
  const string_view d = Trim(description);
  size_t blank = 0;
  while (blank < d.size() && !IsBlank(d[blank])) ++blank;
  string_view host = d.substr(0, blank);
  const string_view device = Trim(d.substr(blank));
  if (!IsHostName(host)) return std::nullopt;
  if (device.empty() ? !rule.accept_bare_hostname : !IsDeviceName(rule, device)) {
    return std::nullopt;
  }
  if (rule.strip_domain) host = host.substr(0, host.find('.'));
  return std::string(host);
}

absl::StatusOr<std::unordered_map<uint64_t, std::string>> ParseHostMap(string_view text,
                                                                       string_view file_name,
                                                                       HostMapOrigin* origin) {
  std::unordered_map<uint64_t, std::string> map;
  std::unordered_map<uint64_t, int> line_of;
  LineScanner lines(text);
  for (string_view line; lines.Next(&line);) {
    const int line_no = lines.number();
    line = Trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;

    size_t blank = 0;
    while (blank < line.size() && !IsBlank(line[blank])) ++blank;
    const string_view guid_text = line.substr(0, blank);
    string_view host = Trim(line.substr(blank));
    uint64_t guid = 0;
    if (!ParseHexU64(guid_text, &guid) || guid == 0) {
      return LineError(file_name, line_no,
                       "bad GUID '" + std::string(guid_text) +
                           "' (expected up to 16 hex digits, "
                           "e.g. 0x0002c903000e0b10)");
    }
    if (host.size() >= 2 && host.front() == '"' && host.back() == '"') {
      host = host.substr(1, host.size() - 2);
    }
    if (host.empty()) return LineError(file_name, line_no, "missing host name after the GUID");
    if (!IsHostName(host)) {
      return LineError(file_name, line_no,
                       "'" + std::string(host) +
                           "' is not a host name (one word of letters, "
                           "digits, '.', '_', '-')");
    }
    auto [it, inserted] = map.emplace(guid, std::string(host));
    if (!inserted && it->second != host) {
      return LineError(file_name, line_no,
                       FormatGuid(guid) + " is mapped to \"" + it->second + "\" on line " +
                           std::to_string(line_of[guid]) + " and to \"" + std::string(host) +
                           "\" here");
    }
    if (inserted) line_of[guid] = line_no;
  }
  if (origin != nullptr) {
    origin->file_name = std::string(file_name);
    origin->line = std::move(line_of);
  }
  return map;
}

absl::Status AssignHosts(const HostRule& rule,
                         const std::unordered_map<uint64_t, std::string>& guid_map, Fabric* fabric,
                         const HostMapOrigin* origin) {
  std::map<std::string, std::vector<int>> cas_of;
  std::vector<int> anonymous;
  for (size_t i = 0; i < fabric->nodes.size(); ++i) {
    const Node& node = fabric->nodes[i];
    absl::StatusOr<std::string> mapped = MappedHost(node, guid_map, origin);
    if (!mapped.ok()) return mapped.status();
    if (node.type != NodeType::kCa) {
      if (!mapped->empty()) {
        return MapError(origin, node.guid,
                        "names " + std::string(NodeTypeName(node.type)) + " " +
                            FormatGuid(node.guid) + " (" + Quoted(node.description, 80) +
                            ") as host \"" + *mapped + "\"; only CAs can belong to hosts");
      }
      continue;
    }
    std::string host = std::move(*mapped);
    if (host.empty()) {
      std::optional<std::string> derived = HostFromDescription(rule, node.description);
      if (!derived) {
        anonymous.push_back(static_cast<int>(i));
        continue;
      }
      host = std::move(*derived);
    }
    cas_of[host].push_back(static_cast<int>(i));
  }

  for (Node& node : fabric->nodes) node.host = -1;
  fabric->hosts.clear();
  fabric->hosts.reserve(cas_of.size());
  for (auto& [name, cas] : cas_of) {
    const int index = static_cast<int>(fabric->hosts.size());
    for (int ca : cas) fabric->nodes[ca].host = index;
    fabric->hosts.push_back(Host{name, std::move(cas)});
  }
  fabric->anonymous_endpoints = std::move(anonymous);
  return absl::OkStatus();
}

}  // namespace toporr::collectors
