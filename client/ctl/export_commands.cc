#include "client/ctl/export_commands.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/costs/cost_file.h"
#include "client/ctl/topology_export.h"
#include "common/json_writer.h"
#include "common/output_file.h"
#include "common/status_macros.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::client::ctl {
namespace {

struct ExportAnswer {
  std::string path;
  int64_t snapshot_id = 0;
  int hosts = 0;
  size_t bytes = 0;
  bool routes = false;  // TOPORRC2: the routes are in the file
};

// Written to a new temporary file beside `path` and renamed over it: a reader never sees
// half, and no link at either name is followed (common/output_file.h).
absl::Status WriteAtomically(const std::string& path, const std::string& bytes) {
  return WriteFileReplacing(path, bytes);
}

// What `export` was asked for.
struct ExportRequest {
  std::string format;
  std::string output;  // "" when printed
  std::vector<std::string> hosts;
};

struct TopologyExport {
  std::string format;
  std::string path;  // "" when printed
  int64_t snapshot_id = 0;
  std::string content;
};

// A topology format's renderer: the snapshot, or the part `hosts` selects, as text.
using RenderTopology = absl::StatusOr<std::string> (*)(const v1::GetTopologyResponse& topo,
                                                       const std::vector<std::string>& hosts);

// The snapshot's topology (GetTopology) rendered by `render`, printed or written to the
// request's output.
absl::StatusOr<Reply> ExportTopology(Invocation& inv, const ExportRequest& request,
                                     RenderTopology render) {
  ASSIGN_OR_RETURN(v1::GetTopologyResponse topo,
                   inv.daemon.Call(&v1::Topology::Stub::GetTopology, v1::GetTopologyRequest(), 30));
  TopologyExport answer{request.format, request.output, topo.snapshot().id(), ""};
  ASSIGN_OR_RETURN(answer.content, render(topo, request.hosts));
  if (!request.output.empty()) RETURN_IF_ERROR(WriteAtomically(request.output, answer.content));
  return ReplyOf(
      std::move(answer),
      [](const TopologyExport& a, JsonWriter& w) {
        w.BeginObject();
        w.Field("format", a.format);
        w.Field("snapshot_id", a.snapshot_id);
        if (!a.path.empty()) {
          w.Field("file", a.path);
          w.Field("bytes", static_cast<int64_t>(a.content.size()));
        } else {
          w.Field("content", a.content);
        }
        w.EndObject();
      },
      [](const TopologyExport& a, std::ostream& out) {
        if (a.path.empty()) {
          out << a.content;
        } else {
          out << "wrote " << a.format << " of snapshot " << a.snapshot_id << " ("
              << a.content.size() << " bytes) to " << a.path << "\n";
        }
      });
}

// The whole snapshot as JSON: a host list is refused before the daemon is asked.
absl::StatusOr<Reply> ExportJson(Invocation& inv, const ExportRequest& request) {
  if (!request.hosts.empty()) {
    return UsageError("export: --format json is the whole snapshot (no hosts)");
  }
  return ExportTopology(inv, request,
                        [](const v1::GetTopologyResponse& topo,
                           const std::vector<std::string>& hosts) -> absl::StatusOr<std::string> {
                          return TopologyJson(topo);
                        });
}

// The cost matrix of the request's hosts as a client/costs/cost_file.h file at the request's
// output.
absl::StatusOr<Reply> ExportCosts(Invocation& inv, const ExportRequest& request) {
  const std::string& output = request.output;
  const std::vector<std::string>& hosts = request.hosts;
  if (output.empty()) return UsageError("export: --output FILE is required");
  if (hosts.empty()) return UsageError("export: name the job's hosts (HOST... or --hosts H1,H2)");

  ASSIGN_OR_RETURN(CostMatrixAnswer served,
                   FetchCostMatrix(inv.daemon, hosts, 30, hosts.size() <= kMaxRouteMatrixHosts));
  CostFile file;
  file.snapshot_id = served.resp.snapshot_id();
  file.hosts.assign(served.resp.hosts().begin(), served.resp.hosts().end());
  file.costs = std::move(served.costs);
  std::vector<std::string> warnings;
  if (served.routes != nullptr) {
    file.routes = CostFileRoutesOf(*served.routes, static_cast<int>(file.hosts.size()));
  } else {
    warnings.push_back(absl::StrCat("no routes in ", output, ": ",
                                    hosts.size() > kMaxRouteMatrixHosts
                                        ? absl::StrCat("more than ", kMaxRouteMatrixHosts, " hosts")
                                        : served.routes_missing,
                                    " (libtoporr then models the hosts' own links only)"));
  }
  ASSIGN_OR_RETURN(std::string bytes, EncodeCostFile(file));
  RETURN_IF_ERROR(WriteAtomically(output, bytes));

  ExportAnswer answer{output, file.snapshot_id, static_cast<int>(file.hosts.size()), bytes.size(),
                      !file.routes.empty()};
  Reply reply = ReplyOf(
      std::move(answer),
      [](const ExportAnswer& a, JsonWriter& w) {
        w.BeginObject();
        w.Field("file", a.path);
        w.Field("format", "costs");
        w.Field("snapshot_id", a.snapshot_id);
        w.Field("hosts", a.hosts);
        w.Field("bytes", static_cast<int64_t>(a.bytes));
        w.Field("routes", a.routes);
        w.EndObject();
      },
      [](const ExportAnswer& a, std::ostream& out) {
        out << "wrote costs " << (a.routes ? "and routes " : "") << "of " << a.hosts
            << " hosts (snapshot " << a.snapshot_id << ", " << a.bytes << " bytes) to " << a.path
            << "\n";
      });
  reply.warnings = std::move(warnings);
  return reply;
}

// The arguments of `export --format NAME` in the help, by the formats that take them.
constexpr char kToFile[] = "--output FILE (HOST... | --hosts H1,H2)";
constexpr char kPrintedOrToFile[] = "[--output FILE] [HOST... | --hosts H1,H2]";

// One format of `export`: its --format name, its arguments and what it writes (its
// `toporrctl help` entry; consecutive formats of the same arguments share one), and its
// writer.
struct Format {
  const char* name;
  const char* arguments;
  const char* description;
  absl::StatusOr<Reply> (*write)(Invocation& inv, const ExportRequest& request);
};

#define TOPORR_TOPOLOGY(render) \
  [](Invocation& inv, const ExportRequest& r) { return ExportTopology(inv, r, render); }

// In the order of the help and of the refusal of an unknown format.
constexpr Format kFormats[] = {
    {"costs", kToFile, "the job's cost matrix for libtoporr's TOPORR_COSTS (no daemon needed)",
     ExportCosts},
    {"slurm-topology", kPrintedOrToFile, "Slurm topology.conf (tree plugin)",
     TOPORR_TOPOLOGY(SlurmTopologyConf)},
    {"slurm-topology-yaml", kPrintedOrToFile, "Slurm topology.yaml (25.05+: tree and block)",
     TOPORR_TOPOLOGY(SlurmTopologyYaml)},
    {"slurm-block", kPrintedOrToFile, "topology.conf of the block plugin (a block per leaf switch)",
     TOPORR_TOPOLOGY(SlurmBlockConf)},
    {"k8s-labels", kPrintedOrToFile,
     "a kubectl script setting topograph 1.0's fabric.topograph.run/tier-{0,1,2} node labels",
     TOPORR_TOPOLOGY(KubernetesLabels)},
    {"k8s-labels-legacy", kPrintedOrToFile,
     "the same in topograph's legacy network.topology.nvidia.com/{leaf,spine,core} labels",
     TOPORR_TOPOLOGY(KubernetesLegacyLabels)},
    {"kueue-topology", kPrintedOrToFile,
     "Kueue's Topology object over those labels (topology-aware scheduling)",
     TOPORR_TOPOLOGY(KueueTopology)},
    {"mpich-coordinates", kPrintedOrToFile,
     "MPICH's MPIR_CVAR_COORDINATES_FILE (hosts in rank order)", TOPORR_TOPOLOGY(MpichCoordinates)},
    {"dot", kPrintedOrToFile, "a Graphviz picture with link rates", TOPORR_TOPOLOGY(FabricDot)},
    {"json", kPrintedOrToFile, "the snapshot as JSON", ExportJson},
};

#undef TOPORR_TOPOLOGY

// Help lines are at most this long.
constexpr size_t kHelpWidth = 81;

// `text` as lines of at most kHelpWidth characters, the first starting with `first`, the
// others with `indent`, each ending in '\n'. A line breaks after a space (dropped), a '|'
// or a ',' (kept); a piece with no break in it longer than a line stays whole.
std::string Wrap(std::string_view text, std::string_view first, std::string_view indent) {
  std::string out;
  std::string line(first);
  bool line_has_text = false, space_before = false;
  while (!text.empty()) {
    size_t end = text.find_first_of(" |,");
    end = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view piece = text.substr(0, end);
    text.remove_prefix(end);
    const bool space_after = piece.back() == ' ';
    if (space_after) piece.remove_suffix(1);
    if (line_has_text && line.size() + space_before + piece.size() > kHelpWidth) {
      absl::StrAppend(&out, line, "\n");
      line = std::string(indent);
      space_before = false;
    }
    if (space_before) line += ' ';
    line.append(piece.data(), piece.size());
    line_has_text = true;
    space_before = space_after;
  }
  return absl::StrCat(out, line, "\n");
}

// `export`'s entry in `toporrctl help`: per run of formats taking the same arguments, their
// names and arguments, then what each writes.
std::string ExportUsage() {
  std::string usage;
  const size_t n = std::size(kFormats);
  for (size_t i = 0; i < n;) {
    std::string names, descriptions;
    size_t j = i;
    for (; j < n && std::string_view(kFormats[j].arguments) == kFormats[i].arguments; ++j) {
      absl::StrAppend(&names, j > i ? "|" : "", kFormats[j].name);
      absl::StrAppend(&descriptions, j > i ? ", " : "", kFormats[j].description);
    }
    absl::StrAppend(&usage,
                    Wrap(absl::StrCat("export --format ", names, " ", kFormats[i].arguments), "  ",
                         "         "),
                    Wrap(descriptions, "      ", "      "));
    i = j;
  }
  return usage;
}

// "a, b or c": the format names.
std::string FormatNames() {
  std::string names;
  const size_t n = std::size(kFormats);
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&names, i == 0 ? "" : i + 1 == n ? " or " : ", ", kFormats[i].name);
  }
  return names;
}

absl::StatusOr<Reply> Export(Invocation& inv, const CommandArgs& args) {
  ExportRequest request;
  std::string host_list;
  RETURN_IF_ERROR(ParseOptions(
      "export", args,
      {{"--format", &request.format}, {"--output", &request.output}, {"--hosts", &host_list}},
      &request.hosts));
  if (!host_list.empty()) RETURN_IF_ERROR(AppendHostList("export", host_list, &request.hosts));
  for (const Format& f : kFormats) {
    if (request.format == f.name) return f.write(inv, request);
  }
  return UsageError(absl::StrCat("export: --format is ", FormatNames()));
}

}  // namespace

std::vector<Command> ExportCommands() { return {{"export", ExportUsage(), Export}}; }

}  // namespace toporr::client::ctl
