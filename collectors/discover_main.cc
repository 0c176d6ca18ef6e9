// toporr-discover: one live sweep of the local InfiniBand subnet (collectors/live_discovery.h),
// written in the formats toporr ingests. Needs access to /dev/infiniband/umad* (root).
//
//   toporr-discover [--ca NAME] [--port N] [--probe-pause-us N] [--timeout-ms N]
//                   [--retries N] [--max-hops N] [--format ibnetdiscover|summary]
//                   [--lfts FILE] [--output FILE] [--progress]
//
// --format ibnetdiscover (default) writes the topology in `ibnetdiscover` layout to --output
// (default stdout); --format summary writes counts, SMPs and time instead. --lfts FILE also
// reads every switch's LFT and writes it in `dump_fts` layout. --progress reports LFT progress
// on stderr. Exit status: 0 on success, 1 when discovery or writing fails, 2 on bad usage.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "collectors/ibnetdiscover_writer.h"
#include "collectors/live_discovery.h"
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
    "                       [--lfts FILE] [--output FILE] [--progress]\n";

struct Args {
  LiveDiscoveryOptions options;
  std::string format = "ibnetdiscover";
  std::string lfts;
  std::string output;
  bool progress = false;
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
    } else if (flag == "--lfts") {
      args->lfts = value;
    } else if (flag == "--output") {
      args->output = value;
    } else if (flag == "--port") {
      number = &args->options.ca_port;
    } else if (flag == "--probe-pause-us") {
      number = &args->options.probe_pause_us;
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
  args->options.read_forwarding_tables = !args->lfts.empty();
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

int Main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, &args)) return 2;
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
