#include "client/mpi/openmpi_component/component_library.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/config/client_options.h"
#include "client/mpi/openmpi_component/component.h"

namespace toporr::client::mpi {
namespace {

// One per toporr_mca_component.
Library* libraries[2] = {nullptr, nullptr};

// The settings that are MCA parameters, as C sees them (toporr_mca_settings).
struct McaTable {
  std::vector<toporr_mca_setting> c;
  McaTable() {
    for (const McaSetting& s : McaSettings()) {
      int type = TOPORR_MCA_STRING;
      if (s.mca.type == McaType::kBool) type = TOPORR_MCA_BOOL;
      if (s.mca.type == McaType::kInt) type = TOPORR_MCA_INT;
      if (s.mca.type == McaType::kInt64) type = TOPORR_MCA_INT64;
      c.push_back({s.key, s.mca.help, type, s.mca.level, s.mca.groups});
    }
    if (c.size() > TOPORR_MCA_MAX_SETTINGS) c.resize(TOPORR_MCA_MAX_SETTINGS);
  }
};

const McaTable& Table() {
  static const McaTable* table = new McaTable;
  return *table;
}

// The process configuration's values as text, kept for toporr_mca_value's string pointers.
const std::vector<std::string>& DefaultTexts() {
  static const std::vector<std::string>* texts = [] {
    auto* out = new std::vector<std::string>;
    for (const toporr_mca_setting& s : Table().c) {
      out->push_back(ClientSettingText(ProcessClientOptions().options, s.name));
    }
    return out;
  }();
  return *texts;
}

std::string Text(const char* s) { return s == nullptr ? std::string() : std::string(s); }

}  // namespace

Library* ComponentLibrary(int component) {
  return component == TOPORR_MCA_COLL || component == TOPORR_MCA_TOPO ? libraries[component]
                                                                      : nullptr;
}

}  // namespace toporr::client::mpi

extern "C" {

const toporr_mca_setting* toporr_mca_settings(int* count) {
  const auto& c = toporr::client::mpi::Table().c;
  *count = static_cast<int>(c.size());
  return c.data();
}

void toporr_mca_defaults(toporr_mca_value* values) {
  const auto& table = toporr::client::mpi::Table().c;
  const auto& texts = toporr::client::mpi::DefaultTexts();
  for (size_t i = 0; i < table.size(); ++i) {
    const std::string& text = texts[i];
    switch (table[i].type) {
      case TOPORR_MCA_BOOL:
        values[i].b = text == "1";
        break;
      case TOPORR_MCA_INT:
        values[i].i = std::atoi(text.c_str());
        break;
      case TOPORR_MCA_INT64:
        values[i].l = std::atoll(text.c_str());
        break;
      default:
        values[i].s = text.empty() ? nullptr : const_cast<char*>(text.c_str());
        break;
    }
  }
}

int toporr_mca_configure(int component, const toporr_mca_value* values) {
  using toporr::client::mpi::Text;
  if (component != TOPORR_MCA_COLL && component != TOPORR_MCA_TOPO) return 0;
  toporr::client::mpi::Library*& library = toporr::client::mpi::libraries[component];
  if (library == nullptr) {
    // Each parameter through the client's settings table, so an Open MPI parameter gets the
    // checks its TOPORR_* variable gets: a value out of range is refused with one warning
    // naming the parameter, and the process configuration's value is kept.
    toporr::client::ClientOptions o = toporr::client::ProcessClientOptions().options;
    std::vector<std::string> warnings = toporr::client::ProcessClientOptions().warnings;
    const char* framework = component == TOPORR_MCA_COLL ? "coll" : "topo";
    const auto& table = toporr::client::mpi::Table().c;
    for (size_t i = 0; i < table.size(); ++i) {
      std::string value;
      switch (table[i].type) {
        case TOPORR_MCA_BOOL:
          value = values[i].b ? "1" : "0";
          break;
        case TOPORR_MCA_INT:
          value = std::to_string(values[i].i);
          break;
        case TOPORR_MCA_INT64:
          value = std::to_string(values[i].l);
          break;
        default:
          value = Text(values[i].s);
          break;
      }
      std::string expected;
      if (!toporr::client::ApplyClientSetting(table[i].name, value, &o, &expected)) {
        warnings.push_back(absl::StrCat(framework, "_toporr_", table[i].name, "=",
                                        value.substr(0, 64), " ignored: expected ", expected));
      }
    }
    library = new toporr::client::mpi::Library(o, std::move(warnings));
  }
  return library->options().disable ? 0 : 1;
}

}  // extern "C"
