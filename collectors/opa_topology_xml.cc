#include "collectors/opa_topology_xml.h"

#include <libxml/tree.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectors/opa_xml_document.h"
#include "common/status_macros.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::FormatGuid;
using fabric::LinkEnd;
using fabric::Node;
using fabric::NodeType;
using fabric::NodeTypeName;
using fabric::Port;
using opa_xml_internal::IsElement;
using opa_xml_internal::NameOf;
using opa_xml_internal::ParseDecimal;
using opa_xml_internal::ParseRecord;
using opa_xml_internal::ParseUnsigned;
using opa_xml_internal::ReadXml;
using opa_xml_internal::TextOf;
using opa_xml_internal::XmlInput;
namespace {

constexpr int kMaxOpaPort = 254;  // opa-ff: "PortNum must be in range [0,254]"

// ---------------------------------------------------------------------------------------
// What the document says, before resolution

struct Selector {
  long line = 0;
  int seq = 0;  // document order of mention
  uint64_t node_guid = 0;
  uint64_t port_guid = 0;
  int port_num = -1;
  std::string desc;  // empty: not given
  std::optional<NodeType> type;
  long type_line = 0;
  int node = -1;  // resolved proto node
};

struct LinkRecord {
  long line = 0;
  std::optional<OpaRate> rate;
  bool internal = false;
  Selector ends[2];
};

struct PortRecord {
  long line = 0;
  int num = -1;
  std::optional<uint32_t> lid;
  uint8_t lmc = 0;
  uint64_t guid = 0;
};

struct NodeEntry {
  Selector id;  // NodeGUID / NodeDesc / type of the entry; port fields unused
  std::vector<PortRecord> ports;
};

// A node as resolution builds it.
struct Proto {
  uint64_t guid = 0;
  bool synthesized = false;
  int seq = 0;
  long line = 0;
  std::string desc;
  long desc_line = 0;
  std::optional<NodeType> type;
  long type_line = 0;
  bool linked = false;
  int max_port = 0;
  uint32_t lid = 0;
  uint8_t lmc = 0;
  // port number -> what the file says about it (CA ports only are applied)
  std::map<int, PortRecord> ports;
};

class Parser {
 public:
  Parser(const OpaOptions& options, const ParseRecord& record)
      : options_(options), record_(record) {}

  absl::Status Read(const xmlNode* root);
  absl::Status Resolve();
  absl::StatusOr<Fabric> Build(OpaParseStats* stats);

 private:
  long LineOf(const xmlNode* n) const {
    auto it = record_.lines.find(n);
    return it != record_.lines.end() ? it->second : xmlGetLineNo(n);
  }
  absl::Status Error(long line, const std::string& what) const {
    return OpaInputError(options_, line, what);
  }

  absl::Status ReadLinkSection(const xmlNode* section);
  absl::Status ReadLink(const xmlNode* link);
  absl::Status ReadSelectorField(const xmlNode* f, Selector* sel);
  absl::Status ReadNodeSection(const xmlNode* section, NodeType type);
  absl::Status ReadPort(const xmlNode* port, PortRecord* out);

  absl::StatusOr<int> ProtoByGuid(uint64_t guid, const Selector& s);
  absl::StatusOr<int> ProtoByDesc(const Selector& s);
  absl::Status MergeInto(int proto, const Selector& s);
  template <typename Fn>
  absl::Status ForEachSelector(Fn fn);

  const OpaOptions& options_;
  const ParseRecord& record_;
  int seq_ = 0;
  std::vector<LinkRecord> links_;
  std::vector<NodeEntry> entries_;

