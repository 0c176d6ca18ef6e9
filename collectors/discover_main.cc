// toporr-discover: one live sweep of the local InfiniBand subnet (collectors/live_discovery.h),
// written in the formats toporr ingests. Needs access to /dev/infiniband/umad* (root).
//
//   toporr-discover [--ca NAME] [--port N] [--probe-pause-us N] [--timeout-ms N]
//                   [--retries N] [--max-hops N] [--format ibnetdiscover|summary]
//                   [--lfts FILE] [--output FILE] [--progress]
//   toporr-discover --serve [--ca NAME] [--port N] [--timeout-ms N] [--retries N]
//                   [--max-hops N]
//
// --format ibnetdiscover (default) writes the topology in `ibnetdiscover` layout to --output
// (default stdout); --format summary writes counts, SMPs and time instead. --lfts FILE also
// reads every switch's LFT and writes it in `dump_fts` layout. --progress reports LFT progress
// on stderr. Exit status: 0 on success, 1 when discovery or writing fails, 2 on bad usage.
//
// --serve answers one toporrd over the connection on its standard input and output
// (collectors/sweep_protocol.h; toporr-discover@.service, started per connection by
// toporr-discover.socket): it reads the request line, sweeps (topology and LFTs, the probe
// pause from the request, the other options from its own command line) and writes the reply,
// or a failure reply. When standard input is a socket and the caller hangs up, the sweep is
// abandoned (exit 3). A request that does not arrive within kRequestTimeout or does not parse
// is answered with a failure (exit 2). Progress and the outcome go to stderr (the journal).
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collectors/ibnetdiscover_writer.h"
#include "collectors/live_discovery.h"
#include "collectors/sweep_protocol.h"
#include "fabric/fabric.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::ForwardingTables;
using fabric::NodeType;
using fabric::SwitchForwardingTable;
namespace {

constexpr char kUsage[] =
    "usage: toporr-discover [--ca NAME] [--port N] [--probe-pause-us N] [--timeout-ms N]\n"
    "                       [--retries N] [--max-hops N] [--format ibnetdiscover|summary]\n"
    "                       [--lfts FILE] [--output FILE] [--progress]\n"
    "       toporr-discover --serve [--ca NAME] [--port N] [--timeout-ms N] [--retries N]\n"
    "                       [--max-hops N]\n";

// How long --serve waits for the request line after the connection was accepted.
constexpr std::chrono::seconds kRequestTimeout(10);

struct Args {
  LiveDiscoveryOptions options;
  std::string format = "ibnetdiscover";
  std::string lfts;
  std::string output;
  bool progress = false;
  bool serve = false;
  // Options that --serve refuses: what to write where is the protocol's, the probe pause the
  // request's.
  bool output_options = false;
};

bool ParseNumber(const std::string& text, int* out) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0 || v > 100000000) return false;
  *out = static_cast<int>(v);
  return true;
}

// Accepts `--flag value` and `--flag=value`. Returns false (after a message) on bad usage.
bool ParseArgs(int argc, char** argv, Args* args) {
  args->options.probe_pause_us = kProductionProbePauseUs;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i], value;
    const size_t eq = flag.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
    }
    if (flag == "--progress" && !inline_value) {
      args->progress = true;
      args->output_options = true;
      continue;
    }
    if (flag == "--serve" && !inline_value) {
      args->serve = true;
      continue;
    }
    if (flag == "-h" || flag == "--help") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (!inline_value) {
      if (i + 1 >= argc) {
        std::cerr << "toporr-discover: " << flag << " needs a value\n" << kUsage;
        return false;
      }
      value = argv[++i];
    }
    int* number = nullptr;
    if (flag == "--ca") {
      args->options.ca_name = value;
    } else if (flag == "--format") {
      if (value != "ibnetdiscover" && value != "summary") {
        std::cerr << "toporr-discover: --format must be ibnetdiscover or summary\n";
        return false;
      }
      args->format = value;
      args->output_options = true;
    } else if (flag == "--lfts") {
      args->lfts = value;
      args->output_options = true;
    } else if (flag == "--output") {
      args->output = value;
      args->output_options = true;
    } else if (flag == "--port") {
      number = &args->options.ca_port;
    } else if (flag == "--probe-pause-us") {
      number = &args->options.probe_pause_us;
      args->output_options = true;
    } else if (flag == "--timeout-ms") {
      number = &args->options.timeout_ms;
    } else if (flag == "--retries") {
      number = &args->options.retries;
    } else if (flag == "--max-hops") {
      number = &args->options.max_hops;
    } else {
      std::cerr << "toporr-discover: unknown argument '" << argv[i] << "'\n" << kUsage;
      return false;
    }
    if (number != nullptr && !ParseNumber(value, number)) {
      std::cerr << "toporr-discover: " << flag << " needs a non-negative number, not '" << value
                << "'\n";
      return false;
    }
  }
  if (args->serve && args->output_options) {
    std::cerr << "toporr-discover: --serve takes the probe pause from the request and answers "
                 "on its standard output: no --format, --output, --lfts, --probe-pause-us or "
                 "--progress\n"
              << kUsage;
    return false;
  }
  args->options.read_forwarding_tables = args->serve || !args->lfts.empty();
  return true;
}

bool WriteText(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    return static_cast<bool>(std::cout);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) std::cerr << "toporr-discover: cannot write " << path << "\n";
  return static_cast<bool>(out);
}

