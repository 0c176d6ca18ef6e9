// A path naming a batch job's file, as Slurm writes them: "%j" is the job id and "%%" a '%'.
// The one expansion of both the Slurm plugin (scheduler/slurm) and libtoporr's report file.
#ifndef TOPORR_COMMON_JOB_PATH_H_
#define TOPORR_COMMON_JOB_PATH_H_

#include <string>
#include <string_view>

namespace toporr {

// `path` with every "%j" as `job_id` and every "%%" as '%'; any other '%' (and a trailing
// one) stays as it is.
inline std::string ExpandJobPath(std::string_view path, std::string_view job_id) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    const bool escape = path[i] == '%' && i + 1 < path.size();
    if (escape && path[i + 1] == 'j') {
      out += job_id;
      ++i;
    } else if (escape && path[i + 1] == '%') {
      out += '%';
      ++i;
    } else {
      out += path[i];
    }
  }
  return out;
}

}  // namespace toporr

#endif  // TOPORR_COMMON_JOB_PATH_H_
