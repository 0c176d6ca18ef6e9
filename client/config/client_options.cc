#include "client/config/client_options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/job_path.h"
#include "common/key_value_file.h"
#include "common/status_macros.h"

namespace toporr::client {
namespace {

// One setting: its key (the environment variable is TOPORR_<KEY>), how to apply a value
// (false: malformed), what a good value is (for the warning), its value as text, and how the
// Open MPI components register it (McaParameter; type kNone: not a parameter).
struct Setting {
  const char* key;
  bool (*apply)(const std::string& value, ClientOptions* o);
  std::string (*text)(const ClientOptions& o);
  const char* expected;
  McaParameter mca;
  // For a value `apply` refused: `expected` and what is wrong with this value (which part);
  // null: `expected` alone.
  std::string (*refusal)(const std::string& value) = nullptr;
};

// What a refused value of `s` is told: the setting's expectation, and for a list which
// element is wrong.
std::string Refusal(const Setting& s, const std::string& value) {
  return s.refusal != nullptr ? s.refusal(value) : s.expected;
}

constexpr char kAddressExpected[] = "HOST:PORT or a comma-separated list of them";

bool ApplyAddress(const std::string& value, ClientOptions* o) {
  absl::StatusOr<std::vector<std::string>> list = SplitDaemonAddresses(value);
  if (!list.ok()) return false;
  o->address = absl::StrJoin(*list, ",");
  return true;
}

std::string AddressRefusal(const std::string& value) {
  absl::StatusOr<std::vector<std::string>> list = SplitDaemonAddresses(value);
  if (list.ok()) return kAddressExpected;
  return absl::StrCat(kAddressExpected, " (", list.status().message(), ")");
}

// One element of an address list: "" when it is HOST:PORT, else what is wrong with it.
std::string AddressProblem(const std::string& a) {
  if (a.empty()) return "is empty";
  const size_t colon = a.rfind(':');
  if (colon == std::string::npos) return "has no :PORT";
  std::string host = a.substr(0, colon);
  const std::string port = a.substr(colon + 1);
  int port_number = 0;
  if (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), [](char c) { return absl::ascii_isdigit(c); }) ||
      !absl::SimpleAtoi(port, &port_number) || port_number < 1 || port_number > 65535) {
    return "has no port in 1..65535 after its last ':'";
  }
  if (host.empty()) return "has no HOST";
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return "has an unclosed '[' (IPv6: [ADDR]:PORT)";
    host = host.substr(1, host.size() - 2);
    const bool v6 = std::all_of(host.begin(), host.end(), [](char c) {
      return absl::ascii_isxdigit(c) || c == ':' || c == '.';
    });
    return v6 ? "" : "has no IPv6 address in its brackets";
  }
  if (host.find(':') != std::string::npos) return "is an IPv6 address without [ ] around it";
  const bool name = std::all_of(host.begin(), host.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_';
  });
  return name ? "" : "has a HOST that is neither a host name nor an IP address";
}

template <typename Int>
bool ParseIn(const std::string& text, int64_t lo, int64_t hi, Int* out) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(text, &v) || v < lo || v > hi) return false;
  *out = static_cast<Int>(v);
  return true;
}

// The apply and text columns of a setting stored in `field`.
#define TOPORR_TEXT(field)                                                   \
  [](const std::string& v, ClientOptions* o) { return o->field = v, true; }, \
      [](const ClientOptions& o) { return o.field; }
#define TOPORR_BOOL(field)                                                            \
  [](const std::string& v, ClientOptions* o) { return ParseBoolWord(v, &o->field); }, \
      [](const ClientOptions& o) { return std::string(o.field ? "1" : "0"); }
#define TOPORR_INT(field, lo, hi)                                                       \
  [](const std::string& v, ClientOptions* o) { return ParseIn(v, lo, hi, &o->field); }, \
      [](const ClientOptions& o) { return std::to_string(o.field); }

constexpr McaParameter kNotMca{};
constexpr int kDecision = kMcaDecisionSettings;
constexpr int kCollective = kMcaCollectiveSettings;

