#include "fuzz/fuzz_checks.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/printable.h"
#include "common/text_scan.h"

namespace toporr::fuzz {

namespace {

struct Outcomes {
  long accepted = 0;
  long refused = 0;
  ~Outcomes() {
    const char* path = std::getenv("TOPORR_FUZZ_STATS");
    if (path == nullptr || *path == '\0' || accepted + refused == 0) return;
    if (FILE* f = std::fopen(path, "a")) {
      std::fprintf(f, "%ld %ld\n", accepted, refused);
      std::fclose(f);
    }
  }
};

Outcomes& Counts() {
  static Outcomes counts;
  return counts;
}

}  // namespace

void NoteAccepted() { ++Counts().accepted; }

void Fail(std::string_view what) {
  const std::string shown = Printable(what, 2000);
  std::fprintf(stderr, "fuzz invariant broken: %s\n", shown.c_str());
  std::fflush(stderr);
  std::abort();
}

size_t CountLines(std::string_view input) { return static_cast<size_t>(LineCount(input)); }

void CheckPrintable(std::string_view text, std::string_view what) {
  if (const size_t bad = FirstUnprintable(text); bad != std::string_view::npos) {
    Fail(std::string(what) + " accepted though not printable UTF-8: " +
         DescribeUnprintable(text, bad) + " in " + Quoted(text));
  }
}

void CheckRefusal(const absl::Status& status, std::string_view input) {
  Check(!status.ok(), "CheckRefusal on an OK status");
  ++Counts().refused;
  const std::string message(status.message());
  const std::string shown = Quoted(message, 600);
  Check(status.code() == absl::StatusCode::kInvalidArgument,
        "refusal is not INVALID_ARGUMENT: " + status.ToString().substr(0, 600));
  Check(message.size() <= kMaxErrorBytes,
        "refusal of " + std::to_string(message.size()) + " bytes: " + shown);
  if (const size_t bad = FirstUnprintable(message); bad != std::string_view::npos) {
    Fail("refusal is not printable UTF-8 (" + DescribeUnprintable(message, bad) + "): " + shown);
  }
  std::string_view rest(message);
  Check(rest.substr(0, kSource.size()) == kSource && rest.size() > kSource.size() &&
            rest[kSource.size()] == ':',
        "refusal does not start with the source name: " + shown);
  rest.remove_prefix(kSource.size() + 1);
  if (rest.substr(0, 1) == " ") return;  // a problem of the whole input
  size_t digits = 0;
  uint64_t line = 0;
  while (digits < rest.size() && digits < 12 && rest[digits] >= '0' && rest[digits] <= '9') {
    line = line * 10 + (rest[digits] - '0');
    ++digits;
  }
  Check(digits > 0 && rest.substr(digits, 2) == ": ",
        "refusal names no line ('fuzz.in:<line>: '): " + shown);
  Check(line >= 1 && line <= CountLines(input),
        "refusal names line " + std::to_string(line) + " of an input of " +
            std::to_string(CountLines(input)) + " lines: " + shown);
}

}  // namespace toporr::fuzz
