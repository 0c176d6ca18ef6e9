#include "client/mpi/openmpi_component/component_library.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/config/client_options.h"
#include "client/mpi/openmpi_component/component.h"

namespace toporr::client::mpi {
namespace {

// One per toporr_mca_component.
Library* libraries[2] = {nullptr, nullptr};

// The process configuration's strings, kept for toporr_mca_params' pointers.
ClientOptions& Defaults() {
  static ClientOptions* options = new ClientOptions(ProcessClientOptions().options);
  return *options;
}

char* Text(std::string& s) { return s.empty() ? nullptr : s.data(); }
std::string Text(const char* s) { return s == nullptr ? std::string() : std::string(s); }

}  // namespace

Library* ComponentLibrary(int component) {
  return component == TOPORR_MCA_COLL || component == TOPORR_MCA_TOPO ? libraries[component]
                                                                      : nullptr;
}

}  // namespace toporr::client::mpi

extern "C" {

void toporr_mca_defaults(toporr_mca_params* p) {
  using toporr::client::mpi::Text;
  toporr::client::ClientOptions& o = toporr::client::mpi::Defaults();
  p->min_bytes = o.min_bytes;
  p->disable = o.disable;
  p->verify = o.verify;
  p->verify_calls = o.verify_calls;
  p->check_arguments = o.check_arguments;
  p->reproducible = o.reproducible;
  p->deadline_ms = o.deadline_ms;
  p->verbose = o.verbose;
  p->report = Text(o.report_path);
  p->address = Text(o.address);
  p->socket = Text(o.socket);
  p->tls_ca = Text(o.tls_ca);
  p->costs = Text(o.costs_path);
  p->hostmap = Text(o.hostmap_path);
  p->algorithm = Text(o.algorithm);
}

int toporr_mca_configure(int component, const toporr_mca_params* p) {
  using toporr::client::mpi::Text;
  if (component != TOPORR_MCA_COLL && component != TOPORR_MCA_TOPO) return 0;
  toporr::client::mpi::Library*& library = toporr::client::mpi::libraries[component];
  if (library == nullptr) {
    // Each parameter through the client's settings table, so an Open MPI parameter gets the
    // checks its TOPORR_* variable gets: a value out of range is refused with one warning
    // naming the parameter, and the process configuration's value is kept.
    toporr::client::ClientOptions o = toporr::client::mpi::Defaults();
    std::vector<std::string> warnings = toporr::client::ProcessClientOptions().warnings;
    const char* framework = component == TOPORR_MCA_COLL ? "coll" : "topo";
    auto apply = [&](const char* key, const std::string& value) {
      std::string expected;
      if (!toporr::client::ApplyClientSetting(key, value, &o, &expected)) {
        warnings.push_back(absl::StrCat(framework, "_toporr_", key, "=", value.substr(0, 64),
                                        " ignored: expected ", expected));
      }
    };
    apply("min_bytes", std::to_string(p->min_bytes));
    apply("disable", p->disable ? "1" : "0");
    apply("verify", p->verify ? "1" : "0");
    apply("verify_calls", std::to_string(p->verify_calls));
    apply("check_arguments", p->check_arguments ? "1" : "0");
    apply("reproducible", p->reproducible ? "1" : "0");
    apply("deadline_ms", std::to_string(p->deadline_ms));
    apply("verbose", std::to_string(p->verbose));
    apply("report", Text(p->report));
    apply("address", Text(p->address));
    apply("socket", Text(p->socket));
    apply("tls_ca", Text(p->tls_ca));
    apply("costs", Text(p->costs));
    apply("hostmap", Text(p->hostmap));
    apply("algorithm", Text(p->algorithm));
    library = new toporr::client::mpi::Library(o, std::move(warnings));
  }
  return library->options().disable ? 0 : 1;
}

}  // extern "C"
