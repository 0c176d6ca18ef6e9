#include "client/ctl/dispatch.h"

#include <cstdlib>
#include <optional>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/config/client_options.h"
#include "client/ctl/admin_commands.h"
#include "client/ctl/command.h"
#include "client/ctl/export_commands.h"
#include "client/ctl/plan_command.h"
#include "client/ctl/query_commands.h"
#include "client/ctl/validate_command.h"
#include "common/json_writer.h"
#include "common/status_macros.h"

namespace toporr::client::ctl {
namespace {

// The command groups, in `toporrctl help` order. One line per group.
constexpr std::vector<Command> (*kCommandGroups[])() = {
    AdminCommands, QueryCommands, PlanCommands, ExportCommands, ValidateCommands,
};

constexpr char kUsageOptions[] = R"(usage: toporrctl [options] COMMAND [args]

options:
  --socket PATH        daemon Unix socket (default /run/toporr/toporrd.sock)
  --target HOST:PORT   use the daemon's TCP listener instead (address); a comma-separated
                       list names standby daemons, asked in order until one answers
  --tls-ca FILE        TLS to --target, trusting the daemon certificate's CA (PEM)
  --tls-cert FILE      with --tls-key: this client's certificate, for admin commands over
  --tls-key FILE       TCP (mutual TLS; its common name must be in tls_admin_clients)
  --tls-server-name N  the name the daemon's certificate must carry (default: --target's host)
  --insecure           allow plaintext TCP to a --target outside loopback
  Defaults for these come from the site configuration (/etc/toporr/client.conf or
  $TOPORR_CONFIG) and the TOPORR_* variables, as for libtoporr: TOPORR_SOCKET,
  TOPORR_ADDRESS, TOPORR_TLS_CA, TOPORR_TLS_CERT, TOPORR_TLS_KEY, TOPORR_TLS_SERVER_NAME,
  TOPORR_INSECURE (see toporr(7)).
  --json               machine-readable output (see README.md for field names)
  --verbose            say on stderr which daemon answered
  --timeout SECONDS    deadline of each RPC (default 30 for ingest, 10 otherwise)

commands:
)";

std::vector<Command> AllCommands() {
  std::vector<Command> all;
  for (auto group : kCommandGroups) {
    for (Command& c : group()) all.push_back(std::move(c));
  }
  return all;
}

std::string Usage(const std::vector<Command>& commands) {
  std::string usage = kUsageOptions;
  for (const Command& c : commands) usage += c.usage;
  return usage;
}

// The options recognized anywhere on the line: --socket, --target, --json, --timeout,
// --verbose.
struct GlobalOptions {
  DaemonClient::Options daemon;
  bool json = false;
  bool verbose = false;
};

// A parsed command line; `help` when the usage was asked for.
struct CommandLine {
  GlobalOptions options;
  std::string command;
  CommandArgs args;
  bool help = false;
};