  std::vector<Proto> protos_;
  std::unordered_map<uint64_t, int> by_guid_;
  std::unordered_map<std::string, int> synthesized_by_desc_;
  std::unordered_map<std::string, std::vector<int>> real_by_desc_;
};

absl::Status Parser::Read(const xmlNode* root) {
  if (!IsElement(root, "Topology") && !IsElement(root, "Report")) {
    return Error(LineOf(root), absl::StrCat("root element is <", NameOf(root),
                                            ">, expected <Topology> or <Report>"));
  }
  const xmlNode* link_section = nullptr;
  for (const xmlNode* c = root->children; c; c = c->next) {
    if (IsElement(c, "LinkSummary") || IsElement(c, "ExternalLinkSummary")) {
      if (link_section) {
        return Error(
            LineOf(c),
            absl::StrCat("second link section <", NameOf(c), "> (first <", NameOf(link_section),
                         "> at line ", LineOf(link_section), "); a topology file has exactly one"));
      }
      link_section = c;
      RETURN_IF_ERROR(ReadLinkSection(c));
    } else if (IsElement(c, "Nodes")) {
      for (const xmlNode* s = c->children; s; s = s->next) {
        if (IsElement(s, "FIs")) RETURN_IF_ERROR(ReadNodeSection(s, NodeType::kCa));
        if (IsElement(s, "Switches")) RETURN_IF_ERROR(ReadNodeSection(s, NodeType::kSwitch));
      }
    }
  }
  if (!link_section) {
    return Error(LineOf(root),
                 "no <LinkSummary> or <ExternalLinkSummary>: not a topology file (produce one "
                 "with `opareport -o topology` or `opaxlattopology`)");
  }
  return absl::OkStatus();
}

absl::Status Parser::ReadLinkSection(const xmlNode* section) {
  for (const xmlNode* c = section->children; c; c = c->next) {
    if (IsElement(c, "Link")) RETURN_IF_ERROR(ReadLink(c));
  }
  return absl::OkStatus();
}

absl::Status Parser::ReadLink(const xmlNode* link) {
  LinkRecord rec;
  rec.line = LineOf(link);
  int ports = 0;
  std::optional<OpaRate> by_text, by_code;
  std::string rate_text;
  for (const xmlNode* f = link->children; f; f = f->next) {
    if (f->type != XML_ELEMENT_NODE) continue;
    if (IsElement(f, "Port")) {
      if (ports == 2) return Error(LineOf(f), "<Link> with more than two <Port>s");
      Selector& sel = rec.ends[ports++];
      sel.line = LineOf(f);
      sel.seq = seq_++;
      for (const xmlNode* g = f->children; g; g = g->next) {
        if (g->type == XML_ELEMENT_NODE) RETURN_IF_ERROR(ReadSelectorField(g, &sel));
      }
      continue;
    }
    const std::string text = TextOf(f);
    if (IsElement(f, "Rate")) {
      if (text.empty()) continue;
      by_text = ParseOpaRateText(text);
      rate_text = text;
      if (!by_text) {
        return Error(LineOf(f), absl::StrCat("unknown link rate \"", text,
                                             "\" (Omni-Path rates: 12.5g 25g 37.5g 50g 75g "
                                             "100g 200g)"));
      }
    } else if (IsElement(f, "Rate_Int")) {
      if (text.empty()) continue;
      std::optional<uint64_t> code = ParseDecimal(text, 255);
      if (code) by_code = OpaRateFromCode(static_cast<int>(*code));
      if (!by_code) {
        return Error(LineOf(f), absl::StrCat("unknown <Rate_Int> \"", text,
                                             "\" (Omni-Path static-rate codes: 11 15 7 12 9 16 "
                                             "17)"));
      }
    } else if (IsElement(f, "Internal")) {
      std::optional<uint64_t> v = ParseDecimal(text, UINT32_MAX);
      if (!v)
        return Error(LineOf(f), absl::StrCat("<Internal> is \"", text, "\", expected 0 or 1"));
      rec.internal = *v != 0;
    }
  }
  if (ports != 2) {
    return Error(rec.line, absl::StrCat("<Link> with ", ports,
                                        " <Port> selector(s); a link needs exactly two"));
  }
  if (by_text && by_code && by_text->data_rate_gbps != by_code->data_rate_gbps) {
    return Error(rec.line, absl::StrCat("<Rate> \"", rate_text, "\" and <Rate_Int> disagree"));
  }
  rec.rate = by_text ? by_text : by_code;
  links_.push_back(std::move(rec));
  return absl::OkStatus();
}

absl::Status Parser::ReadSelectorField(const xmlNode* f, Selector* sel) {
  const std::string text = TextOf(f);
  if (text.empty()) return absl::OkStatus();  // opaxmlgenerate may emit empty optional fields
  auto bad = [&](const char* expected) {
    return Error(LineOf(f),
                 absl::StrCat("<", NameOf(f), "> is \"", text, "\", expected ", expected));
  };
  if (IsElement(f, "NodeGUID") || IsElement(f, "PortGUID")) {
    std::optional<uint64_t> v = ParseUnsigned(text, UINT64_MAX);
    if (!v) return bad("a GUID such as 0x00117501010e0004");
    (IsElement(f, "NodeGUID") ? sel->node_guid : sel->port_guid) = *v;
  } else if (IsElement(f, "PortNum")) {
    std::optional<uint64_t> v = ParseDecimal(text, kMaxOpaPort);
    if (!v) return bad("a decimal port number 0..254");
    sel->port_num = static_cast<int>(*v);
  } else if (IsElement(f, "NodeDesc")) {
    sel->desc = text;
  } else if (IsElement(f, "NodeType") || IsElement(f, "NodeType_Int")) {
    std::optional<NodeType> t;
    if (IsElement(f, "NodeType")) {
      t = ParseOpaNodeType(text);
      if (!t) return bad("FI or SW");
    } else {
      std::optional<uint64_t> v = ParseDecimal(text, 255);
      if (v) t = OpaNodeTypeFromCode(static_cast<int>(*v));
      if (!t) return bad("1 (FI) or 2 (SW)");
    }
    if (sel->type && *sel->type != *t) {
      return Error(LineOf(f), "<NodeType> and <NodeType_Int> disagree");
    }
    sel->type = t;
    sel->type_line = LineOf(f);
  }
  return absl::OkStatus();
}

absl::Status Parser::ReadNodeSection(const xmlNode* section, NodeType type) {
  for (const xmlNode* n = section->children; n; n = n->next) {
    if (!IsElement(n, "Node")) continue;
    NodeEntry e;
    e.id.line = LineOf(n);
    e.id.seq = seq_++;
    for (const xmlNode* f = n->children; f; f = f->next) {
      if (IsElement(f, "Port")) {
        PortRecord p;
        RETURN_IF_ERROR(ReadPort(f, &p));
        e.ports.push_back(p);
      } else if (IsElement(f, "NodeGUID") || IsElement(f, "NodeDesc") || IsElement(f, "NodeType") ||
                 IsElement(f, "NodeType_Int")) {
        RETURN_IF_ERROR(ReadSelectorField(f, &e.id));
      }
    }
    if (e.id.type && *e.id.type != type) {
      return Error(e.id.type_line, absl::StrCat("node type ", NodeTypeName(*e.id.type),
                                                " listed under <", NameOf(section), ">"));
    }
    if (!e.id.type) {
      e.id.type = type;
      e.id.type_line = e.id.line;
    }
    entries_.push_back(std::move(e));
  }
  return absl::OkStatus();
}

absl::Status Parser::ReadPort(const xmlNode* port, PortRecord* out) {
  out->line = LineOf(port);
  for (const xmlNode* f = port->children; f; f = f->next) {
    if (f->type != XML_ELEMENT_NODE) continue;
    const std::string text = TextOf(f);
    if (text.empty()) continue;
    auto bad = [&](const char* expected) {
      return Error(LineOf(f),
                   absl::StrCat("<", NameOf(f), "> is \"", text, "\", expected ", expected));
    };
    if (IsElement(f, "PortNum")) {
      std::optional<uint64_t> v = ParseDecimal(text, kMaxOpaPort);
      if (!v) return bad("a decimal port number 0..254");
      out->num = static_cast<int>(*v);
    } else if (IsElement(f, "LID")) {
      std::optional<uint64_t> v = ParseUnsigned(text, UINT32_MAX);
      if (!v) return bad("a LID such as 0x0001");
      out->lid = static_cast<uint32_t>(*v);
    } else if (IsElement(f, "LMC")) {
      std::optional<uint64_t> v = ParseDecimal(text, 7);
      if (!v) return bad("an LMC 0..7");
      out->lmc = static_cast<uint8_t>(*v);
    } else if (IsElement(f, "PortGUID")) {
      std::optional<uint64_t> v = ParseUnsigned(text, UINT64_MAX);
      if (!v) return bad("a GUID such as 0x00117501010e0004");
      out->guid = *v;
    }
  }
  if (out->num < 0) return Error(out->line, "<Port> under <Node> without <PortNum>");
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------
// Resolution

std::string Quote(const std::string& s) { return absl::StrCat("\"", s, "\""); }

absl::StatusOr<int> Parser::ProtoByGuid(uint64_t guid, const Selector& s) {
  auto [it, inserted] = by_guid_.emplace(guid, static_cast<int>(protos_.size()));
  if (inserted) {
    Proto p;
    p.guid = guid;
    p.seq = s.seq;
    p.line = s.line;
    protos_.push_back(std::move(p));
  }
  return it->second;
}

absl::StatusOr<int> Parser::ProtoByDesc(const Selector& s) {
  auto real = real_by_desc_.find(s.desc);
  if (real != real_by_desc_.end()) {
    if (real->second.size() > 1) {
      const Proto& a = protos_[real->second[0]];
      const Proto& b = protos_[real->second[1]];
      return Error(s.line, absl::StrCat("NodeDesc ", Quote(s.desc), " is ambiguous: nodes ",
                                        FormatGuid(a.guid), " (line ", a.desc_line, ") and ",
                                        FormatGuid(b.guid), " (line ", b.desc_line,
                                        ") both carry it; give a NodeGUID"));
    }
    return real->second[0];
  }
  auto [it, inserted] = synthesized_by_desc_.emplace(s.desc, static_cast<int>(protos_.size()));
  if (inserted) {
    const uint64_t guid = SynthesizedOpaNodeGuid(s.desc);
    if (by_guid_.count(guid)) {
      return Error(s.line,
                   absl::StrCat("the GUID synthesised for NodeDesc ", Quote(s.desc), ", ",
                                FormatGuid(guid), ", is already taken; give this node a NodeGUID"));
    }
    Proto p;
    p.guid = guid;
    p.synthesized = true;
    p.seq = s.seq;
    p.line = s.line;
    p.desc = s.desc;
    p.desc_line = s.line;
    by_guid_.emplace(guid, static_cast<int>(protos_.size()));
    protos_.push_back(std::move(p));
  }
  return it->second;
}

absl::Status Parser::MergeInto(int index, const Selector& s) {
  Proto& p = protos_[index];
  p.seq = std::min(p.seq, s.seq);
  if (!s.desc.empty()) {
    if (p.desc.empty()) {
      p.desc = s.desc;
      p.desc_line = s.line;
    } else if (p.desc != s.desc) {
      return Error(s.line, absl::StrCat("node ", FormatGuid(p.guid), " is named ", Quote(s.desc),
                                        " here but ", Quote(p.desc), " at line ", p.desc_line));
    }
  }
  if (s.type) {
    if (!p.type) {
      p.type = s.type;
      p.type_line = s.type_line;
    } else if (*p.type != *s.type) {
      return Error(s.type_line, absl::StrCat("node ", Quote(p.desc), " (", FormatGuid(p.guid),
                                             ") is a ", NodeTypeName(*s.type), " here but a ",
                                             NodeTypeName(*p.type), " at line ", p.type_line));
    }
  }
  if (s.port_num >= 0) p.max_port = std::max(p.max_port, s.port_num);
  return absl::OkStatus();
}

template <typename Fn>
absl::Status Parser::ForEachSelector(Fn fn) {
  for (LinkRecord& l : links_) {
    for (Selector& s : l.ends) RETURN_IF_ERROR(fn(s, /*entry=*/nullptr));
  }
  for (NodeEntry& e : entries_) RETURN_IF_ERROR(fn(e.id, &e));
  return absl::OkStatus();
}

absl::Status Parser::Resolve() {
  // 1. Nodes named by NodeGUID.
  RETURN_IF_ERROR(ForEachSelector([&](Selector& s, NodeEntry*) -> absl::Status {
    if (s.node_guid == 0) return absl::OkStatus();
    ASSIGN_OR_RETURN(s.node, ProtoByGuid(s.node_guid, s));
    return MergeInto(s.node, s);
  }));
  for (size_t i = 0; i < protos_.size(); ++i) {
    if (!protos_[i].desc.empty()) real_by_desc_[protos_[i].desc].push_back(static_cast<int>(i));
  }
  // 2. Nodes named by NodeDesc only.
  RETURN_IF_ERROR(ForEachSelector([&](Selector& s, NodeEntry*) -> absl::Status {
    if (s.node >= 0 || s.desc.empty()) return absl::OkStatus();
    ASSIGN_OR_RETURN(s.node, ProtoByDesc(s));
    return MergeInto(s.node, s);
  }));
  // 3. Port GUIDs the file ties to a (node, port); a GUID tied to two ports is unusable.
  constexpr std::pair<int, int> kAmbiguous{-1, -1};
  std::unordered_map<uint64_t, std::pair<int, int>> ports_by_guid;
  auto note_port_guid = [&](uint64_t guid, int node, int num) {
    if (guid == 0 || node < 0 || num < 0) return;
    auto [it, inserted] = ports_by_guid.emplace(guid, std::make_pair(node, num));
    if (!inserted && it->second != std::make_pair(node, num)) it->second = kAmbiguous;
  };
  RETURN_IF_ERROR(ForEachSelector([&](Selector& s, NodeEntry* e) -> absl::Status {
    note_port_guid(s.port_guid, s.node, s.port_num);
    if (e) {
      for (const PortRecord& p : e->ports) note_port_guid(p.guid, s.node, p.num);
    }
    return absl::OkStatus();
  }));
  // 4. Selectors by PortGUID only, and port numbers from PortGUIDs.
  for (LinkRecord& l : links_) {
    for (Selector& s : l.ends) {
      auto it = s.port_guid ? ports_by_guid.find(s.port_guid) : ports_by_guid.end();
      const bool usable = it != ports_by_guid.end() && it->second != kAmbiguous;
      if (s.node < 0) {
        if (s.port_guid == 0) {
          return Error(s.line, "port selector has none of NodeGUID, NodeDesc, PortGUID");
        }
        if (!usable) {
          return Error(s.line, absl::StrCat("cannot resolve the port selector: it has no "
                                            "NodeGUID or NodeDesc, and PortGUID ",
                                            FormatGuid(s.port_guid),
                                            it == ports_by_guid.end()
                                                ? " belongs to no port named elsewhere in the file"
                                                : " is given to several ports"));
        }
        s.node = it->second.first;
        RETURN_IF_ERROR(MergeInto(s.node, s));
      }
      if (s.port_num < 0) {
        if (!usable || it->second.first != s.node) {
          return Error(s.line, absl::StrCat("cannot resolve the port selector for node ",
                                            Quote(protos_[s.node].desc), " (",
                                            FormatGuid(protos_[s.node].guid),
                                            "): no <PortNum>, and no PortGUID known for it"));
        }
        s.port_num = it->second.second;
        RETURN_IF_ERROR(MergeInto(s.node, s));
      }
      protos_[s.node].linked = true;
      if (s.port_guid) protos_[s.node].ports[s.port_num].guid = s.port_guid;
    }
  }
  // 5. What <Nodes> adds: LIDs, LMC, port GUIDs.
  for (NodeEntry& e : entries_) {
    if (e.id.node < 0) {
      return Error(e.id.line, "<Node> without <NodeGUID> or <NodeDesc>");
    }
    Proto& p = protos_[e.id.node];
    for (const PortRecord& r : e.ports) {
      p.max_port = std::max(p.max_port, r.num);
      PortRecord& known = p.ports[r.num];
      known.num = r.num;
      if (r.guid) known.guid = r.guid;
      if (r.lid) known.lid = r.lid;
      known.lmc = r.lmc;
    }
  }
  for (Proto& p : protos_) {
    if (!p.type) {
      return Error(p.line, absl::StrCat("node ", Quote(p.desc), " (", FormatGuid(p.guid),
                                        ") has no <NodeType> anywhere in the file and is not "
                                        "listed under <Nodes>"));
    }
    const PortRecord* base = nullptr;
    if (*p.type == NodeType::kSwitch) {
      auto it = p.ports.find(0);
      if (it != p.ports.end()) base = &it->second;
    } else {
      for (const auto& [num, r] : p.ports) {
        if (r.lid) {
          base = &r;
          break;
        }
      }
    }
    if (base && base->lid) {
      p.lid = *base->lid;
      p.lmc = base->lmc;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Fabric> Parser::Build(OpaParseStats* stats) {
  OpaParseStats st;
  std::vector<int> order;
  for (size_t i = 0; i < protos_.size(); ++i) {
    if (protos_[i].linked || options_.keep_unlinked_nodes) {
      order.push_back(static_cast<int>(i));
    } else {
      ++st.unlinked_nodes_dropped;
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return protos_[a].seq < protos_[b].seq; });
  Fabric fabric;
  std::vector<int> node_of(protos_.size(), -1);
  for (int i : order) {
    const Proto& p = protos_[i];
    Node n;
    n.type = *p.type;
    n.guid = p.guid;
    n.description = p.desc;
    n.num_ports = p.max_port;
    n.lid = p.lid;
    n.lmc = p.lmc;
    absl::Status s = fabric.AddNode(std::move(n), &node_of[i]);
    if (!s.ok()) return Error(p.line, std::string(s.message()));
    if (p.synthesized) ++st.synthesized_guids;
  }
  for (const LinkRecord& l : links_) {
    const LinkEnd x{node_of[l.ends[0].node], l.ends[0].port_num};
    const LinkEnd y{node_of[l.ends[1].node], l.ends[1].port_num};
    absl::Status s = ConnectOpaLink(x, y, l.rate, &fabric);
    if (!s.ok()) return Error(l.line, std::string(s.message()));
    if (l.internal) ++st.internal_links;
    if (!l.rate) ++st.links_without_rate;
  }
  for (size_t i = 0; i < protos_.size(); ++i) {
    if (node_of[i] < 0 || *protos_[i].type == NodeType::kSwitch) continue;
    Node& n = fabric.nodes[node_of[i]];
    for (Port& port : n.ports) {
      auto it = protos_[i].ports.find(port.number);
      if (it == protos_[i].ports.end()) continue;
      if (it->second.guid) port.guid = it->second.guid;
      if (it->second.lid) {
        port.lid = *it->second.lid;
        port.lmc = it->second.lmc;
      }
    }
  }
  st.links = static_cast<int>(fabric.links.size());
  if (stats) *stats = st;
  return fabric;
}

}  // namespace

absl::StatusOr<Fabric> ParseOpaTopologyXml(std::string_view text, const OpaOptions& options,
                                           OpaParseStats* stats) {
  XmlInput in;
  RETURN_IF_ERROR(ReadXml(text, options, &in));
  const xmlNode* root = xmlDocGetRootElement(in.doc.get());
  if (root == nullptr) return OpaInputError(options, 1, "empty XML document");
  Parser parser(options, in.record);
  RETURN_IF_ERROR(parser.Read(root));
  RETURN_IF_ERROR(parser.Resolve());
  return parser.Build(stats);
}

}  // namespace toporr::collectors
