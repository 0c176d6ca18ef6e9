// What the Slurm SPANK plugin (spank_toporr.cc) sets in a job's environment, as pure
// functions of srun's `--toporr` value and the plugin's arguments in plugstack.conf: no
// Slurm, no I/O, so that the parsing and the variables are tested without a cluster.
//
// The option: `--toporr` or `--toporr=auto` (toporr acts where it predicts a gain: the
// library's normal behaviour), `--toporr=off` (toporr never acts: TOPORR_DISABLE=1), or
// `--toporr=report=FILE` (auto, and rank 0 appends one JSON line per decision to FILE;
// "%j" in FILE is the job id, "%%" a '%'). The plugstack.conf arguments:
// `default=auto|off|report=FILE` (the setting of jobs run without --toporr; none: such
// jobs are left alone) and `coll_priority=N` (Open MPI's coll_toporr_priority wherever
// toporr is on, 0..100).
//
// Each setting is given three times, as libtoporr's TOPORR_* variable (read by the PMPI
// layer and the C API, client/config/client_options.cc) and as the MCA parameter of both Open MPI
// components (OMPI_MCA_coll_toporr_*, client/mpi/openmpi_component/coll_toporr.c, and
// OMPI_MCA_topo_toporr_*, topo_toporr.c), so that every way into a job agrees.
// coll_priority is the coll component's alone. Thread-compatible; no state.
#ifndef TOPORR_SCHEDULER_SLURM_JOB_ENVIRONMENT_H_
#define TOPORR_SCHEDULER_SLURM_JOB_ENVIRONMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toporr::scheduler::slurm {

// One `--toporr` value.
struct JobSetting {
  bool enabled = true;
  std::string report;  // report=FILE: FILE with its %j unexpanded; "" = no report
};

// The longest report=FILE path accepted (PATH_MAX).
inline constexpr size_t kMaxReportPath = 4096;

// "auto", "off" or "report=FILE" (`--toporr` alone is "auto": the plugin passes that). nullopt
// with `*error` set to a sentence naming the value and the accepted forms otherwise: an empty
// value (`--toporr=`), any other word, a FILE that is empty, longer than kMaxReportPath,
// holds a control character, or has a '%' not followed by j or %.
std::optional<JobSetting> ParseJobSetting(std::string_view text, std::string* error);

// The plugin's arguments in plugstack.conf.
struct PluginArguments {
  std::optional<JobSetting> site_default;  // default=...
  std::optional<int> coll_priority;        // coll_priority=N
};

// `default=...` and `coll_priority=N`, each at most once. nullopt with `*error` set
// otherwise (an unknown argument, a bad value, a repeat).
std::optional<PluginArguments> ParsePluginArguments(const std::vector<std::string>& args,
                                                    std::string* error);

// Variables that carry one setting and the value they all get.
struct EnvironmentSetting {
  // TOPORR_X first, then OMPI_MCA_coll_toporr_x and OMPI_MCA_topo_toporr_x.
  std::vector<std::string> names;
  std::string value;
  // Whether the value replaces one the job already has. When false and the job's
  // environment has any of `names`, the setting is left out as a whole (the user's own
  // TOPORR_DISABLE=0 also keeps both MCA parameters unset, so all ways agree).
  bool overwrite = false;
};

// The job's settings for `setting`. `explicit_option`: the user gave --toporr (its values
// overwrite the job's environment); otherwise `setting` is the site default, which never
// does. coll_priority is the site's and never overwrites. `job_id` replaces %j in the
// report file (and %% becomes %); without one (salloc and sbatch set the environment before
// the job has an id) FILE stays as given and libtoporr expands %j from SLURM_JOB_ID.
std::vector<EnvironmentSetting> JobEnvironment(const JobSetting& setting, bool explicit_option,
                                               const PluginArguments& site,
                                               std::optional<uint32_t> job_id);

// The variable that carries an explicit --toporr from sbatch or salloc to the job's tasks
// where the job's environment is not exported: sbatch --export=NONE keeps only SLURM_*
// variables (and drops Slurm's own _SLURM_SPANK_OPTION_* carrier of plugin options). Its
// value is the option's text, parsed again by ParseJobSetting where it arrives.
inline constexpr char kOptionCarrier[] = "SLURM_TOPORR_OPTION";

}  // namespace toporr::scheduler::slurm

#endif  // TOPORR_SCHEDULER_SLURM_JOB_ENVIRONMENT_H_
