// libtoporr's configuration: where the costs come from, how long to wait, what to report.
//
// The C API (client/toporr.h, toporr_options) and the PMPI layer both start from
// ClientOptions{} and apply the TOPORR_* environment variables with OptionsFromEnvironment.
// The library defines no command-line flags. Variables (all optional):
//   TOPORR_SOCKET=PATH       the daemon's Unix socket (default /run/toporr/toporrd.sock)
//   TOPORR_ADDRESS=HOST:PORT the daemon's TCP listener; wins over TOPORR_SOCKET
//   TOPORR_COSTS=FILE        a TOPORRC1/C2 cost file (`toporrctl export --format costs`); wins
//                            over the daemon: no daemon request is made
//   TOPORR_DEADLINE_MS=N     deadline of each daemon request (default 2000, 1..600000)
//   TOPORR_DISABLE=1         never reorder: every call returns a duplicate in identity order
//   TOPORR_VERBOSE=N         0 quiet (default; only the one fallback warning), 1 one line per
//                            decision on rank 0, 2 also each step's timing
//   TOPORR_REPORT=FILE       rank 0 appends one JSON line per decision (decision_report.h)
//   TOPORR_HOSTMAP=FILE      line i names the host of MPI_COMM_WORLD rank i (plan.h
//                            ParseRankHosts format); overrides the host each rank reports
//   TOPORR_ALGORITHM=NAME    force toporr's collectives to one algorithm (mapping/pattern.h
//                            names, e.g. ring, knomial) where the collective has it, or to
//                            the multi-level version ("multilevel": bcast, reduce,
//                            allreduce, gather; client/mpi/multilevel.h)
//   TOPORR_MIN_BYTES=N       the PMPI layer runs toporr's collectives from N bytes up
//                            (default 65536, from bench/results/collectives_smpi.md)
//                            (default 65536); smaller calls go straight to the MPI library
//   TOPORR_COMPRESS_ABOVE=N  jobs of more than N hosts (default 2048) exchange their costs
//                            in leaf-group form, O(n + groups^2) per process, not n^2
//   TOPORR_ROUTES_MAX_HOSTS=N jobs of up to N hosts (default 1024; 0: none) also gather the
//                            routes of their rows on rank 0, which then models the contention
//                            of every fabric link (without: the hosts' own links only)
// A malformed value keeps the default and yields a warning naming the variable.
#ifndef TOPORR_CLIENT_CLIENT_OPTIONS_H_
#define TOPORR_CLIENT_CLIENT_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace toporr::client {

struct ClientOptions {
  std::string socket = "/run/toporr/toporrd.sock";
  std::string address;
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
};

struct EnvironmentOptions {
  ClientOptions options;
  std::vector<std::string> warnings;  // one per malformed variable
};

using GetEnvFn = std::function<const char*(const char*)>;

// `base` with every TOPORR_* variable that is set applied over it.
EnvironmentOptions OptionsFromEnvironment(ClientOptions base, const GetEnvFn& getenv_fn);
EnvironmentOptions OptionsFromEnvironment(ClientOptions base = {});

}  // namespace toporr::client

#endif  // TOPORR_CLIENT_CLIENT_OPTIONS_H_