// Global options are recognized anywhere on the line; the first other word is the command
// and the rest are its arguments.
absl::StatusOr<CommandLine> ParseCommandLine(const std::vector<std::string>& args) {
  CommandLine line;
  line.options.daemon.endpoint = DaemonEndpoint::Of(ProcessClientOptions().options);
  DaemonEndpoint& endpoint = line.options.daemon.endpoint;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> absl::StatusOr<std::string> {
      if (i + 1 == args.size()) return UsageError(absl::StrCat(a, " needs a value"));
      return args[++i];
    };
    if (a == "-h" || a == "--help" || (line.command.empty() && a == "help")) {
      line.help = true;
      return line;
    } else if (a == "--socket") {
      ASSIGN_OR_RETURN(endpoint.socket, value());
      endpoint.address.clear();  // an explicit socket wins over a configured address
    } else if (a == "--target") {
      ASSIGN_OR_RETURN(endpoint.address, value());
      if (absl::Status list = SplitDaemonAddresses(endpoint.address).status(); !list.ok()) {
        return UsageError(absl::StrCat("--target ", endpoint.address, ": ", list.message()));
      }
    } else if (a == "--tls-ca") {
      ASSIGN_OR_RETURN(endpoint.tls_ca, value());
    } else if (a == "--tls-cert") {
      ASSIGN_OR_RETURN(endpoint.tls_cert, value());
    } else if (a == "--tls-key") {
      ASSIGN_OR_RETURN(endpoint.tls_key, value());
    } else if (a == "--tls-server-name") {
      ASSIGN_OR_RETURN(endpoint.tls_server_name, value());
    } else if (a == "--insecure") {
      endpoint.insecure = true;
    } else if (a == "--json") {
      line.options.json = true;
    } else if (a == "--verbose") {
      line.options.verbose = true;
    } else if (a == "--timeout") {
      ASSIGN_OR_RETURN(std::string seconds, value());
      double& timeout_s = line.options.daemon.timeout_s;
      if (!absl::SimpleAtod(seconds, &timeout_s) || !(timeout_s > 0)) {
        return UsageError("--timeout needs seconds > 0");
      }
    } else if (line.command.empty()) {
      if (!a.empty() && a[0] == '-') return UsageError("unknown option " + a);
      line.command = a;
    } else {
      line.args.push_back(a);
    }
  }
  if (line.command.empty()) return UsageError("a COMMAND is required");
  return line;
}

absl::StatusOr<Reply> RunCommand(const std::vector<Command>& commands, const CommandLine& line,
                                 DaemonClient& daemon) {
  for (const Command& c : commands) {
    if (c.name != line.command) continue;
    Invocation invocation{daemon};
    return c.run(invocation, line.args);
  }
  return UsageError("unknown command '" + line.command + "'");
}

// `doc` (one JSON document and a newline, as Render prints it) with "daemon_address":
// `address` as its first field when it is an object; unchanged otherwise.
std::string WithDaemonAddress(const std::string& doc, const std::string& address) {
  if (doc.size() < 2 || doc[0] != '{') return doc;
  std::ostringstream field;
  JsonWriter w(&field);
  w.BeginObject();
  w.Field("daemon_address", address);
  w.EndObject();
  const std::string f = field.str();  // {"daemon_address":"..."}
  return absl::StrCat("{", f.substr(1, f.size() - 2), doc[1] == '}' ? "" : ",", doc.substr(1));
}

}  // namespace

int RunCtl(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::vector<Command> commands = AllCommands();
  for (const std::string& w : ProcessClientOptions().warnings) {
    err << "toporrctl: warning: " << Displayable(w) << "\n";
  }
  absl::StatusOr<CommandLine> line = ParseCommandLine(args);
  if (line.ok() && line->help) {
    out << Usage(commands);
    return 0;
  }
  std::optional<DaemonClient> daemon;
  if (line.ok()) daemon.emplace(line->options.daemon);
  absl::StatusOr<Reply> reply =
      line.ok() ? RunCommand(commands, *line, *daemon) : absl::StatusOr<Reply>(line.status());
  if (daemon.has_value()) {
    // A daemon of the list did not answer but another did: say so, naming each.
    for (const std::string& note : daemon->failover_notes()) {
      err << "toporrctl: warning: " << Displayable(note) << "\n";
    }
  }
  if (reply.ok()) {
    const std::string& answered_by = daemon->answered_by();
    if (line->options.verbose && !answered_by.empty()) {
      err << "toporrctl: answered by toporrd at " << Displayable(answered_by) << "\n";
    }
    if (line->options.json && daemon->has_standby() && !answered_by.empty()) {
      std::ostringstream doc;
      const int code = Render(*reply, true, doc, err);
      out << WithDaemonAddress(doc.str(), answered_by);
      return code;
    }
    return Render(*reply, line->options.json, out, err);
  }
  // The one place where an error becomes an exit code.
  if (IsUsageError(reply.status())) {
    err << "toporrctl: " << reply.status().message() << "\n\n" << Usage(commands);
    return 2;
  }
  err << "toporrctl: " << Displayable(std::string(reply.status().message())) << "\n";
  return 1;
}

}  // namespace toporr::client::ctl
