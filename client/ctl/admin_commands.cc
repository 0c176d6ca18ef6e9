#include "client/ctl/admin_commands.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/ctl/query_commands.h"
#include "collectors/fabric_input.h"
#include "common/status_macros.h"

namespace toporr::client::ctl {
namespace {

struct IngestAnswer {
  v1::IngestResponse resp;
  bool traces = false;    // ibtracert: checked against the routes, no snapshot
  bool verified = false;  // verify_only: the stored snapshot holding the content
};

void IngestJson(const IngestAnswer& a, JsonWriter& w) {
  w.BeginObject();
  w.Field("created", a.resp.created());
  if (a.traces) {
    w.Field("traces_checked", a.resp.traces_checked());
    w.Field("trace_disagreements", a.resp.trace_disagreements());
  }
  w.Key("snapshot");
  WriteSnapshotJson(a.resp.snapshot(), w);
  w.EndObject();
}

void IngestText(const IngestAnswer& a, std::ostream& out) {
  const v1::IngestResponse& resp = a.resp;
  const v1::SnapshotInfo& snap = resp.snapshot();
  if (a.traces && resp.trace_disagreements() > 0) {
    out << resp.trace_disagreements() << " of " << resp.traces_checked()
        << " traces disagree with the forwarding tables (details above)\n";
  } else if (a.traces) {
    out << resp.traces_checked() << " traces checked against the forwarding tables of snapshot "
        << snap.id() << ": " << resp.trace_disagreements() << " disagree\n";
  } else if (a.verified) {
    out << "snapshot " << snap.id() << " holds this content (" << snap.source_kind() << " "
        << snap.source_name() << ")\n";
  } else if (resp.created()) {
    out << "snapshot " << snap.id() << " created from " << snap.source_name() << ": "
        << snap.num_hosts() << " hosts, " << snap.num_switches() << " switches, " << snap.num_cas()
        << " CAs, " << snap.num_links() << " links";
    if (snap.num_forwarding_tables() > 0) {
      out << ", forwarding tables of " << snap.num_forwarding_tables() << " switches";
    }
    out << "\n";
  } else {
    out << "unchanged: same content as snapshot " << snap.id() << " (" << snap.source_kind() << " "
        << snap.source_name() << "); no new snapshot\n";
  }
}

// Ingest and discover answer alike. Trace disagreements are findings, not failures of the
// command: the text form says so with exit code 3; the JSON form carries the counts.
Reply IngestReply(IngestAnswer answer) {
  const bool disagree = answer.traces && answer.resp.trace_disagreements() > 0;
  std::vector<std::string> warnings(answer.resp.warnings().begin(), answer.resp.warnings().end());
  Reply reply = ReplyOf(std::move(answer), IngestJson, IngestText);
  reply.warnings = std::move(warnings);
  if (disagree) reply.text_exit_code = 3;
  return reply;
}

absl::StatusOr<v1::InputFormat> WireFormat(const std::string& format) {
  if (format.empty()) {
    return UsageError(
        absl::StrCat("ingest: --format is required (", collectors::SupportedInputFormats(), ")"));
  }
  if (auto known = collectors::ParseInputFormat(format); !known.ok()) {
    return UsageError(absl::StrCat("ingest: ", known.status().message()));
  }
  // Wire names are the CLI names upper-cased with '_' for '-'.
  std::string wire = format;
  for (char& c : wire) c = c == '-' ? '_' : static_cast<char>(std::toupper(c));
  v1::InputFormat wire_format;
  if (!v1::InputFormat_Parse(wire, &wire_format)) {
    return UsageError(absl::StrCat("ingest: format '", format, "' has no wire name"));
  }
  return wire_format;
}

// toporrctl ingest sends the file in chunks of this size (Admin.IngestStream).
constexpr size_t kIngestChunkBytes = 1 << 20;

// The default deadline of an ingest of the file at `path`: 30 s plus 10 s per 100 MB, several
// times what the daemon needs to parse and store a file of that size (the ingest and scale
// benchmarks under bench/ measure it), so a large LFT dump finishes well within it.
double IngestDeadline(const std::string& path) {
  struct stat st;
  const double bytes = stat(path.c_str(), &st) == 0 ? static_cast<double>(st.st_size) : 0;
  return 30 + bytes / 10e6;
}

// How long an ingest whose connection broke waits for toporrd to answer again (systemd
// restarts it) before saying the outcome is unknown.
constexpr absl::Duration kReconnectWait = absl::Seconds(30);

// True once toporrd answers a health check, polling until `wait` has passed.
bool DaemonAnswersWithin(DaemonClient& daemon, absl::Duration wait) {
  const absl::Time until = absl::Now() + wait;
  while (true) {
    if (daemon
            .Call(&grpc::health::v1::Health::Stub::Check, grpc::health::v1::HealthCheckRequest(), 2)
            .ok()) {
      return true;
    }
    if (absl::Now() >= until) return false;
    absl::SleepFor(absl::Milliseconds(250));
  }
}

// The ingest `req` failed with `lost` after the daemon had answered: the connection broke
// (the daemon died, was restarted) and the ingest may or may not have been committed. Waits
// for the daemon and asks it (IngestRequest.verify_only) whether a stored snapshot holds this
// content; says which, or that it cannot know.
absl::StatusOr<v1::IngestResponse> IngestOutcomeAfterLoss(DaemonClient& daemon,
                                                          v1::IngestRequest req,
                                                          const std::string& path,
                                                          const absl::Status& lost,
                                                          std::vector<std::string>* warnings) {
  const std::string what =
      absl::StrCat("the connection to toporrd broke during the ingest (", lost.message(), ")");
  if (!DaemonAnswersWithin(daemon, kReconnectWait)) {
    return absl::UnavailableError(absl::StrCat(
        what, "; toporrd did not answer again within ", absl::FormatDuration(kReconnectWait),
        ", so whether the ingest was committed is unknown: when it answers, run `toporrctl ingest "
        "--verify` with the same file (or ingest it again: identical content makes no new "
        "snapshot)"));
  }
  req.set_verify_only(true);
  absl::StatusOr<v1::IngestResponse> held =
      daemon.IngestFile(req, path, kIngestChunkBytes, IngestDeadline(path) + 30);
  if (held.ok()) {
    warnings->push_back(absl::StrCat(what, "; it was committed: snapshot ", held->snapshot().id(),
                                     " holds this content"));
    return held;
  }
  if (held.status().code() == absl::StatusCode::kNotFound) {
    return absl::UnavailableError(
        absl::StrCat(what, "; it was NOT committed (", held.status().message(), "): ingest again"));
  }
  return absl::Status(held.status().code(),
                      absl::StrCat(what, "; asking whether it was committed failed too: ",
                                   held.status().message()));
}

absl::StatusOr<Reply> Ingest(Invocation& inv, const CommandArgs& args) {
  std::string format, host_map_file;
  bool allow_shrink = false, verify = false;
  std::vector<std::string> files;
  RETURN_IF_ERROR(ParseOptions("ingest", args,
                               {{"--format", &format}, {"--host-map", &host_map_file}}, &files,
                               {{"--allow-shrink", &allow_shrink}, {"--verify", &verify}}));
  if (files.size() > 1) return UsageError("ingest takes one FILE");
  if (files.empty()) return UsageError("ingest: FILE is required");
  v1::IngestRequest req;
  ASSIGN_OR_RETURN(auto wire_format, WireFormat(format));
  req.set_format(wire_format);
  // The file is streamed (IngestFile); see that it can be read before asking anything.
  if (access(files[0].c_str(), R_OK) != 0) {
    return absl::NotFoundError(absl::StrCat(files[0], ": cannot open: ", std::strerror(errno)));
  }
  if (!host_map_file.empty()) {
    ASSIGN_OR_RETURN(*req.mutable_host_map(),
                     ReadInputFile(host_map_file, kHostListFileMaxBytes, "host map"));
  }
  req.set_source_name(Basename(files[0]));
  req.set_allow_shrink(allow_shrink);
  req.set_verify_only(verify);
  IngestAnswer answer;
  answer.traces = req.format() == v1::IBTRACERT;
  answer.verified = verify;
  // The daemon answers first: a connection that breaks afterwards means the outcome of the
  // ingest is unknown and worth asking about; a daemon that never answered is just down.
  RETURN_IF_ERROR(
      inv.daemon
          .Call(&grpc::health::v1::Health::Stub::Check, grpc::health::v1::HealthCheckRequest(), 10)
          .status());
  absl::StatusOr<v1::IngestResponse> resp =
      inv.daemon.IngestFile(req, files[0], kIngestChunkBytes, IngestDeadline(files[0]));
  std::vector<std::string> warnings;
  // Only a connection that broke leaves the outcome unknown; a refusal the daemon answered
  // (a full disk, a locked database) is shown as it is and not sent again.
  if (!resp.ok() && !verify && resp.status().code() == absl::StatusCode::kUnavailable &&
      DaemonDidNotAnswer(resp.status())) {
    resp = IngestOutcomeAfterLoss(inv.daemon, req, files[0], resp.status(), &warnings);
    answer.verified = resp.ok();
  } else if (resp.status().code() == absl::StatusCode::kDeadlineExceeded) {
    return absl::DeadlineExceededError(
        absl::StrCat(resp.status().message(),
                     "; the ingest may still be committed: `toporrctl ingest --verify "
                     "...` with the same file tells"));
  }
  if (!resp.ok()) return resp.status();
  answer.resp = *std::move(resp);
  Reply reply = IngestReply(std::move(answer));
  reply.warnings.insert(reply.warnings.end(), warnings.begin(), warnings.end());
  return reply;
}

absl::StatusOr<Reply> Discover(Invocation& inv, const CommandArgs& args) {
  v1::DiscoverRequest req;
  bool allow_shrink = false;
  std::vector<std::string> rest;
  RETURN_IF_ERROR(ParseOptions("discover", args, {}, &rest, {{"--allow-shrink", &allow_shrink}}));
  RETURN_IF_ERROR(NoArguments("discover", rest));
  req.set_allow_shrink(allow_shrink);
  IngestAnswer answer;
  ASSIGN_OR_RETURN(answer.resp, inv.daemon.Call(&v1::Admin::Stub::Discover, req, 660));
  return IngestReply(std::move(answer));
}

void DiffJson(const v1::GetDiffResponse& resp, JsonWriter& w) {
  w.BeginObject();
  w.Field("from_snapshot", resp.from_snapshot());
  w.Field("to_snapshot", resp.to_snapshot());
  w.Field("identical", resp.identical());
  w.Field("links_added", resp.links_added());
  w.Field("links_removed", resp.links_removed());
  w.Field("links_degraded", resp.links_degraded());
  w.Field("links_upgraded", resp.links_upgraded());
  w.Field("hosts_moved", resp.hosts_moved());
  w.Field("hosts_added", resp.hosts_added());
  w.Field("hosts_removed", resp.hosts_removed());
  w.Field("routes_compared", resp.routes_compared());
  w.Field("switches_with_route_changes", resp.switches_with_route_changes());
  w.Field("route_entries_changed", resp.route_entries_changed());
  w.Field("host_pairs_changed", resp.host_pairs_changed());
  w.Field("report", resp.report());
  w.EndObject();
}

void DiffText(const v1::GetDiffResponse& resp, std::ostream& out) {
  out << resp.report();
  if (!resp.report().empty() && resp.report().back() != '\n') out << "\n";
}

absl::StatusOr<Reply> Diff(Invocation& inv, const CommandArgs& args) {
  if (args.size() != 1 && args.size() != 2) return UsageError("diff takes SNAP_A [SNAP_B]");
  constexpr char kIds[] = "diff: snapshot ids are positive numbers";
  v1::GetDiffRequest req;
  int64_t from = 0, to = 0;
  if (!absl::SimpleAtoi(args[0], &from) || from <= 0) return UsageError(kIds);
  req.set_from_snapshot(from);
  if (args.size() == 2) {
    if (!absl::SimpleAtoi(args[1], &to) || to <= 0) return UsageError(kIds);
    req.set_to_snapshot(to);
  }
  ASSIGN_OR_RETURN(auto resp, inv.daemon.Call(&v1::Admin::Stub::GetDiff, req, 30));
  return ReplyOf(std::move(resp), DiffJson, DiffText);
}

}  // namespace

std::vector<Command> AdminCommands() {
  return {
      {"ingest",
       "  ingest --format FORMAT [--host-map FILE] [--allow-shrink] [--verify] FILE\n"
       "                       store FILE as a new snapshot (admin: root or the admin group).\n"
       "                       A topology that loses all hosts, or more than the daemon's\n"
       "                       max_host_loss_percent (10), is refused without --allow-shrink.\n"
       "                       --verify: change nothing, say which snapshot holds FILE (exit 1:\n"
       "                       none). When the connection breaks during an ingest (toporrd\n"
       "                       restarted), toporrctl waits for it and says whether the ingest\n"
       "                       was committed; one the daemon refused (full disk) is not sent\n"
       "                       again.\n"
       "                       Topologies: ibnetdiscover, opareport-xml, opareport-links;\n"
       "                       forwarding tables over the current topology: lft (ibroute,\n"
       "                       dump_fts, dump_lfts.sh), opensm-lfts (opensm-lfts.dump);\n"
       "                       ibtracert: traces checked against the current routes;\n"
       "                       plogp: toporr-probe's probe.json, the measured levels as\n"
       "                       synthetic switches (route kind MEASURED)\n",
       Ingest},
      {"discover",
       "  discover [--allow-shrink]\n"
       "                       sweep the fabric now with the daemon's live collector (admin)\n",
       Discover},
      {"diff",
       "  diff SNAP_A [SNAP_B] links added, removed or degraded, hosts moved and routes changed\n"
       "                       from SNAP_A to SNAP_B (default: the current snapshot)\n",
       Diff},
  };
}

}  // namespace toporr::client::ctl
