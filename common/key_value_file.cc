#include "common/key_value_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/printable.h"
#include "common/text_scan.h"

namespace toporr {

absl::Status ForEachKeyValue(std::string_view text, std::string_view file_name,
                             const std::function<absl::Status(const KeyValue&)>& setting) {
  LineScanner lines(text);
  for (std::string_view line; lines.Next(&line);) {
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = Trim(line);
    if (line.empty()) continue;
    // Refusals quote the file's text escaped and cut (LineError, Quoted): a configuration
    // file may hold any bytes.
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos || Trim(line.substr(0, eq)).empty()) {
      return LineError(file_name, lines.number(),
                       absl::StrCat("expected `key = value`, got ", Quoted(line)));
    }
    KeyValue kv{std::string(Trim(line.substr(0, eq))), std::string(Trim(line.substr(eq + 1))),
                lines.number()};
    if (kv.value.size() >= 2 && kv.value.front() == '"' && kv.value.back() == '"') {
      kv.value = kv.value.substr(1, kv.value.size() - 2);
    }
    if (absl::Status s = setting(kv); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status KeyValueError(std::string_view file_name, const KeyValue& kv,
                           std::string_view expected) {
  return LineError(
      file_name, kv.line,
      absl::StrCat(kv.key, " must be ", std::string(expected), ", got ", Quoted(kv.value)));
}

absl::Status ParseKeyValueInt(std::string_view file_name, const KeyValue& kv, int64_t lo,
                              int64_t hi, int64_t* out) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(kv.value, &v) || v < lo || v > hi) {
    return KeyValueError(file_name, kv, absl::StrCat("an integer in [", lo, ", ", hi, "]"));
  }
  *out = v;
  return absl::OkStatus();
}

bool ParseBoolWord(std::string_view text, bool* out) {
  const std::string v = absl::AsciiStrToLower(std::string(text));
  if (v == "1" || v == "true" || v == "yes" || v == "on") {
    *out = true;
  } else if (v.empty() || v == "0" || v == "false" || v == "no" || v == "off") {
    *out = false;
  } else {
    return false;
  }
  return true;
}

absl::Status ParseKeyValueBool(std::string_view file_name, const KeyValue& kv, bool loose,
                               bool* out) {
  if (loose) {
    if (ParseBoolWord(kv.value, out)) return absl::OkStatus();
  } else if (kv.value == "true" || kv.value == "false") {
    *out = kv.value == "true";
    return absl::OkStatus();
  }
  return KeyValueError(file_name, kv,
                       loose ? "true or false (1/0, yes/no, on/off)" : "true or false");
}

absl::Status ReadRegularFile(const std::string& path, std::string* text, int64_t max_bytes,
                             std::string_view kind) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat(path, ": not a regular file"));
  }
  auto too_large = [&]() {
    close(fd);
    return absl::ResourceExhaustedError(absl::StrCat(path, ": larger than the ", max_bytes,
                                                     " bytes a ", std::string(kind), " may have"));
  };
  if (st.st_size > max_bytes) return too_large();
  text->clear();
  text->reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    if (static_cast<int64_t>(text->size()) > max_bytes) return too_large();
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      close(fd);
      return absl::DataLossError(absl::StrCat(path, ": cannot read: ", std::strerror(err)));
    }
    text->append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return absl::OkStatus();
}

}  // namespace toporr
