// spank_toporr.so: Slurm's SPANK plugin for toporr (job_environment.h says what it sets).
// Loaded by srun and sbatch/salloc, which check `--toporr` and print its errors, and by
// slurmstepd, which sets each task's environment before exec (slurm_spank_task_init). salloc
// and sbatch (the allocator context) also set it in their own environment once the options
// are read (slurm_spank_init_post_opt): the command salloc runs (the shell where users type
// mpirun) and an exported batch script inherit it, and kOptionCarrier takes an explicit
// --toporr to the batch step where sbatch --export=NONE exports nothing else. Only this
// file sees Slurm; spank.h's functions come from the process that loads the plugin.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

extern "C" {
#include <slurm/spank.h>
}

#include "scheduler/slurm/job_environment.h"

namespace {

using toporr::scheduler::slurm::EnvironmentSetting;
using toporr::scheduler::slurm::JobSetting;
using toporr::scheduler::slurm::PluginArguments;

// The process's state: a plugin instance lives in one srun or one slurmstepd (one step).
PluginArguments site;
std::optional<JobSetting> option;  // --toporr, when given
std::string option_text;           // its value as given ("auto" for --toporr alone)

// `--toporr` alone reaches srun/sbatch/salloc (local) as no value and slurmstepd (remote) as
// an empty one; an empty value on the command line (`--toporr=`) is refused where it is typed.
int OnOption(int, const char* value, int remote) {
  std::string error;
  const bool alone = value == nullptr || (remote != 0 && *value == '\0');
  option_text = alone ? "auto" : value;
  option = toporr::scheduler::slurm::ParseJobSetting(option_text, &error);
  if (!option.has_value()) {
    slurm_error("toporr: --toporr=%s", error.c_str());
    return -1;
  }
  return 0;
}

struct spank_option toporr_option = {
    const_cast<char*>("toporr"),
    const_cast<char*>("[auto|off|report=FILE]"),
    const_cast<char*>("toporr's topology-aware MPI collectives for this job: auto (the default "
                      "when given alone), off, or report=FILE (auto, and every decision "
                      "appended to FILE; %j is the job id)"),
    2,  // optional argument
    0,
    OnOption,
};

// Whether the job's environment has `name` (a task's, in slurm_spank_task_init).
bool JobHas(spank_t sp, const std::string& name) {
  char ignored[8];
  const spank_err_t rc = spank_getenv(sp, name.c_str(), ignored, sizeof(ignored));
  return rc == ESPANK_SUCCESS || rc == ESPANK_NOSPACE;
}

// The settings of this job: --toporr's (explicit), else the site default's; none if neither.
std::vector<EnvironmentSetting> Settings(std::optional<uint32_t> job_id) {
  if (!option.has_value() && !site.site_default.has_value()) return {};
  const bool explicit_option = option.has_value();
  return toporr::scheduler::slurm::JobEnvironment(explicit_option ? *option : *site.site_default,
                                                  explicit_option, site, job_id);
}

// Sets this job's settings (`job_id` as in Settings) where they belong: a setting any of whose
// names `has` is left out unless it overwrites; each name set through `set` (false: failed,
// logged with `where`). False when a name could not be set.
template <typename Has, typename Set>
bool ApplySettings(std::optional<uint32_t> job_id, Has&& has, Set&& set, const char* where) {
  for (const EnvironmentSetting& s : Settings(job_id)) {
    bool present = false;
    for (const std::string& name : s.names) present = present || has(name);
    if (present && !s.overwrite) continue;
    for (const std::string& name : s.names) {
      if (!set(name, s.value)) {
        slurm_error("toporr: cannot set %s%s", name.c_str(), where);
        return false;
      }
    }
  }
  return true;
}

}  // namespace

extern "C" {

extern const char plugin_name[];
extern const char plugin_type[];
extern const unsigned int plugin_version;
extern const unsigned int spank_plugin_version;
SPANK_PLUGIN(toporr, 1)

// Reads the plugstack.conf arguments and registers --toporr where users give options
// (srun, sbatch, salloc) and where its value arrives (slurmstepd). A bad argument fails the
// plugin's loading, naming it.
int slurm_spank_init(spank_t sp, int argc, char** argv) {
  const spank_context_t context = spank_context();
  if (context != S_CTX_LOCAL && context != S_CTX_REMOTE && context != S_CTX_ALLOCATOR) return 0;
  std::string error;
  auto parsed = toporr::scheduler::slurm::ParsePluginArguments(
      std::vector<std::string>(argv, argv + argc), &error);
  if (!parsed.has_value()) {
    slurm_error("toporr: %s", error.c_str());
    return -1;
  }
  site = *parsed;
  return spank_option_register(sp, &toporr_option) == ESPANK_SUCCESS ? 0 : -1;
}

// In salloc and sbatch: sets this process's environment as a task's would be (without the
// job id, which does not exist yet), and kOptionCarrier for an explicit --toporr.
int slurm_spank_init_post_opt(spank_t, int, char**) {
  if (spank_context() != S_CTX_ALLOCATOR) return 0;
  if (option.has_value() &&
      setenv(toporr::scheduler::slurm::kOptionCarrier, option_text.c_str(), 1) != 0) {
    slurm_error("toporr: cannot set %s", toporr::scheduler::slurm::kOptionCarrier);
    return -1;
  }
  const bool set = ApplySettings(
      std::nullopt, [](const std::string& name) { return getenv(name.c_str()) != nullptr; },
      [](const std::string& name, const std::string& value) {
        return setenv(name.c_str(), value.c_str(), 1) == 0;
      },
      "");
  return set ? 0 : -1;
}

// Sets the task's toporr environment: --toporr's (from the command line or, where Slurm's
// own carrier of options did not come, from kOptionCarrier), else the site default's, else
// nothing.
int slurm_spank_task_init(spank_t sp, int, char**) {
  if (!option.has_value()) {
    char carried[toporr::scheduler::slurm::kMaxReportPath + 16];
    if (spank_getenv(sp, toporr::scheduler::slurm::kOptionCarrier, carried, sizeof(carried)) ==
        ESPANK_SUCCESS) {
      std::string error;
      option = toporr::scheduler::slurm::ParseJobSetting(carried, &error);
      if (!option.has_value()) {  // set by hand: the task runs with the site's setting
        slurm_error("toporr: %s ignored: %s", toporr::scheduler::slurm::kOptionCarrier,
                    error.c_str());
      }
    }
  }
  uint32_t job_id = 0;
  (void)spank_get_item(sp, S_JOB_ID, &job_id);
  const bool set = ApplySettings(
      job_id, [sp](const std::string& name) { return JobHas(sp, name); },
      [sp](const std::string& name, const std::string& value) {
        return spank_setenv(sp, name.c_str(), value.c_str(), 1) == ESPANK_SUCCESS;
      },
      " in the task's environment");
  return set ? 0 : -1;
}

}  // extern "C"
