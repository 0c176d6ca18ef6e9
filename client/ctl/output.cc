#include "client/ctl/output.h"

#include <iomanip>
#include <sstream>

namespace toporr::client::ctl {

int Render(const Reply& reply, bool json, std::ostream& out, std::ostream& err) {
  for (const std::string& w : reply.warnings) err << "toporrctl: warning: " << w << "\n";
  if (json) {
    JsonWriter w(&out);
    reply.json(w);
    out << "\n";
    return reply.exit_code;
  }
  reply.text(out);
  return reply.text_exit_code.value_or(reply.exit_code);
}

std::string Fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

}  // namespace toporr::client::ctl
