// Invariants every parser harness under fuzz/ checks, whatever the format: a refusal is
// bounded, printable and says where (common/printable.h, common/text_scan.h LineError), and
// an accepted input yields a value whose text fields follow the printable-UTF-8 policy.
// A broken invariant prints what broke (escaped) and aborts, which libFuzzer reports as a
// crash and the replay test (fuzz/regressions_test.sh) as a failure.
#ifndef TOPORR_FUZZ_FUZZ_CHECKS_H_
#define TOPORR_FUZZ_FUZZ_CHECKS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/status/status.h"

namespace toporr::fuzz {

// The source name every harness passes to its parser.
inline constexpr std::string_view kSource = "fuzz.in";

// Largest refusal message accepted: a gRPC status and a log line must hold it.
inline constexpr size_t kMaxErrorBytes = 4096;

// Prints "fuzz invariant broken: <what>" (escaped) and aborts.
[[noreturn]] void Fail(std::string_view what);

// Aborts unless `cond`.
inline void Check(bool cond, std::string_view what) {
  if (!cond) Fail(what);
}

// The checks on a refusal of `kSource` content: not OK, code kInvalidArgument, at most
// kMaxErrorBytes, printable UTF-8, and starting with "fuzz.in:<line>: " (1 <= line <=
// `lines`, the number of lines of the input) or, for a problem of the whole input,
// "fuzz.in: ".
void CheckRefusal(const absl::Status& status, std::string_view input);

// Number of lines of `input` as common/text_scan.h LineScanner counts them (at least 1, so
// that an empty input may be refused at line 1).
size_t CountLines(std::string_view input);

// Counts one accepted input (CheckRefusal counts the refused ones). When the environment
// variable TOPORR_FUZZ_STATS names a file, the process appends "<accepted> <refused>\n" to it
// at exit: bench/run_fuzz.sh sums these lines over libFuzzer's fork-mode jobs.
void NoteAccepted();

// Aborts unless `text` is printable UTF-8 (`what` names the field).
void CheckPrintable(std::string_view text, std::string_view what);

}  // namespace toporr::fuzz

#endif  // TOPORR_FUZZ_FUZZ_CHECKS_H_