std::string Summary(const DiscoveredFabric& d) {
  const Fabric& f = d.fabric;
  size_t entries = 0;
  for (const SwitchForwardingTable& t : d.forwarding_tables.switches()) {
    for (uint8_t p : t.out_port) entries += p != ForwardingTables::kUnsetPort;
  }
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "nodes %zu (switches %zu, cas %zu, routers %zu, aggregation %zu)\n"
                "links %zu\nforwarding tables %zu (%zu entries)\nmads %lld\nseconds %.3f\n",
                f.nodes.size(), f.CountNodes(NodeType::kSwitch), f.CountNodes(NodeType::kCa),
                f.CountNodes(NodeType::kRouter), f.CountNodes(NodeType::kAggregation),
                f.links.size(), d.forwarding_tables.switches().size(), entries,
                static_cast<long long>(d.mads_sent), d.seconds);
  return buf;
}

// Writes all of `data` to `fd`; false (errno set) when it cannot.
bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// The request line from `fd`: up to its newline, at most kMaxSweepRequestBytes (and what
// else arrived with it, which ParseSweepRequest refuses), within kRequestTimeout.
absl::StatusOr<std::string> ReadRequest(int fd) {
  const auto deadline = std::chrono::steady_clock::now() + kRequestTimeout;
  std::string line;
  while (line.find('\n') == std::string::npos && line.size() <= kMaxSweepRequestBytes) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return absl::DeadlineExceededError(absl::StrCat(
          "no sweep request within ", kRequestTimeout.count(), " s of the connection"));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buf[512];
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::UnavailableError(absl::StrCat("reading the request: ", std::strerror(errno)));
    }
    if (n == 0) break;
    line.append(buf, static_cast<size_t>(n));
  }
  return line;
}

// When `fd` is a socket: ends the process (exit 3) once the caller hangs up, so that a sweep
// toporrd gave up on (timeout, shutdown) stops sending SMPs. A pipe's writer closing right
// after the request is normal use by hand, so only sockets are watched.
void AbandonOnHangup(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return;
  std::thread([fd] {
    while (true) {
      pollfd p{fd, POLLRDHUP, 0};
      if (poll(&p, 1, -1) < 0 && errno == EINTR) continue;
      if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) {
        static constexpr char kMessage[] = "toporr-discover: the caller hung up; sweep abandoned\n";
        (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
        _exit(3);
      }
    }
  }).detach();
}

// " for uid 998 pid 4242": the peer of a socket, for the log; "" for anything else.
std::string Caller(int fd) {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return "";
  return absl::StrCat(" for uid ", cred.uid, " pid ", cred.pid);
}

int Serve(LiveDiscoveryOptions options) {
  std::signal(SIGPIPE, SIG_IGN);  // a caller gone while we answer: write() fails instead
  const std::string caller = Caller(STDIN_FILENO);
  absl::StatusOr<std::string> line = ReadRequest(STDIN_FILENO);
  absl::StatusOr<SweepRequest> request =
      line.ok() ? ParseSweepRequest(*line) : absl::StatusOr<SweepRequest>(line.status());
  if (!request.ok()) {
    std::cerr << "toporr-discover: refused" << caller << ": " << request.status().message() << "\n";
    WriteAll(STDOUT_FILENO, FormatSweepFailure(std::string(request.status().message())));
    return 2;
  }
  AbandonOnHangup(STDIN_FILENO);
  options.probe_pause_us = request->probe_pause_us;
  options.read_forwarding_tables = true;
  std::cerr << "toporr-discover: sweep" << caller << " (probe pause " << options.probe_pause_us
            << " us)\n";
  absl::StatusOr<DiscoveredFabric> discovered = DiscoverFabric(options);
  if (!discovered.ok()) {
    std::cerr << "toporr-discover: " << discovered.status().message() << "\n";
    WriteAll(STDOUT_FILENO, FormatSweepFailure(std::string(discovered.status().message())));
    return 1;
  }
  SweepResult result;
  result.topology = FormatIbnetdiscover(discovered->fabric);
  result.forwarding_tables = FormatDumpFts(discovered->forwarding_tables, discovered->fabric);
  if (!WriteAll(STDOUT_FILENO, FormatSweepReply(result))) {
    std::cerr << "toporr-discover: cannot send the reply: " << std::strerror(errno) << "\n";
    return 1;
  }
  std::cerr << "toporr-discover: sent " << discovered->fabric.nodes.size() << " nodes, "
            << discovered->fabric.links.size() << " links, "
            << discovered->forwarding_tables.switches().size() << " forwarding tables ("
            << discovered->mads_sent << " SMPs, " << discovered->seconds << " s)\n";
  return 0;
}

int Main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, &args)) return 2;
  if (args.serve) return Serve(args.options);
  if (args.progress) {
    args.options.progress = [](int done, int total) {
      if (total > 0 && (done == total || done % std::max(1, total / 10) == 0)) {
        std::cerr << "toporr-discover: forwarding tables " << done << "/" << total << "\n";
      }
    };
  }
  absl::StatusOr<DiscoveredFabric> discovered = DiscoverFabric(args.options);
  if (!discovered.ok()) {
    std::cerr << "toporr-discover: " << discovered.status().message() << "\n";
    return 1;
  }
  const std::string text =
      args.format == "summary" ? Summary(*discovered) : FormatIbnetdiscover(discovered->fabric);
  if (!WriteText(args.output, text)) return 1;
  if (!args.lfts.empty() &&
      !WriteText(args.lfts, FormatDumpFts(discovered->forwarding_tables, discovered->fabric))) {
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace toporr::collectors

int main(int argc, char** argv) { return toporr::collectors::Main(argc, argv); }
