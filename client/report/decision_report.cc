#include "client/report/decision_report.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/json_writer.h"
#include "common/output_file.h"

namespace toporr::client {

void StagesJson(const std::vector<PlanStage>& stages, JsonWriter& w) {
  if (stages.empty()) {
    w.Null();
    return;
  }
  w.BeginArray();
  for (const PlanStage& s : stages) {
    w.BeginObject();
    w.Field("level", s.level);
    w.Field("collective", s.collective);
    w.Field("algorithm", s.algorithm);
    w.Field("groups", static_cast<int64_t>(s.groups));
    w.Field("max_members", static_cast<int64_t>(s.max_members));
    w.Field("predicted_ns", s.time_ns);
    w.EndObject();
  }
  w.EndArray();
}

namespace {

// The fields every report line of decision `d` starts with: which line it is and what was
// decided for which call.
void DecisionKeyFields(const char* event, const Decision& d, JsonWriter& w) {
  w.Field("event", event);
  w.Field("collective", d.collective);
  w.Field("algorithm", d.algorithm);
  w.Field("chosen_algorithm", d.chosen_algorithm);
  w.Field("bytes", d.bytes);
  w.Field("root", d.root);
  w.Field("size", d.size);
}

}  // namespace

std::string DecisionJsonLine(const Decision& d) {
  std::ostringstream out;
  JsonWriter w(&out);
  w.BeginObject();
  DecisionKeyFields("decision", d, w);
  w.Field("hosts", d.hosts);
  w.Field("source", d.source);
  w.Key("fallback_reason");
  if (d.fallback_reason.empty()) {
    w.Null();
  } else {
    w.String(d.fallback_reason);
  }
  w.Key("daemon_address");
  if (d.daemon_address.empty()) {
    w.Null();
  } else {
    w.String(d.daemon_address);
  }
  w.Key("snapshot_id");
  if (d.snapshot_id > 0) {
    w.Int(d.snapshot_id);
  } else {
    w.Null();
  }
  w.Key("cost_form");
  if (d.cost_form.empty()) {
    w.Null();
  } else {
    w.String(d.cost_form);
  }
  w.Key("contention");
  if (d.contention.empty()) {
    w.Null();
  } else {
    w.String(d.contention);
  }
  w.Key("new_order");
  w.BeginArray();
  for (int32_t r : d.new_order) w.Int(r);
  w.EndArray();
  auto maybe = [&](const char* key, double v) {
    w.Key(key);
    if (v >= 0) {
      w.Double(v);
    } else {
      w.Null();
    }
  };
  maybe("predicted_before_ns", d.predicted_before_ns);
  maybe("predicted_after_ns", d.predicted_after_ns);
  w.Key("leaf_sorted");
  if (d.leaf_sorted.has_value()) {
    w.BeginObject();
    w.Field("algorithm", d.leaf_sorted->algorithm);
    w.Field("effective", d.leaf_sorted->effective);
    w.Field("predicted_ns", d.leaf_sorted->predicted_ns);
    w.EndObject();
  } else {
    w.Null();
  }
  w.Key("candidates");
  w.BeginArray();
  for (const CandidateTime& c : d.candidates) {
    w.BeginObject();
    w.Field("algorithm", c.algorithm);
    w.Field("mapping", c.mapping);
    w.Field("predicted_ns", c.predicted_ns);
    w.Field("effective", c.effective);
    w.EndObject();
  }
  w.EndArray();
  w.Key("levels");
  if (d.levels.empty()) {
    w.Null();
  } else {
    w.BeginArray();
    for (const std::string& l : d.levels) w.String(l);
    w.EndArray();
  }
  w.Key("stages");
  StagesJson(d.stages, w);
  w.Field("cached", d.cached);
  w.Field("retry", d.retry);
  w.Field("elapsed_us", d.elapsed_us);
  w.EndObject();
  out << '\n';
  return out.str();
}

absl::Status AppendReportLine(const std::string& path, const std::string& line) {
  return AppendToFile(path, line);  // a regular file, never a planted link; never blocks
}

std::string VerificationJsonLine(const Decision& d, const Verification& v,
                                 bool library_leaf_sorted) {
  std::ostringstream out;
  JsonWriter w(&out);
  w.BeginObject();
  DecisionKeyFields("verified", d, w);
  auto times = [&](const char* key, const std::vector<double>& s) {
    w.Key(key);
    w.BeginArray();
    for (double x : s) w.Double(x * 1e6);
    w.EndArray();
  };
  times("toporr_us", v.toporr_s());
  times("library_us", v.library_s());
  w.Field("toporr_median_us", v.toporr_median_s() * 1e6);
  w.Field("library_median_us", v.library_median_s() * 1e6);
  w.Field("library_order", library_leaf_sorted ? "leaf-sorted" : "caller");
  w.Field("verdict", Verification::VerdictName(v.verdict()));
  w.EndObject();
  out << '\n';
  return out.str();
}

}  // namespace toporr::client
