#include "fabric/fabric_diff_report.h"

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace toporr::fabric {
namespace {

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

std::string EndText(const LinkEndRef& e) {
  return FormatGuid(e.node_guid) + " " + Quoted(e.node_description) + " port " +
         std::to_string(e.port);
}

std::string RateText(int width, LinkSpeed speed, double gbps) {
  char rate[32];
  std::snprintf(rate, sizeof(rate), "%.4g", gbps);
  return (width > 0 ? std::to_string(width) + "x" : std::string("??")) + LinkSpeedName(speed) +
         " " + rate + " Gb/s";
}

std::string AttachmentText(const SwitchAttachment& s) {
  if (s.switch_guid == 0) return "(not cabled to a switch)";
  return FormatGuid(s.switch_guid) + " " + Quoted(s.switch_description) + " port " +
         std::to_string(s.switch_port);
}

std::string PortText(uint8_t port) {
  return port == ForwardingTables::kUnsetPort ? std::string("unset") : std::to_string(port);
}

template <typename T>
void Section(const std::string& title, const std::vector<T>& items,
             const std::function<std::string(const T&)>& line, size_t cap, std::string* out) {
  if (items.empty()) return;
  *out += title + " (" + std::to_string(items.size()) + "):\n";
  for (size_t i = 0; i < items.size() && i < cap; ++i) *out += "  " + line(items[i]) + "\n";
  if (items.size() > cap) *out += "  ... and " + std::to_string(items.size() - cap) + " more\n";
}

}  // namespace

std::string FormatFabricDiff(const FabricDiff& d, const DiffFormatOptions& options) {
  const size_t cap = options.max_lines_per_section;
  std::string out;
  if (d.empty()) {
    out = "No differences between " + options.label_a + " and " + options.label_b + ".\n";
  } else {
    out = "Changes from " + options.label_a + " to " + options.label_b + ":\n";
  }
  const std::function<std::string(const NodeChange&)> node_line = [](const NodeChange& n) {
    return std::string(NodeTypeName(n.type)) + " " + FormatGuid(n.guid) + " " +
           Quoted(n.description);
  };
  Section("Nodes added", d.nodes_added, node_line, cap, &out);
  Section("Nodes removed", d.nodes_removed, node_line, cap, &out);
  const std::function<std::string(const LinkChange&)> link_line = [](const LinkChange& l) {
    return EndText(l.a) + " <-> " + EndText(l.b) + " (" +
           RateText(l.width_lanes, l.speed, l.data_rate_gbps) + ")";
  };
  Section("Links added", d.links_added, link_line, cap, &out);
  Section("Links removed", d.links_removed, link_line, cap, &out);
  const std::function<std::string(const LinkRateChange&)> rate_line = [](const LinkRateChange& l) {
    return EndText(l.a) + " <-> " + EndText(l.b) + ": " +
           RateText(l.width_before, l.speed_before, l.rate_before_gbps) + " -> " +
           RateText(l.width_after, l.speed_after, l.rate_after_gbps);
  };
  Section("Links degraded", d.links_degraded, rate_line, cap, &out);
  Section("Links upgraded", d.links_upgraded, rate_line, cap, &out);
  const std::function<std::string(const std::string&)> name_line = [](const std::string& s) {
    return s;
  };
  Section("Hosts added", d.hosts_added, name_line, cap, &out);
  Section("Hosts removed", d.hosts_removed, name_line, cap, &out);
  const std::function<std::string(const HostMove&)> move_line = [](const HostMove& m) {
    std::string s = m.host + ":";
    for (size_t i = 0; i < m.ports.size(); ++i) {
      const HostPortMove& p = m.ports[i];
      s += (i ? "; " : " ") + std::string("CA ") + FormatGuid(p.ca_guid) + " port " +
           std::to_string(p.ca_port) + ": " + AttachmentText(p.before) + " -> " +
           AttachmentText(p.after);
    }
    return s;
  };
  Section("Hosts moved", d.hosts_moved, move_line, cap, &out);

  if (!d.routes_compared) {
    out += "Routes: not compared (forwarding tables are missing from one or both snapshots).\n";
    return out;
  }
  out += "Routes: " + std::to_string(d.switches_compared) + " switches x " +
         std::to_string(d.lids_compared) + " LIDs compared; " +
         std::to_string(d.route_changes.size()) + " switches changed entries for " +
         std::to_string(d.destinations_changed) + " destination LIDs; " +
         std::to_string(d.host_pairs_changed) + " of " + std::to_string(d.host_pairs_compared) +
         " host pairs changed route.\n";
  const std::function<std::string(const SwitchRouteChange&)> switch_line =
      [](const SwitchRouteChange& c) {
        std::string s = FormatGuid(c.switch_guid) + " " + Quoted(c.description) + ": " +
                        std::to_string(c.entries_changed) + " of " +
                        std::to_string(c.lids_compared) + " entries changed (";
        for (size_t i = 0; i < c.examples.size(); ++i) {
          const RouteEntryChange& e = c.examples[i];
          s += (i ? ", " : "") + std::string("lid ") + std::to_string(e.lid) + " " + e.destination +
               ": " + PortText(e.port_before) + " -> " + PortText(e.port_after);
        }
        if (c.entries_changed > c.examples.size()) s += ", ...";
        return s + ")";
      };
  Section("Switches with changed routes", d.route_changes, switch_line, cap, &out);
  if (d.destinations_changed > 0) {
    out += "Destinations with changed routes (" + std::to_string(d.destinations_changed) + "):\n";
    const size_t shown = std::min(cap, d.destinations.size());
    for (size_t i = 0; i < shown; ++i) {
      out += "  lid " + std::to_string(d.destinations[i].lid) + " " + d.destinations[i].name +
             " (port " + FormatGuid(d.destinations[i].port_guid) + ")\n";
    }
    if (d.destinations_changed > shown) {
      out += "  ... and " + std::to_string(d.destinations_changed - shown) + " more\n";
    }
  }
  return out;
}

}  // namespace toporr::fabric
