// The libxml2 side of the Omni-Path topology XML parser (opa_topology_xml.h): reading a
// document safely (no network, no DTD loading, no entity substitution, a DOCTYPE refused) with
// the exact start-tag line of every element, and the element and field helpers the parser
// reads it with. Errors are OpaInputError's ("<file_name>:<line>: <what>"). Thread-safe.
// Internal to collectors/:opa_topology_xml.
#ifndef TOPORR_COLLECTORS_OPA_XML_DOCUMENT_H_
#define TOPORR_COLLECTORS_OPA_XML_DOCUMENT_H_

#include <libxml/tree.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/status/status.h"
#include "collectors/opareport.h"

namespace toporr::collectors::opa_xml_internal {

struct DocDeleter {
  void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
using DocPtr = std::unique_ptr<xmlDoc, DocDeleter>;

// What the SAX hooks collect while libxml2 builds the tree.
struct ParseRecord {
  bool error_set = false;
  long error_line = 0;
  std::string error;
  // Start-tag line of every element. libxml2 keeps exact lines only up to 65535 in the node
  // and approximates beyond (xmlGetLineNo falls back to a child's line), so record them here.
  std::unordered_map<const xmlNode*, long> lines;
};

// A parsed document and what its parse recorded.
struct XmlInput {
  DocPtr doc;
  ParseRecord record;
};

// Parses `text` into `in`. kInvalidArgument for a text above 2 GiB, for XML that is not well
// formed (at the line of libxml2's first error, "malformed XML (truncated file?): ...") and
// for a DOCTYPE; kResourceExhausted when libxml2 cannot allocate a parser context.
absl::Status ReadXml(std::string_view text, const OpaOptions& options, XmlInput* in);

// True when `n` is an element named `name`.
bool IsElement(const xmlNode* n, const char* name);

// The element's name.
inline const char* NameOf(const xmlNode* n) { return reinterpret_cast<const char*>(n->name); }

// The element's text with surrounding blanks removed.
std::string TextOf(const xmlNode* n);

// A field's number: decimal, or hexadecimal after "0x"; nullopt when malformed or above `max`.
std::optional<uint64_t> ParseUnsigned(std::string_view s, uint64_t max);

// As ParseUnsigned, but decimal only: PortNum "08" is eight, not bad octal.
std::optional<uint64_t> ParseDecimal(std::string_view s, uint64_t max);

}  // namespace toporr::collectors::opa_xml_internal

#endif  // TOPORR_COLLECTORS_OPA_XML_DOCUMENT_H_
