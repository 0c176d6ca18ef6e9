#include "client/ctl/export_commands.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/cost_file.h"
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

struct TopologyExport {
  std::string format;
  std::string path;  // "" when printed
  int64_t snapshot_id = 0;
  std::string content;
};

constexpr const char* kTopologyFormats[] = {"slurm-topology",
                                            "slurm-topology-yaml",
                                            "slurm-block",
                                            "k8s-labels",
                                            "mpich-coordinates",
                                            "dot",
                                            "json"};

// The snapshot's topology (GetTopology) in `format`, printed or written to `output`.
absl::StatusOr<Reply> ExportTopology(Invocation& inv, const std::string& format,
                                     const std::string& output,
                                     const std::vector<std::string>& hosts) {
  if (format == "json" && !hosts.empty()) {
    return UsageError("export: --format json is the whole snapshot (no hosts)");
  }
  ASSIGN_OR_RETURN(v1::GetTopologyResponse topo,
                   inv.daemon.Call(&v1::Topology::Stub::GetTopology, v1::GetTopologyRequest(), 30));
  TopologyExport answer{format, output, topo.snapshot().id(), ""};
  if (format == "slurm-topology") {
    ASSIGN_OR_RETURN(answer.content, SlurmTopologyConf(topo, hosts));
  } else if (format == "slurm-topology-yaml") {
    ASSIGN_OR_RETURN(answer.content, SlurmTopologyYaml(topo, hosts));
  } else if (format == "slurm-block") {
    ASSIGN_OR_RETURN(answer.content, SlurmBlockConf(topo, hosts));
  } else if (format == "k8s-labels") {
    ASSIGN_OR_RETURN(answer.content, KubernetesLabels(topo, hosts));
  } else if (format == "mpich-coordinates") {
    ASSIGN_OR_RETURN(answer.content, MpichCoordinates(topo, hosts));
  } else if (format == "dot") {
    ASSIGN_OR_RETURN(answer.content, FabricDot(topo, hosts));
  } else {
    answer.content = TopologyJson(topo);
  }
  if (!output.empty()) RETURN_IF_ERROR(WriteAtomically(output, answer.content));
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

absl::StatusOr<Reply> Export(Invocation& inv, const CommandArgs& args) {
  std::string format, output, host_list;
  std::vector<std::string> hosts;
  RETURN_IF_ERROR(ParseOptions(
      "export", args, {{"--format", &format}, {"--output", &output}, {"--hosts", &host_list}},
      &hosts));
  if (!host_list.empty()) RETURN_IF_ERROR(AppendHostList("export", host_list, &hosts));
  for (const char* f : kTopologyFormats) {
    if (format == f) return ExportTopology(inv, format, output, hosts);
  }
  if (format != "costs") {
    return UsageError(
        "export: --format is costs, slurm-topology, slurm-topology-yaml, slurm-block, "
        "k8s-labels, mpich-coordinates, dot or json");
  }
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

}  // namespace

std::vector<Command> ExportCommands() {
  return {{"export",
           "  export --format costs --output FILE (HOST... | --hosts H1,H2)\n"
           "      the job's cost matrix for libtoporr's TOPORR_COSTS (no daemon needed)\n"
           "  export --format slurm-topology|slurm-topology-yaml|slurm-block|k8s-labels|\n"
           "         mpich-coordinates|dot|json [--output FILE] [HOST... | --hosts H1,H2]\n"
           "      Slurm topology.conf (tree plugin), Slurm topology.yaml (25.05+: tree and\n"
           "      block), topology.conf of the block plugin (a block per leaf switch), a\n"
           "      kubectl script setting topograph's network.topology.nvidia.com/{leaf,spine,\n"
           "      core} node labels, MPICH's MPIR_CVAR_COORDINATES_FILE (hosts in rank\n"
           "      order), a Graphviz picture with link rates, the snapshot as JSON\n",
           Export}};
}

}  // namespace toporr::client::ctl