constexpr Setting kSettings[] = {
    {"socket", TOPORR_TEXT(socket), "a path",
     McaParameter{McaType::kString, 5, kDecision, "The daemon's Unix socket (TOPORR_SOCKET)"}},
    {"address", ApplyAddress, [](const ClientOptions& o) { return o.address; }, kAddressExpected,
     McaParameter{McaType::kString, 5, kDecision,
                  "HOST:PORT of the daemon's TCP listener, or several separated by commas, tried "
                  "in order; wins over socket (TOPORR_ADDRESS)"},
     AddressRefusal},
    {"tls_ca", TOPORR_TEXT(tls_ca), "a PEM file",
     McaParameter{McaType::kString, 5, kDecision, "PEM CA file: TLS to address (TOPORR_TLS_CA)"}},
    {"tls_cert", TOPORR_TEXT(tls_cert), "a PEM file", kNotMca},
    {"tls_key", TOPORR_TEXT(tls_key), "a PEM file", kNotMca},
    {"tls_server_name", TOPORR_TEXT(tls_server_name), "a host name", kNotMca},
    {"insecure", TOPORR_BOOL(insecure), "0 or 1", kNotMca},
    {"costs", TOPORR_TEXT(costs_path), "a cost file",
     McaParameter{McaType::kString, 5, kDecision,
                  "A TOPORRC1/C2 cost file; wins over the daemon (TOPORR_COSTS)"}},
    {"deadline_ms", TOPORR_INT(deadline_ms, 1, 600000), "milliseconds in 1..600000",
     McaParameter{McaType::kInt, 5, kDecision,
                  "Deadline of each daemon request in ms, 1..600000 (TOPORR_DEADLINE_MS)"}},
    {"disable", TOPORR_BOOL(disable), "0 or 1",
     McaParameter{McaType::kBool, 4, kDecision,
                  "Never reorder or take over a call: the component declines every communicator "
                  "(TOPORR_DISABLE)"}},
    {"verbose", TOPORR_INT(verbose, 0, 9), "a level in 0..9",
     McaParameter{McaType::kInt, 5, kDecision,
                  "0 quiet (one warning per cause per job), 1 or more a line per decision and "
                  "per run-time check on rank 0 (TOPORR_VERBOSE)"}},
    {"report", TOPORR_TEXT(report_path), "a file",
     McaParameter{McaType::kString, 5, kDecision,
                  "File to which rank 0 appends one JSON line per decision (TOPORR_REPORT)"}},
    {"hostmap", TOPORR_TEXT(hostmap_path), "a file",
     McaParameter{McaType::kString, 5, kDecision,
                  "File whose line i names the host of MPI_COMM_WORLD rank i (TOPORR_HOSTMAP)"}},
    {"algorithm", TOPORR_TEXT(algorithm), "an algorithm name",
     McaParameter{McaType::kString, 5, kCollective,
                  "Force toporr's collectives to one algorithm, or multilevel (TOPORR_ALGORITHM)"}},
    {"min_bytes", TOPORR_INT(min_bytes, 0, int64_t{1} << 62), "a byte count >= 0",
     McaParameter{McaType::kInt64, 5, kCollective,
                  "toporr takes over allreduce, bcast, reduce of at least this many bytes "
                  "(allgather: per-rank block); smaller calls go to the module Open MPI would "
                  "have used (TOPORR_MIN_BYTES)"}},
    {"compress_above", TOPORR_INT(compress_above_hosts, 0, 1 << 30), "a host count >= 0", kNotMca},
    {"routes_max_hosts", TOPORR_INT(routes_max_hosts, 0, 1 << 20), "a host count >= 0", kNotMca},
    {"verify", TOPORR_BOOL(verify), "0 or 1",
     McaParameter{
         McaType::kBool, 5, kCollective,
         "Time the first calls of each decision of toporr's collectives against the library's own "
         "call and keep the faster (TOPORR_VERIFY)"}},
    {"verify_calls", TOPORR_INT(verify_calls, 1, 50), "a count in 1..50",
     McaParameter{McaType::kInt, 6, kCollective,
                  "Measured calls of each path, 1..50 (TOPORR_VERIFY_CALLS)"}},
    {"check_arguments", TOPORR_BOOL(check_arguments), "0 or 1",
     McaParameter{McaType::kBool, 6, kCollective,
                  "Check that every rank passed the same arguments before toporr runs its "
                  "own path (TOPORR_CHECK_ARGUMENTS)"}},
    {"reproducible", TOPORR_BOOL(reproducible), "0 or 1",
     McaParameter{McaType::kBool, 5, kCollective,
                  "Reductions always by the library's own call, bitwise as without toporr "
                  "(TOPORR_REPRODUCIBLE)"}},
    {"profile", TOPORR_TEXT(profile_path), "a file", kNotMca},
    {"profile_time", TOPORR_BOOL(profile_time), "0 or 1", kNotMca},
    {"job_metrics", TOPORR_BOOL(job_metrics), "0 or 1", kNotMca},
};

