// How a toporrctl command answers: a Reply holds both forms of one result, a human-readable
// table or text and a JSON document (`--json`; field names are stable, see README.md), and
// Render() prints the form asked for. A command states its reply once, as the pair of
// views, and never looks at --json itself:
//
//   return ReplyOf(std::move(response), HostsJson, HostsText);
#ifndef TOPORR_CLIENT_CTL_OUTPUT_H_
#define TOPORR_CLIENT_CTL_OUTPUT_H_

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/json_writer.h"

namespace toporr::client::ctl {

struct Reply {
  std::function<void(JsonWriter&)> json;    // writes exactly one JSON value
  std::function<void(std::ostream&)> text;  // writes whole lines
  // Printed to the error stream before the reply in either form ("toporrctl: warning: ...").
  std::vector<std::string> warnings;
  int exit_code = 0;  // the command's exit code once the reply is printed
  // Overrides `exit_code` when printed as text, for a finding the text reports and JSON
  // only carries as data (ingest of traces that disagree with the routes: 3).
  std::optional<int> text_exit_code;
};

// A Reply whose two views read one shared `value`: `json(const T&, JsonWriter&)` and
// `text(const T&, std::ostream&)`.
template <typename T, typename Json, typename Text>
Reply ReplyOf(T value, Json json, Text text) {
  auto shared = std::make_shared<const T>(std::move(value));
  Reply reply;
  reply.json = [shared, json](JsonWriter& w) { json(*shared, w); };
  reply.text = [shared, text](std::ostream& out) { text(*shared, out); };
  return reply;
}

// `text` as toporrctl prints anything that came from the daemon or an input file: every
// byte a terminal would interpret (control characters but newline and tab, escape
// sequences, text that is not UTF-8) written as \xNN (common/printable.h).
std::string Displayable(std::string_view text);

// Prints `reply` as JSON (one document and a newline) or as text (through Displayable, as
// are the warnings); returns its exit code.
int Render(const Reply& reply, bool json, std::ostream& out, std::ostream& err);

// `v` with `digits` decimals ("32.0"), as every table prints rates and latencies.
std::string Fixed(double v, int digits);

}  // namespace toporr::client::ctl

#endif  // TOPORR_CLIENT_CTL_OUTPUT_H_
