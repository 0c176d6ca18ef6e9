#include "common/logging.h"

#include <sys/time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>

namespace toporr {
namespace {
std::mutex g_mu;
LogSink g_sink;  // guarded by g_mu
LogSeverity g_min = LogSeverity::kINFO;
}  // namespace

void SetLogSink(LogSink sink) {
  std::lock_guard<std::mutex> l(g_mu);
  g_sink = std::move(sink);
}

void SetMinLogSeverity(LogSeverity min) { g_min = min; }

namespace logging_internal {

LogMessage::LogMessage(LogSeverity severity, const char* file, int line) : severity_(severity) {
  timeval tv;
  gettimeofday(&tv, nullptr);
  tm t;
  localtime_r(&tv.tv_sec, &t);
  const char* base = std::strrchr(file, '/');
  char prefix[64];
  std::snprintf(prefix, sizeof(prefix), "%c%02d%02d %02d:%02d:%02d.%06ld ",
                "IWEF"[static_cast<int>(severity)], t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min,
                t.tm_sec, static_cast<long>(tv.tv_usec));
  stream_ << prefix << (base ? base + 1 : file) << ":" << line << "] ";
}

LogMessage::~LogMessage() {
  if (severity_ >= g_min) {
    std::string line = stream_.str();
    std::lock_guard<std::mutex> l(g_mu);
    if (g_sink) {
      g_sink(severity_, line);
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
  }
  if (severity_ == LogSeverity::kFATAL) std::abort();
}

}  // namespace logging_internal
}  // namespace toporr
