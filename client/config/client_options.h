// libtoporr's configuration: where the costs come from, how to reach the daemon, how long to
// wait, what to report.
//
// Three layers, each overriding the one before, read once per process (LoadClientOptions):
//   1. the defaults below;
//   2. the site configuration file, TOPORR_CONFIG or else /etc/toporr/client.conf: `key =
//      value` lines (common/key_value_file.h) with the keys of the table below. Admins set
//      toporr up there once for every job. A missing file means defaults; a malformed one
//      (an unknown key, a bad value, not a regular file) is ignored as a whole and reported
//      as one warning, naming the file and line, at the first decision (rank 0);
//   3. the environment: key `k` is the variable TOPORR_<K> (upper case); an empty variable
//      is unset. A malformed value keeps the earlier layer's and yields one warning naming
//      the variable.
// toporrctl takes the same settings as flags (--tls-ca for tls_ca, ...). The library defines
// no command-line flags.
//
//   key               default                    meaning
//   socket            /run/toporr/toporrd.sock   the daemon's Unix socket
//   address           (none)                     HOST:PORT of the daemon's TCP listener, or
//                                                several, comma-separated: a standby list
//                                                tried in order (SplitDaemonAddresses); wins
//                                                over socket
//   tls_ca            (none)                     PEM CA file: TLS to `address`, the daemon's
//                                                certificate verified against it and its name
//                                                checked against the host of `address`
//   tls_cert,tls_key  (none)                     PEM client certificate and key (mutual TLS)
//   tls_server_name   (host of address)          name the daemon's certificate must carry
//   insecure          false                      allow plaintext TCP to a non-loopback
//                                                `address` (without tls_ca, a TCP address
//                                                that is not loopback is refused: fallback)
//   costs             (none)                     a TOPORRC1/C2 cost file (`toporrctl export
//                                                --format costs`); wins over the daemon
//   deadline_ms       2000                       deadline of each daemon request, 1..600000
//                                                (with several addresses: of all of them
//                                                together, client/costs/daemon_failover.h)
//   disable           false                      never reorder, never take over a call
//   verbose           0                          0 quiet (one warning per cause per job);
//                                                1 or more: a line per decision and per
//                                                run-time check on rank 0
//   report            (none)                     rank 0 appends one JSON line per decision
//                                                (decision_report.h)
//   hostmap           (none)                     line i names the host of MPI_COMM_WORLD
//                                                rank i (launch_files.h ParseRankHosts)
//   algorithm         (auto)                     force toporr's collectives to one algorithm
//                                                (mapping/schedules/pattern.h names) or
//                                                "multilevel"
//   min_bytes         65536                      the PMPI layer takes over collectives from
//                                                this many bytes (bench/results/
//                                                collectives_smpi.md); smaller calls go
//                                                straight to the MPI library
//   compress_above    2048                       jobs of more hosts exchange their costs in
//                                                leaf-group form, O(n + groups^2) per process
//   routes_max_hosts  1024                       jobs of up to this many hosts (0: none) also
//                                                gather their rows' routes on rank 0, which
//                                                then models every fabric link's contention
//   verify            true                       time the first calls of each decision of
//                                                toporr's collectives against the MPI
//                                                library's own call and keep the faster
//                                                (client/report/verification.h)
//   verify_calls      3                          measured calls of each path, 1..50
//   check_arguments   true                       before toporr runs its own path for a call,
//                                                check that every rank passed the same
//                                                arguments (one 16-byte MPI_Allreduce on the
//                                                caller's communicator); a mismatch goes to
//                                                the MPI library, which reports it. false
//                                                trusts the program: an erroneous one (ranks
//                                                passing different counts) may then hang
//   reproducible      false                      reductions (allreduce, reduce) always by the
//                                                MPI library on the caller's communicator:
//                                                results bitwise as without toporr; toporr
//                                                still reorders (topology functions, C API)
//                                                and runs bcast and allgather
//   profile           (none)                     the PMPI layer counts the job's point-to-
//                                                point, one-sided and collective traffic and
//                                                rank 0 writes it to this file at
//                                                MPI_Finalize (client/profile/traffic_profile.h)
//   profile_time      true                       the profile also times, per rank, the MPI
//                                                calls that wait for other processes (its
//                                                `time` records; two clock reads per such
//                                                call); false leaves them out
//   job_metrics       true                       at MPI_Finalize, MPI_COMM_WORLD rank 0 sends
//                                                the daemon one summary of the job's decisions
//                                                (client/costs/job_report.h; at most 500 ms);
//                                                false sends nothing
#ifndef TOPORR_CLIENT_CONFIG_CLIENT_OPTIONS_H_
#define TOPORR_CLIENT_CONFIG_CLIENT_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace toporr::client {

inline constexpr char kSiteConfigPath[] = "/etc/toporr/client.conf";