#undef TOPORR_TEXT
#undef TOPORR_BOOL
#undef TOPORR_INT

std::string EnvName(const char* key) { return "TOPORR_" + absl::AsciiStrToUpper(key); }

std::string KnownKeys() {
  std::string out;
  for (const Setting& s : kSettings) absl::StrAppend(&out, out.empty() ? "" : ", ", s.key);
  return out;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> SplitDaemonAddresses(std::string_view list) {
  std::vector<std::string> out;
  const absl::string_view text(list.data(), list.size());
  if (absl::StripAsciiWhitespace(text).empty()) return out;
  std::vector<absl::string_view> elements = absl::StrSplit(text, ',');
  for (size_t i = 0; i < elements.size(); ++i) {
    const std::string a(absl::StripAsciiWhitespace(elements[i]));
    if (std::string why = AddressProblem(a); !why.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("element ", i + 1, " \"", a.substr(0, 64), "\" ", why));
    }
    for (size_t j = 0; j < out.size(); ++j) {
      if (absl::AsciiStrToLower(out[j]) == absl::AsciiStrToLower(a)) {
        return absl::InvalidArgumentError(
            absl::StrCat("element ", i + 1, " \"", a, "\" repeats element ", j + 1));
      }
    }
    out.push_back(a);
  }
  return out;
}

EnvironmentOptions OptionsFromEnvironment(ClientOptions base, const GetEnvFn& getenv_fn) {
  EnvironmentOptions r{std::move(base), {}};
  for (const Setting& s : kSettings) {
    const std::string name = EnvName(s.key);
    const char* v = getenv_fn(name.c_str());
    if (v == nullptr || *v == '\0') continue;
    if (!s.apply(v, &r.options)) {
      r.warnings.push_back(absl::StrCat(name, "=", std::string(v).substr(0, 64),
                                        " ignored: expected ", Refusal(s, v)));
    }
  }
  return r;
}

EnvironmentOptions OptionsFromEnvironment(ClientOptions base) {
  return OptionsFromEnvironment(std::move(base), [](const char* n) { return std::getenv(n); });
}

bool ApplyClientSetting(std::string_view key, const std::string& value, ClientOptions* options,
                        std::string* expected) {
  for (const Setting& s : kSettings) {
    if (key != s.key) continue;
    ClientOptions o = *options;
    if (!s.apply(value, &o)) {
      *expected = Refusal(s, value);
      return false;
    }
    *options = std::move(o);
    return true;
  }
  *expected = absl::StrCat("one of the known keys (", KnownKeys(), ")");
  return false;
}

std::vector<McaSetting> McaSettings() {
  std::vector<McaSetting> out;
  for (const Setting& s : kSettings) {
    if (s.mca.type != McaType::kNone) out.push_back({s.key, s.mca});
  }
  return out;
}

std::string ClientSettingText(const ClientOptions& options, std::string_view key) {
  for (const Setting& s : kSettings) {
    if (key == s.key) return s.text(options);
  }
  return "";
}

