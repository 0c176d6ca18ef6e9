#include "client/mpi/openmpi_component/component_library.h"

#include <string>

#include "client/client_options.h"
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
    toporr::client::ClientOptions o = toporr::client::mpi::Defaults();
    o.min_bytes = p->min_bytes;
    o.disable = p->disable;
    o.verify = p->verify;
    o.verify_calls = p->verify_calls;
    o.check_arguments = p->check_arguments;
    o.reproducible = p->reproducible;
    o.deadline_ms = p->deadline_ms;
    o.verbose = p->verbose;
    o.report_path = Text(p->report);
    o.address = Text(p->address);
    o.socket = Text(p->socket);
    o.tls_ca = Text(p->tls_ca);
    o.costs_path = Text(p->costs);
    o.hostmap_path = Text(p->hostmap);
    o.algorithm = Text(p->algorithm);
    library = new toporr::client::mpi::Library(o, toporr::client::ProcessClientOptions().warnings);
  }
  return library->options().disable ? 0 : 1;
}

}  // extern "C"
