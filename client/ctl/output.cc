#include "client/ctl/output.h"

#include <iomanip>
#include <limits>
#include <sstream>

#include "common/printable.h"

namespace toporr::client::ctl {

std::string Displayable(std::string_view text) {
  return Printable(text, std::numeric_limits<size_t>::max(), "\n\t");
}

int Render(const Reply& reply, bool json, std::ostream& out, std::ostream& err) {
  for (const std::string& w : reply.warnings) {
    err << "toporrctl: warning: " << Displayable(w) << "\n";
  }
  if (json) {  // JsonWriter escapes every control character
    JsonWriter w(&out);
    reply.json(w);
    out << "\n";
    return reply.exit_code;
  }
  std::ostringstream text;
  reply.text(text);
  out << Displayable(text.str());
  return reply.text_exit_code.value_or(reply.exit_code);
}

std::string Fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

}  // namespace toporr::client::ctl
