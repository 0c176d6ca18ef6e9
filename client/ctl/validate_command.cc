#include "client/ctl/validate_command.h"

#include <cmath>
#include <iomanip>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/costs/job_costs.h"
#include "client/ctl/cost_model_fit.h"
#include "client/ctl/probe_validation.h"
#include "collectors/fabric_input.h"
#include "collectors/plogp.h"
#include "common/json_writer.h"
#include "common/output_file.h"
#include "common/status_macros.h"
#include "mapping/costs/cost_model.h"
#include "mapping/costs/host_costs.h"
#include "mapping/routes/lft_routes.h"
#include "toporr/v1/toporr.grpc.pb.h"

namespace toporr::client::ctl {
namespace {

struct ValidateReport {
  std::string probe_name;
  std::string model;  // where the model's costs came from
  Validation v;
  int top = 10;
};

std::string Name(const ValidateReport& r, int host) { return r.v.hosts[host]; }

void ValidateJson(const ValidateReport& r, JsonWriter& w) {
  w.BeginObject();
  w.Field("probe", r.probe_name);
  w.Field("model", r.model);
  w.Field("bytes", r.v.bytes);
  w.Field("hosts", static_cast<int64_t>(r.v.hosts.size()));
  w.Key("missing_hosts");
  w.BeginArray();
  for (const auto& h : r.v.missing) w.String(h);
  w.EndArray();
  w.Field("pairs", static_cast<int64_t>(r.v.pairs.size()));
  w.Field("scale", r.v.scale);
  w.Field("spearman", r.v.spearman);
  w.Key("disagreements");
  w.BeginArray();
  for (size_t i = 0; i < r.v.pairs.size() && static_cast<int>(i) < r.top; ++i) {
    const PairComparison& c = r.v.pairs[i];
    w.BeginObject();
    w.Field("host_a", Name(r, c.x));
    w.Field("host_b", Name(r, c.y));
    w.Field("measured_ns", c.measured_ns);
    w.Field("model_ns", c.model_ns);
    w.Field("ratio", c.ratio);
    w.EndObject();
  }
  w.EndArray();
  w.Key("suspect_links");
  w.BeginArray();
  for (const auto& s : r.v.suspects) {
    w.BeginObject();
    w.Field("link", s.name);
    w.Field("pairs", static_cast<int64_t>(s.pairs));
    w.Field("median_ratio", s.median_ratio);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void ValidateText(const ValidateReport& r, std::ostream& out) {
  out << "validate " << r.probe_name << " against " << r.model << " at " << r.v.bytes
      << " bytes: " << r.v.hosts.size() << " hosts, " << r.v.pairs.size() << " pairs\n";
  if (!r.v.missing.empty()) {
    out << "  not in the model (" << r.v.missing.size() << "):";
    for (size_t i = 0; i < r.v.missing.size() && i < 10; ++i) out << " " << r.v.missing[i];
    out << (r.v.missing.size() > 10 ? " ..." : "") << "\n";
  }
  out << "  measured / model: median " << Fixed(r.v.scale, 3)
      << " (the scale); rank correlation (Spearman) " << Fixed(r.v.spearman, 3) << "\n";
  out << "  pairs that disagree most (ratio = measured / model / median; 1 = as modelled):\n";
  for (size_t i = 0; i < r.v.pairs.size() && static_cast<int>(i) < r.top; ++i) {
    const PairComparison& c = r.v.pairs[i];
    out << "    " << Name(r, c.x) << " " << Name(r, c.y) << "  measured " << Fixed(c.measured_ns, 0)
        << " ns  model " << Fixed(c.model_ns, 0) << " ns  ratio " << Fixed(c.ratio, 2) << "\n";
  }
  if (!r.v.suspects.empty()) {
    out << "  links whose pairs are slowest (median ratio of the pairs routed over them):\n";
    for (size_t i = 0; i < r.v.suspects.size() && i < 5; ++i) {
      const SuspectLink& s = r.v.suspects[i];
      out << "    " << s.name << "  " << s.pairs << " pairs  median ratio "
          << Fixed(s.median_ratio, 2) << "\n";
    }
  }
}

std::string LinkName(const fabric::Fabric& f, int directed_link) {
  const fabric::Link& l = f.links[directed_link / 2];
  const fabric::LinkEnd& from = directed_link % 2 == 0 ? l.a : l.b;
  const fabric::LinkEnd& to = directed_link % 2 == 0 ? l.b : l.a;
  auto end = [&](const fabric::LinkEnd& e) {
    const std::string& d = f.nodes[e.node].description;
    return absl::StrCat("\"", d.empty() ? fabric::FormatGuid(f.nodes[e.node].guid) : d, "\"[",
                        e.port, "]");
  };
  return absl::StrCat(end(from), " -> ", end(to), " (", l.data_rate_gbps, " Gb/s)");
}

// toporr-probe's result at `path`, known by its base name.
absl::StatusOr<collectors::PlogpProbe> ReadProbe(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadInputFile(path, kProfileFileMaxBytes, "probe result"));
  return collectors::ParsePlogpProbe(text, Basename(path));
}

// The fabric dump at `path` in `format`, known by its base name.
absl::StatusOr<fabric::Fabric> ReadFabricDump(const std::string& path, const std::string& format) {
  ASSIGN_OR_RETURN(collectors::InputFormat f, collectors::ParseInputFormat(format));
  ASSIGN_OR_RETURN(std::string dump, ReadInputFile(path, kFabricFileMaxBytes, "fabric dump"));
  collectors::FabricInput input;
  input.format = f;
  input.source_name = Basename(path);
  input.content = dump;
  return collectors::ParseFabricInput(input);
}

absl::StatusOr<Reply> RunValidate(Invocation& inv, const CommandArgs& args) {
  std::string size, top, fabric_path, format = "ibnetdiscover", lfts_path;
  std::vector<std::string> positional;
  RETURN_IF_ERROR(ParseOptions("validate", args,
                               {{"--size", &size},
                                {"--top", &top},
                                {"--fabric", &fabric_path},
                                {"--format", &format},
                                {"--lfts", &lfts_path}},
                               &positional));
  if (positional.size() != 1) return UsageError("validate takes one probe.json file");
  if (!lfts_path.empty() && fabric_path.empty())
    return UsageError("validate: --lfts needs --fabric");
  ValidateReport report;
  ValidationInput in;
  if (!size.empty()) {
    ASSIGN_OR_RETURN(in.bytes, ParseInteger(size, 0, int64_t{1} << 40, "validate: --size"));
  }
  if (!top.empty()) {
    ASSIGN_OR_RETURN(int64_t t, ParseInteger(top, 1, 1 << 20, "validate: --top"));
    report.top = static_cast<int>(t);
  }
  report.probe_name = Basename(positional[0]);
  ASSIGN_OR_RETURN(collectors::PlogpProbe probe, ReadProbe(positional[0]));
  in.probe = &probe;

  JobCosts costs;
  std::unique_ptr<fabric::Fabric> fabric;
  std::unique_ptr<mapping::LftRoutes> lft_routes;
  std::unique_ptr<mapping::RouteSource> job_lft_routes;
  if (!fabric_path.empty()) {
    ASSIGN_OR_RETURN(fabric::Fabric parsed, ReadFabricDump(fabric_path, format));
    fabric = std::make_unique<fabric::Fabric>(std::move(parsed));
    for (const std::string& h : probe.hosts)
      if (fabric->FindHost(h) >= 0) in.hosts.push_back(h);
    ASSIGN_OR_RETURN(costs, JobCostsFromFabric(*fabric, in.hosts));
    report.model = absl::StrCat("fabric ", Basename(fabric_path), " (routes modelled)");
    in.routes = costs.routes.get();
    if (!lfts_path.empty()) {  // the subnet manager's routes instead of the model's
      ASSIGN_OR_RETURN(std::string lfts,
                       ReadInputFile(lfts_path, kFabricFileMaxBytes, "fabric dump"));
      ASSIGN_OR_RETURN(fabric::ForwardingTables tables,
                       collectors::ParseForwardingTablesInput(collectors::InputFormat::kLft,
                                                              Basename(lfts_path), lfts));
      ASSIGN_OR_RETURN(lft_routes, mapping::LftRoutes::Create(*fabric, std::move(tables)));
      std::vector<int> ids;
      for (const std::string& h : in.hosts) ids.push_back(fabric->FindHost(h));
      ASSIGN_OR_RETURN(job_lft_routes, lft_routes->ForJob(ids));
      in.routes = job_lft_routes.get();
      report.model = absl::StrCat("fabric ", Basename(fabric_path), " with the routes of ",
                                  Basename(lfts_path));
    }
    const fabric::Fabric* f_ptr = fabric.get();
    in.link_name = [f_ptr](int l) { return LinkName(*f_ptr, l); };
  } else {
    ASSIGN_OR_RETURN(auto listed,
                     inv.daemon.Call(&v1::Topology::Stub::ListHosts, v1::ListHostsRequest(), 10));
    std::set<std::string> known;
    for (const auto& h : listed.hosts()) known.insert(h.name());
    for (const std::string& h : probe.hosts)
      if (known.count(h)) in.hosts.push_back(h);
    if (in.hosts.size() < 2) {
      return absl::FailedPreconditionError(
          absl::StrCat("validate: ", in.hosts.size(), " of the probe's ", probe.hosts.size(),
                       " hosts are in the daemon's snapshot ", listed.snapshot_id()));
    }
    ASSIGN_OR_RETURN(CostMatrixAnswer answer, FetchCostMatrix(inv.daemon, in.hosts, 30));
    ASSIGN_OR_RETURN(costs,
                     JobCostsFromMatrix(answer.costs.n,
                                        std::vector<double>(answer.costs.latency_ns.begin(),
                                                            answer.costs.latency_ns.end()),
                                        std::vector<double>(answer.costs.bottleneck_gbps.begin(),
                                                            answer.costs.bottleneck_gbps.end())));
    report.model = absl::StrCat("toporrd snapshot ", answer.resp.snapshot_id(), " (",
                                v1::RouteKind_Name(answer.resp.route_kind()), ")");
  }
  in.model = costs.costs.get();
  ASSIGN_OR_RETURN(report.v, ValidateProbe(in));
  return ReplyOf(std::move(report), ValidateJson, ValidateText);
}

struct CalibrateReport {
  std::string probe_name;
  std::string fabric_name;
  CostModelFit fit;
  std::string settings;  // the lines for toporrd.conf
  std::string output;    // the file they were written to, if any
};

void CalibrateJson(const CalibrateReport& r, JsonWriter& w) {
  const CostModelFit& f = r.fit;
  w.BeginObject();
  w.Field("probe", r.probe_name);
  w.Field("fabric", r.fabric_name);
  w.Field("kind", f.kind);
  w.Field("hosts", static_cast<int64_t>(f.hosts.size()));
  w.Field("pairs", static_cast<int64_t>(f.pairs));
  w.Key("missing_hosts");
  w.BeginArray();
  for (const auto& h : f.missing) w.String(h);
  w.EndArray();
  w.Key("sizes");
  w.BeginArray();
  for (int64_t s : f.sizes) w.Int(s);
  w.EndArray();
  for (const auto& [name, m] : {std::pair("preset", &f.before), std::pair("fitted", &f.after)}) {
    w.Key(name);
    w.BeginObject();
    w.Field("nic_latency_ns", m->nic_latency_ns);
    w.Field("switch_latency_ns", m->switch_latency_ns);
    w.Field("link_latency_ns", m->link_latency_ns);
    w.Field("per_message_ns", m->per_message_ns);
    w.Field("host_rate_scale", m->host_rate_scale);
    w.Field("switch_rate_scale", m->switch_rate_scale);
    w.EndObject();
  }
  w.Key("classes");
  w.BeginArray();
  for (const SwitchClassFit& c : f.classes) {
    w.BeginObject();
    w.Field("switches", static_cast<int64_t>(c.switches));
    w.Field("pairs", static_cast<int64_t>(c.pairs));
    w.Field("measured_latency_ns", c.measured_latency_ns);
    w.Field("preset_latency_ns", c.before_latency_ns);
    w.Field("fitted_latency_ns", c.after_latency_ns);
    w.Field("fabric_gbps", c.fabric_gbps);
    w.Field("measured_gbps", c.measured_gbps);
    w.Field("fitted_gbps", c.after_gbps);
    w.EndObject();
  }
  w.EndArray();
  w.Field("points", static_cast<int64_t>(f.points));
  w.Field("within_25_percent_preset", static_cast<int64_t>(f.within_before));
  w.Field("within_25_percent_fitted", static_cast<int64_t>(f.within_after));
  w.Field("settings", r.settings);
  if (!r.output.empty()) w.Field("output", r.output);
  w.EndObject();
}

std::string Share(int part, int whole) {
  return absl::StrCat(part, " of ", whole, " (", whole > 0 ? 100 * part / whole : 0, " %)");
}

void CalibrateText(const CalibrateReport& r, std::ostream& out) {
  const CostModelFit& f = r.fit;
  out << "calibrate " << r.probe_name << " on " << r.fabric_name << " (kind " << f.kind
      << "): " << f.hosts.size() << " hosts, " << f.pairs << " pairs, sizes";
  for (int64_t s : f.sizes) out << " " << s;
  out << "\n";
  if (!f.missing.empty()) {
    out << "  not in the fabric (" << f.missing.size() << "):";
    for (size_t i = 0; i < f.missing.size() && i < 10; ++i) out << " " << f.missing[i];
    out << (f.missing.size() > 10 ? " ..." : "") << "\n";
  }
  out << "  switches  pairs | latency us: measured  preset  fitted | rate Gb/s: fabric  measured"
         "  fitted\n";
  for (const SwitchClassFit& c : f.classes) {
    out << "  " << std::setw(8) << c.switches << "  " << std::setw(5) << c.pairs << " | "
        << std::setw(20) << Fixed(c.measured_latency_ns / 1e3, 1) << std::setw(8)
        << Fixed(c.before_latency_ns / 1e3, 1) << std::setw(8) << Fixed(c.after_latency_ns / 1e3, 1)
        << " | " << std::setw(17) << Fixed(c.fabric_gbps, 3) << std::setw(10)
        << Fixed(c.measured_gbps, 3) << std::setw(8) << Fixed(c.after_gbps, 3) << "\n";
  }
  out << "  (pair, size) points within 25 % of the model: preset "
      << Share(f.within_before, f.points) << ", fitted " << Share(f.within_after, f.points) << "\n";
  out << (r.output.empty() ? "  settings for toporrd.conf (restart toporrd; offline: toporrctl "
                             "plan --cost-model FILE):\n"
                           : "  settings written to " + r.output +
                                 " (toporrd.conf; offline: "
                                 "toporrctl plan --cost-model " +
                                 r.output + "):\n");
  out << r.settings;
}

absl::StatusOr<Reply> RunCalibrate(Invocation&, const CommandArgs& args) {
  std::string fabric_path, format = "ibnetdiscover", kind = "infiniband-hdr", output;
  std::vector<std::string> positional;
  RETURN_IF_ERROR(ParseOptions(
      "calibrate", args,
      {{"--fabric", &fabric_path}, {"--format", &format}, {"--kind", &kind}, {"--output", &output}},
      &positional));
  if (positional.size() != 1) return UsageError("calibrate takes one probe.json file");
  if (fabric_path.empty()) return UsageError("calibrate: --fabric DUMP is required");
  mapping::CostModelSettings preset;
  if (absl::Status s = mapping::ApplyCostModelSetting("cost_model", kind, &preset); !s.ok()) {
    return UsageError(absl::StrCat("calibrate: --kind: ", s.message()));
  }
  CalibrateReport report;
  report.probe_name = Basename(positional[0]);
  report.fabric_name = Basename(fabric_path);
  ASSIGN_OR_RETURN(collectors::PlogpProbe probe, ReadProbe(positional[0]));
  ASSIGN_OR_RETURN(const fabric::Fabric fabric, ReadFabricDump(fabric_path, format));
  CostModelFitInput in;
  in.probe = &probe;
  in.kind = kind;
  std::vector<int> ids;
  for (const std::string& h : probe.hosts) {
    if (const int id = fabric.FindHost(h); id >= 0) {
      in.hosts.push_back(h);
      ids.push_back(id);
    }
  }
  in.costs = [&fabric, &ids](const mapping::CostModelOptions& model)
      -> absl::StatusOr<std::vector<mapping::HostPairCost>> {
    ASSIGN_OR_RETURN(auto costs,
                     mapping::HostCosts::Create(mapping::ScaledFabric(fabric, model), model));
    std::vector<mapping::HostPairCost> matrix;
    costs->Matrix(ids, &matrix);
    return matrix;
  };
  ASSIGN_OR_RETURN(report.fit, FitCostModel(in));
  report.settings = mapping::CostModelSettingLines(kind, report.fit.after);
  if (!output.empty()) {
    RETURN_IF_ERROR(WriteFileReplacing(
        output,
        absl::StrCat("# toporrctl calibrate ", report.probe_name, " on ", report.fabric_name,
                     ": the cost model fitted to the machine\n", report.settings)));
    report.output = output;
  }
  return ReplyOf(std::move(report), CalibrateJson, CalibrateText);
}

}  // namespace

std::vector<Command> ValidateCommands() {
  return {{"validate",
           "  validate [--size BYTES] [--top N] [--fabric DUMP [--format F] [--lfts DUMP_FTS]]\n"
           "           PROBE.json\n"
           "                       measured costs (toporr-probe's probe.json) against the\n"
           "                       model's: per host pair measured / model over the median\n"
           "                       ratio, rank correlation, the N (10) pairs that disagree\n"
           "                       most; with --fabric (offline, routes modelled) also the\n"
           "                       links the slowest pairs share (routes: the model's, or\n"
           "                       the LFTs of --lfts). Size: one the probe\n"
           "                       measured (default its largest).\n",
           RunValidate},
          {"calibrate",
           "  calibrate --fabric DUMP [--format F] [--kind KIND] [--output FILE] PROBE.json\n"
           "                       the cost model's constants fitted to toporr-probe's\n"
           "                       measurement of the cluster (measure at least two sizes:\n"
           "                       --sizes 0,65536,1048576): per-message latency, switch\n"
           "                       latency and the host and switch cable rate scales, over\n"
           "                       KIND's preset (infiniband-hdr, infiniband-ndr,\n"
           "                       infiniband-edr, omni-path, roce, tcp). Shows the fit per\n"
           "                       switch count and the points within 25 % before and after;\n"
           "                       prints (or writes to FILE) the cost_model lines for\n"
           "                       toporrd.conf and toporrctl plan --cost-model.\n",
           RunCalibrate}};
}

}  // namespace toporr::client::ctl
