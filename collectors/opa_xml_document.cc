#include "collectors/opa_xml_document.h"

#include <libxml/SAX2.h>
#include <libxml/parser.h>

#include <algorithm>
#include <charconv>
#include <mutex>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/text_scan.h"

namespace toporr::collectors::opa_xml_internal {
namespace {

struct CtxtDeleter {
  void operator()(xmlParserCtxt* c) const { xmlFreeParserCtxt(c); }
};

// libxml2 passes the parser context (its default userData) as `ctx`.
ParseRecord* RecordOf(void* ctx) {
  return static_cast<ParseRecord*>(static_cast<xmlParserCtxtPtr>(ctx)->_private);
}

void CollectFirstError(void* ctx, xmlErrorPtr e) {
  ParseRecord* rec = RecordOf(ctx);
  if (rec->error_set || e == nullptr || e->level < XML_ERR_ERROR) return;
  rec->error_set = true;
  rec->error_line = e->line;
  std::string message(absl::StripTrailingAsciiWhitespace(e->message ? e->message : "XML error"));
  // libxml2 advises its callers to lift its limits ("..., use XML_PARSE_HUGE option"); a
  // topology file never needs them lifted, and the advice means nothing to an operator.
  if (const size_t huge = message.find("XML_PARSE_HUGE"); huge != std::string::npos) {
    size_t cut = message.rfind("use", huge);
    if (cut == std::string::npos) cut = huge;
    while (cut > 0 && (message[cut - 1] == ' ' || message[cut - 1] == ',')) --cut;
    message = absl::StrCat(message.substr(0, cut),
                           " (beyond libxml2's limits for untrusted input; no real topology "
                           "file needs more)");
  }
  rec->error = std::move(message);
}

void StartElementRecordingLine(void* ctx, const xmlChar* localname, const xmlChar* prefix,
                               const xmlChar* uri, int nb_namespaces, const xmlChar** namespaces,
                               int nb_attributes, int nb_defaulted, const xmlChar** attributes) {
  xmlSAX2StartElementNs(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes,
                        nb_defaulted, attributes);
  auto* ctxt = static_cast<xmlParserCtxtPtr>(ctx);
  if (ctxt->node != nullptr) RecordOf(ctx)->lines[ctxt->node] = xmlSAX2GetLineNumber(ctx);
}

}  // namespace

absl::Status ReadXml(std::string_view text, const OpaOptions& options, XmlInput* in) {
  static std::once_flag init;
  std::call_once(init, [] { xmlInitParser(); });
  if (text.size() > static_cast<size_t>(INT32_MAX)) {
    return OpaInputError(options, 1, "file too large for an XML topology");
  }
  std::unique_ptr<xmlParserCtxt, CtxtDeleter> ctxt(xmlNewParserCtxt());
  if (!ctxt) return absl::ResourceExhaustedError("libxml2: cannot allocate a parser context");
  ParseRecord& rec = in->record;
  ctxt->_private = &rec;
  ctxt->sax->serror = CollectFirstError;
  ctxt->sax->error = nullptr;
  ctxt->sax->warning = nullptr;
  ctxt->sax->startElementNs = StartElementRecordingLine;
  // No network, no DTD loading, no entity substitution.
  in->doc.reset(xmlCtxtReadMemory(ctxt.get(), text.data(), static_cast<int>(text.size()),
                                  options.file_name.c_str(), nullptr,
                                  XML_PARSE_NONET | XML_PARSE_BIG_LINES | XML_PARSE_NOWARNING));
  if (!in->doc || !ctxt->wellFormed) {
    if (!rec.error_set) {
      rec.error_line = ctxt->input ? ctxt->input->line : 1;
      rec.error = "not well-formed";
    }
    // libxml2 puts an error at the end of a text ending in '\n' on the line after the last.
    return OpaInputError(options, std::clamp(rec.error_line, 1L, LineCount(text)),
                         absl::StrCat("malformed XML (truncated file?): ", rec.error));
  }
  if (in->doc->intSubset != nullptr || in->doc->extSubset != nullptr) {
    // The DTD node has no line of its own; a DOCTYPE precedes the root element.
    return OpaInputError(options, 1, "a DOCTYPE is not accepted in a topology file");
  }
  return absl::OkStatus();
}

bool IsElement(const xmlNode* n, const char* name) {
  return n->type == XML_ELEMENT_NODE &&
         xmlStrEqual(n->name, reinterpret_cast<const xmlChar*>(name));
}

std::string TextOf(const xmlNode* n) {
  xmlChar* c = xmlNodeGetContent(n);
  std::string s = c ? reinterpret_cast<const char*>(c) : "";
  xmlFree(c);
  return std::string(absl::StripAsciiWhitespace(s));
}

std::optional<uint64_t> ParseUnsigned(std::string_view s, uint64_t max) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || v > max) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseDecimal(std::string_view s, uint64_t max) {
  if (s.empty() || (s.size() > 1 && (s[1] == 'x' || s[1] == 'X'))) return std::nullopt;
  return ParseUnsigned(s, max);
}

}  // namespace toporr::collectors::opa_xml_internal