struct ClientOptions {
  std::string socket = "/run/toporr/toporrd.sock";
  std::string address;  // HOST:PORT or a comma-separated list of them (SplitDaemonAddresses)
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_server_name;
  bool insecure = false;
  std::string costs_path;
  int deadline_ms = 2000;
  bool disable = false;
  int verbose = 0;
  std::string report_path;
  std::string hostmap_path;
  int compress_above_hosts = 2048;
  int routes_max_hosts = 1024;
  std::string algorithm;  // empty: auto
  int64_t min_bytes = 65536;
  bool verify = true;
  int verify_calls = 3;
  bool check_arguments = true;
  bool reproducible = false;
  std::string profile_path;
  bool profile_time = true;
  bool job_metrics = true;
  // The site configuration file that was applied (empty: none).
  std::string config_path;
};

// The daemon addresses of an `address` value, in the order a client asks them: one
// HOST:PORT, or several separated by commas, blanks around each allowed ("mgmt01:7575,
// mgmt02:7575"). HOST is a name, an IPv4 address or an IPv6 address in brackets
// ("[fd00::1]:7575"); PORT is 1..65535. An empty value is no address (the socket is used).
// kInvalidArgument naming the element (its position and text) for an empty element, one
// that is not HOST:PORT, or one given twice (host names compared without case). The site
// file and TOPORR_ADDRESS are checked with it; the value is kept normalised (the elements
// joined by "," alone).
absl::StatusOr<std::vector<std::string>> SplitDaemonAddresses(std::string_view list);

struct EnvironmentOptions {
  ClientOptions options;
  std::vector<std::string> warnings;  // one per malformed variable, one for a bad file
};

using GetEnvFn = std::function<const char*(const char*)>;

// `base` with every TOPORR_* variable that is set applied over it.
EnvironmentOptions OptionsFromEnvironment(ClientOptions base, const GetEnvFn& getenv_fn);
EnvironmentOptions OptionsFromEnvironment(ClientOptions base = {});

// How the Open MPI components (client/mpi/openmpi_component/) register a setting as an MCA
// parameter <framework>_toporr_<key>: the type Open MPI stores it as, its ompi_info level
// (1..9), which components register it (a mask of the kMca*Settings), and its help.
enum class McaType { kNone, kBool, kInt, kInt64, kString };
inline constexpr int kMcaDecisionSettings = 1;    // both components: what every decision reads
inline constexpr int kMcaCollectiveSettings = 2;  // the coll component: toporr's collectives
struct McaParameter {
  McaType type = McaType::kNone;  // kNone: not a parameter
  int level = 0;
  int groups = 0;
  const char* help = nullptr;
};

struct McaSetting {
  const char* key;
  McaParameter mca;
};

// The settings that are MCA parameters, in the settings table's order.
std::vector<McaSetting> McaSettings();

// The value of setting `key` in `options`, as text ApplyClientSetting takes back unchanged;
// "" for an unknown key.
std::string ClientSettingText(const ClientOptions& options, std::string_view key);

// Applies one setting by its key (a site file's key; the environment variable without its
// TOPORR_ prefix, lower case) with the same check as the environment and the site file: false
// for an unknown key or a value out of its range, with what a good value is in *expected and
// *options unchanged. The Open MPI components validate their parameters through it.
bool ApplyClientSetting(std::string_view key, const std::string& value, ClientOptions* options,
                        std::string* expected);

// Applies the `key = value` lines of a site configuration file to *options. A line that is
// not `key = value` or a value out of its range refuses the file, all or nothing: on
// kInvalidArgument "<file>:<line>: ..." *options is unchanged. With `notes`, what a newer or
// careless file may hold is skipped with one note each instead, the rest applied: an unknown
// key (one a newer release added), a value with an unbalanced double quote, and a key given
// twice (the last one wins); without `notes` they refuse the file too.
absl::Status ParseClientConfig(std::string_view text, std::string_view file_name,
                               ClientOptions* options, std::vector<std::string>* notes = nullptr);

// Whether a site configuration file may be trusted: it decides which daemon a job asks and
// where it writes, so, as ssh refuses a configuration others can change, a file writable by
// every user or owned by a user other than root and the caller is refused:
// kFailedPrecondition "<path>: ..." naming why.
absl::Status CheckTrustedConfig(const std::string& path);

// The report file `path` of a job: where `slurm_job_id` (SLURM_JOB_ID) is set and not empty,
// "%j" becomes it and "%%" a '%' (the Slurm plugin passes its report=FILE on unexpanded where
// the job has no id yet: salloc, sbatch); elsewhere, and for any other '%', `path` as given.
std::string ReportPathForJob(std::string_view path, const char* slurm_job_id);

// The three layers: defaults, the site configuration file (TOPORR_CONFIG from `getenv_fn`,
// else `site_config`), the environment.
EnvironmentOptions LoadClientOptions(const GetEnvFn& getenv_fn,
                                     const std::string& site_config = kSiteConfigPath);

// LoadClientOptions over the process environment, computed on the first call.
const EnvironmentOptions& ProcessClientOptions();

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_CONFIG_CLIENT_OPTIONS_H_