absl::Status ParseClientConfig(std::string_view text, std::string_view file_name,
                               ClientOptions* options, std::vector<std::string>* notes) {
  ClientOptions o = *options;
  std::vector<std::string> found;
  std::map<std::string, long> seen;  // key -> line
  RETURN_IF_ERROR(ForEachKeyValue(text, file_name, [&](const KeyValue& kv) -> absl::Status {
    auto skipped = [&](absl::Status why) {
      if (notes == nullptr) return why;
      found.push_back(absl::StrCat(why.message(), ": line ignored"));
      return absl::OkStatus();
    };
    if (!kv.value.empty() && (kv.value.front() == '"' || kv.value.back() == '"')) {
      return skipped(KeyValueError(file_name, kv, "a value with both its double quotes"));
    }
    const Setting* setting = nullptr;
    for (const Setting& s : kSettings) {
      if (kv.key == s.key) setting = &s;
    }
    if (setting == nullptr) {
      return skipped(
          KeyValueError(file_name, kv, absl::StrCat("one of the known keys (", KnownKeys(), ")")));
    }
    if (!setting->apply(kv.value, &o)) {
      return KeyValueError(file_name, kv, Refusal(*setting, kv.value));
    }
    if (auto [it, first] = seen.emplace(kv.key, kv.line); !first) {
      RETURN_IF_ERROR(skipped(absl::InvalidArgumentError(
          absl::StrCat(std::string(file_name), ":", kv.line, ": ", kv.key,
                       " was already set on line ", it->second, "; this one wins"))));
      it->second = kv.line;
    }
    return absl::OkStatus();
  }));
  *options = std::move(o);
  if (notes != nullptr) notes->insert(notes->end(), found.begin(), found.end());
  return absl::OkStatus();
}

absl::Status CheckTrustedConfig(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return absl::OkStatus();  // the read names the failure
  if ((st.st_mode & S_IWOTH) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is writable by every user: not trusted"));
  }
  if (st.st_uid != 0 && st.st_uid != ::geteuid()) {
    return absl::FailedPreconditionError(absl::StrCat(path, " is owned by uid ", st.st_uid,
                                                      ", neither root nor this user: not trusted"));
  }
  return absl::OkStatus();
}

EnvironmentOptions LoadClientOptions(const GetEnvFn& getenv_fn, const std::string& site_config) {
  ClientOptions base;
  std::vector<std::string> warnings;
  const char* named = getenv_fn("TOPORR_CONFIG");
  const std::string path = named != nullptr && *named != '\0' ? named : site_config;
  std::string text;
  std::vector<std::string> notes;
  absl::Status read = ReadRegularFile(path, &text, kConfigFileMaxBytes, "configuration file");
  if (read.ok()) read = CheckTrustedConfig(path);
  // A missing default file is the unconfigured site; a missing named file is a mistake.
  if (read.ok()) read = ParseClientConfig(text, path, &base, &notes);
  for (const std::string& note : notes) warnings.push_back("site configuration: " + note);
  if (read.ok()) {
    base.config_path = path;
  } else if (!absl::IsNotFound(read) || path != site_config) {
    warnings.push_back(absl::StrCat("site configuration ignored: ", read.message()));
  }
  EnvironmentOptions r = OptionsFromEnvironment(std::move(base), getenv_fn);
  warnings.insert(warnings.end(), r.warnings.begin(), r.warnings.end());
  r.warnings = std::move(warnings);
  return r;
}

const EnvironmentOptions& ProcessClientOptions() {
  static const EnvironmentOptions* options = new EnvironmentOptions(
      LoadClientOptions([](const char* n) -> const char* { return std::getenv(n); }));
  return *options;
}

std::string ReportPathForJob(std::string_view path, const char* slurm_job_id) {
  if (slurm_job_id == nullptr || *slurm_job_id == '\0') return std::string(path);
  return ExpandJobPath(path, slurm_job_id);
}

}  // namespace toporr::client
