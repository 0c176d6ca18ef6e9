#include "scheduler/slurm/job_environment.h"

#include <cerrno>
#include <cstdlib>

#include "common/job_path.h"

namespace toporr::scheduler::slurm {
namespace {

constexpr char kForms[] = "auto, off or report=FILE";

// libtoporr's TOPORR_<KEY> and the MCA parameter `key` of Open MPI's coll and topo
// components (both register disable and report), so that an explicit --toporr wins over an
// mca-params.conf for both.
std::vector<std::string> Names(const char* key) {
  std::string upper = key;
  for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return {"TOPORR_" + upper, std::string("OMPI_MCA_coll_toporr_") + key,
          std::string("OMPI_MCA_topo_toporr_") + key};
}

}  // namespace

std::optional<JobSetting> ParseJobSetting(std::string_view text, std::string* error) {
  JobSetting s;
  if (text.empty()) {
    *error = std::string("an empty value: expected ") + kForms;
    return std::nullopt;
  }
  if (text == "auto") return s;
  if (text == "off") {
    s.enabled = false;
    return s;
  }
  constexpr std::string_view kReport = "report=";
  if (text.substr(0, kReport.size()) != kReport) {
    *error = "'" + std::string(text) + "': expected " + kForms;
    return std::nullopt;
  }
  s.report = std::string(text.substr(kReport.size()));
  if (s.report.empty()) {
    *error = "'report=' names no file: expected report=FILE";
    return std::nullopt;
  }
  if (s.report.size() > kMaxReportPath) {
    *error = "report=FILE: a path of " + std::to_string(s.report.size()) + " bytes, more than " +
             std::to_string(kMaxReportPath);
    return std::nullopt;
  }
  for (char c : s.report) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      *error = "report=FILE: the path holds a control character";
      return std::nullopt;
    }
  }
  for (size_t i = 0; i < s.report.size(); ++i) {
    if (s.report[i] != '%') continue;
    if (i + 1 < s.report.size() && (s.report[i + 1] == 'j' || s.report[i + 1] == '%')) {
      ++i;
      continue;
    }
    *error = "'" + std::string(text) + "': in FILE, '%' is followed by j (the job id) or %";
    return std::nullopt;
  }
  return s;
}

std::optional<PluginArguments> ParsePluginArguments(const std::vector<std::string>& args,
                                                    std::string* error) {
  PluginArguments out;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    const bool repeated = (key == "default" && out.site_default.has_value()) ||
                          (key == "coll_priority" && out.coll_priority.has_value());
    if (eq == std::string::npos || (key != "default" && key != "coll_priority")) {
      *error = "unknown plugin argument '" + arg +
               "': expected default=auto|off|report=FILE or coll_priority=N";
      return std::nullopt;
    }
    if (repeated) {
      *error = "plugin argument " + arg + ": " + key + " given twice";
      return std::nullopt;
    }
    if (key == "default") {
      std::string why;
      out.site_default = ParseJobSetting(value, &why);
      if (!out.site_default.has_value()) {
        *error = "plugin argument default=" + value + ": " + why;
        return std::nullopt;
      }
      continue;
    }
    char* end = nullptr;
    errno = 0;
    const long priority = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno != 0 || priority < 0 || priority > 100) {
      *error = "plugin argument " + arg + ": expected coll_priority=N with N in 0..100";
      return std::nullopt;
    }
    out.coll_priority = static_cast<int>(priority);
  }
  return out;
}

std::vector<EnvironmentSetting> JobEnvironment(const JobSetting& setting, bool explicit_option,
                                               const PluginArguments& site,
                                               std::optional<uint32_t> job_id) {
  std::vector<EnvironmentSetting> out;
  out.push_back({Names("disable"), setting.enabled ? "0" : "1", explicit_option});
  if (!setting.enabled) return out;
  if (!setting.report.empty()) {
    out.push_back({Names("report"),
                   job_id.has_value() ? ExpandJobPath(setting.report, std::to_string(*job_id))
                                      : setting.report,
                   explicit_option});
  }
  if (site.coll_priority.has_value()) {
    out.push_back({{"OMPI_MCA_coll_toporr_priority"}, std::to_string(*site.coll_priority), false});
  }
  return out;
}

}  // namespace toporr::scheduler::slurm
