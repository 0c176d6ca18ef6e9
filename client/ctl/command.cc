#include "client/ctl/command.h"

#include <fstream>
#include <sstream>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "common/text_scan.h"

namespace toporr::client::ctl {
namespace {

constexpr char kUsagePayload[] = "type.toporr/toporrctl.UsageError";

}  // namespace

absl::Status UsageError(absl::string_view message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kUsagePayload, absl::Cord());
  return status;
}

bool IsUsageError(const absl::Status& status) {
  return status.GetPayload(kUsagePayload).has_value();
}

absl::Status NoArguments(absl::string_view command, const CommandArgs& args) {
  if (args.empty()) return absl::OkStatus();
  return UsageError(absl::StrCat(command, " takes no arguments"));
}

absl::Status ParseOptions(absl::string_view command, const CommandArgs& args,
                          const std::map<std::string, std::string*>& options,
                          std::vector<std::string>* positional,
                          const std::map<std::string, bool*>& flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (auto it = options.find(a); it != options.end()) {
      if (i + 1 == args.size()) return UsageError(absl::StrCat(command, ": ", a, " needs a value"));
      // An empty value is a mistake (an unset shell variable), never "the default".
      if (args[i + 1].empty()) {
        return UsageError(absl::StrCat(command, ": ", a, " needs a value (it is empty)"));
      }
      *it->second = args[++i];
    } else if (auto flag = flags.find(a); flag != flags.end()) {
      *flag->second = true;
    } else if (!a.empty() && a[0] == '-') {
      return UsageError(absl::StrCat(command, ": unknown option ", a));
    } else {
      positional->push_back(a);
    }
  }
  return absl::OkStatus();
}

absl::Status AppendHostList(absl::string_view command, absl::string_view list,
                            std::vector<std::string>* hosts) {
  for (absl::string_view h : absl::StrSplit(list, ',')) {
    if (h.empty()) {
      return UsageError(absl::StrCat(command, ": --hosts '", list, "' has an empty host name"));
    }
    hosts->emplace_back(h);
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ParseInteger(absl::string_view text, int64_t min, int64_t max,
                                     absl::string_view what) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(text, &n) || n < min || n > max) {
    return UsageError(absl::StrCat(what, " needs a number"));
  }
  return n;
}

absl::StatusOr<std::string> ReadInputFile(const std::string& path, int64_t max_bytes,
                                          std::string_view kind) {
  std::string text;
  RETURN_IF_ERROR(ReadRegularFile(path, &text, max_bytes, kind));
  return text;
}

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

absl::StatusOr<mapping::CostModelSettings> ReadCostModelFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadInputFile(path, kConfigFileMaxBytes, "cost model"));
  mapping::CostModelSettings settings;
  RETURN_IF_ERROR(ForEachKeyValue(text, path, [&](const KeyValue& kv) -> absl::Status {
    if (!mapping::IsCostModelKey(kv.key)) return absl::OkStatus();
    absl::Status s = mapping::ApplyCostModelSetting(kv.key, kv.value, &settings);
    return s.ok() ? s : LineError(path, kv.line, std::string(s.message()));
  }));
  return settings;
}

}  // namespace toporr::client::ctl
