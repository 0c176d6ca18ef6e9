// A minimal logging facade shaped like ABSL_LOG (absl/log is not in Debian's Abseil).
//
//   TOPORR_LOG(INFO) << "ingested " << n << " nodes";
//
// Libraries return errors instead of logging; binaries (toporrd, toporrctl) log. Output
// goes to stderr as "I1122 02:10:00.123456 file.cc:42] message". The sink and the minimum
// severity can be replaced (tests, the client library's single fallback warning).
#ifndef TOPORR_COMMON_LOGGING_H_
#define TOPORR_COMMON_LOGGING_H_

#include <functional>
#include <sstream>
#include <string>

namespace toporr {

enum class LogSeverity { kINFO = 0, kWARNING = 1, kERROR = 2, kFATAL = 3 };

// Receives each finished log line (without trailing newline). Thread-safe to call.
using LogSink = std::function<void(LogSeverity, const std::string& line)>;

// Replaces the sink (nullptr restores stderr). Not thread-safe against concurrent logging.
void SetLogSink(LogSink sink);
// Messages below `min` are dropped. Default kINFO.
void SetMinLogSeverity(LogSeverity min);

namespace logging_internal {
class LogMessage {
 public:
  LogMessage(LogSeverity severity, const char* file, int line);
  ~LogMessage();  // Emits; aborts after emitting when severity is kFATAL.
  std::ostream& stream() { return stream_; }

 private:
  LogSeverity severity_;
  std::ostringstream stream_;
};
}  // namespace logging_internal
}  // namespace toporr

#define TOPORR_LOG(severity)                                                                     \
  ::toporr::logging_internal::LogMessage(::toporr::LogSeverity::k##severity, __FILE__, __LINE__) \
      .stream()

#endif  // TOPORR_COMMON_LOGGING_H_
