#include "client/client_options.h"

#include <cstdlib>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace toporr::client {
namespace {

// "1", "true", "yes", "on" -> true; "0", "false", "no", "off", "" -> false.
bool ParseBool(std::string_view text, bool* out) {
  std::string v = absl::AsciiStrToLower(std::string(text));
  if (v == "1" || v == "true" || v == "yes" || v == "on") {
    *out = true;
  } else if (v.empty() || v == "0" || v == "false" || v == "no" || v == "off") {
    *out = false;
  } else {
    return false;
  }
  return true;
}

bool ParseIntIn(std::string_view text, int lo, int hi, int* out) {
  int v = 0;
  if (!absl::SimpleAtoi(std::string(text), &v) || v < lo || v > hi) return false;
  *out = v;
  return true;
}

}  // namespace

EnvironmentOptions OptionsFromEnvironment(ClientOptions base, const GetEnvFn& getenv_fn) {
  EnvironmentOptions r{std::move(base), {}};
  ClientOptions& o = r.options;
  auto text = [&](const char* name, std::string* field) {
    if (const char* v = getenv_fn(name); v != nullptr && *v != '\0') *field = v;
  };
  text("TOPORR_SOCKET", &o.socket);
  text("TOPORR_ADDRESS", &o.address);
  text("TOPORR_COSTS", &o.costs_path);
  text("TOPORR_REPORT", &o.report_path);
  text("TOPORR_HOSTMAP", &o.hostmap_path);
  text("TOPORR_ALGORITHM", &o.algorithm);
  auto bad = [&](const char* name, const char* value, std::string_view expected) {
    r.warnings.push_back(absl::StrCat(name, "=", std::string(value).substr(0, 64),
                                      " ignored: expected ", std::string(expected)));
  };
  if (const char* v = getenv_fn("TOPORR_DEADLINE_MS"); v != nullptr && *v != '\0') {
    if (!ParseIntIn(v, 1, 600000, &o.deadline_ms)) {
      bad("TOPORR_DEADLINE_MS", v, "milliseconds in 1..600000");
    }
  }
  if (const char* v = getenv_fn("TOPORR_DISABLE"); v != nullptr) {
    if (!ParseBool(v, &o.disable)) bad("TOPORR_DISABLE", v, "0 or 1");
  }
  if (const char* v = getenv_fn("TOPORR_COMPRESS_ABOVE"); v != nullptr && *v != '\0') {
    if (!ParseIntIn(v, 0, 1 << 30, &o.compress_above_hosts)) {
      bad("TOPORR_COMPRESS_ABOVE", v, "a host count >= 0");
    }
  }
  if (const char* v = getenv_fn("TOPORR_ROUTES_MAX_HOSTS"); v != nullptr && *v != '\0') {
    if (!ParseIntIn(v, 0, 1 << 20, &o.routes_max_hosts)) {
      bad("TOPORR_ROUTES_MAX_HOSTS", v, "a host count >= 0");
    }
  }
  if (const char* v = getenv_fn("TOPORR_MIN_BYTES"); v != nullptr && *v != '\0') {
    int64_t bytes = 0;
    if (!absl::SimpleAtoi(std::string(v), &bytes) || bytes < 0) {
      bad("TOPORR_MIN_BYTES", v, "a byte count >= 0");
    } else {
      o.min_bytes = bytes;
    }
  }
  if (const char* v = getenv_fn("TOPORR_VERBOSE"); v != nullptr && *v != '\0') {
    if (!ParseIntIn(v, 0, 9, &o.verbose)) bad("TOPORR_VERBOSE", v, "0, 1 or 2");
  }
  return r;
}

EnvironmentOptions OptionsFromEnvironment(ClientOptions base) {
  return OptionsFromEnvironment(std::move(base), [](const char* n) { return std::getenv(n); });
}

}  // namespace toporr::client
