#include "collectors/plogp.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "collectors/json_value.h"
#include "common/fnv.h"
#include "common/json_writer.h"
#include "common/printable.h"
#include "common/status_macros.h"
#include "common/text_scan.h"

namespace toporr::collectors {

using fabric::Fabric;
using fabric::LinkSpeed;
using fabric::Node;
using fabric::NodeType;
using Type = JsonValue::Type;

namespace {

constexpr char kFormatName[] = "toporr-plogp";
constexpr int kVersion = 1;
constexpr const char* kHwlocFields[] = {"package", "numa", "l3", "core"};

// Reads members of probe.json; every refusal names the line of the value at fault.
class Doc {
 public:
  explicit Doc(std::string_view file) : file_(file) {}

  absl::Status Error(const JsonValue& at, std::string_view what) const {
    return LineError(file_, at.line, what);
  }

  absl::StatusOr<const JsonValue*> Member(const JsonValue& obj, const std::string& key,
                                          Type type) const {
    const JsonValue* v = obj.Find(key);
    if (v == nullptr) return Error(obj, absl::StrCat("missing member \"", key, "\""));
    if (v->type != type) {
      return Error(*v, absl::StrCat("\"", key, "\" is a ", JsonTypeName(v->type), ", not a ",
                                    JsonTypeName(type)));
    }
    return v;
  }

  absl::StatusOr<int64_t> Int(const JsonValue& v, const std::string& what, int64_t lo,
                              int64_t hi) const {
    if (v.type != Type::kNumber || v.number != std::floor(v.number) || v.number < lo ||
        v.number > hi) {
      return Error(v, absl::StrCat(what, " must be an integer in [", lo, ", ", hi, "]"));
    }
    return static_cast<int64_t>(v.number);
  }

  absl::StatusOr<int64_t> IntMember(const JsonValue& obj, const std::string& key, int64_t lo,
                                    int64_t hi) const {
    ASSIGN_OR_RETURN(const JsonValue* v, Member(obj, key, Type::kNumber));
    return Int(*v, absl::StrCat("\"", key, "\""), lo, hi);
  }

  // A finite number >= 0; `null_is` (when not NaN) is what null stands for.
  absl::StatusOr<double> NonNegative(const JsonValue& v, const std::string& what,
                                     double null_is = std::nan("")) const {
    if (v.type == Type::kNull && !std::isnan(null_is)) return null_is;
    if (v.type != Type::kNumber || !(v.number >= 0) || !std::isfinite(v.number)) {
      return Error(v, absl::StrCat(what, " must be a number >= 0"));
    }
    return v.number;
  }

  absl::StatusOr<double> NonNegativeMember(const JsonValue& obj, const std::string& key,
                                           double null_is = std::nan("")) const {
    const JsonValue* v = obj.Find(key);
    if (v == nullptr) return Error(obj, absl::StrCat("missing member \"", key, "\""));
    return NonNegative(*v, absl::StrCat("\"", key, "\""), null_is);
  }

  absl::StatusOr<std::vector<double>> Series(const JsonValue& obj, const std::string& key,
                                             size_t n) const {
    ASSIGN_OR_RETURN(const JsonValue* v, Member(obj, key, Type::kArray));
    if (v->items.size() != n) {
      return Error(
          *v, absl::StrCat("\"", key, "\" has ", v->items.size(), " values for ", n, " sizes"));
    }
    std::vector<double> out;
    for (const JsonValue& x : v->items) {
      ASSIGN_OR_RETURN(double d, NonNegative(x, absl::StrCat("a value of \"", key, "\"")));
      out.push_back(d);
    }
    return out;
  }

 private:
  std::string_view file_;
};

// A short host name (what MPI and toporr call a host: no domain, so no '.'; collectors/hosts.h
// would cut "a.b HCA-1" to host "a" and merge a.b with a.c), or a level name.
bool IsHostName(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || c == '_' || c == '-'; });
}

// Groups must be 0..k-1, every id used; fills num_groups.
absl::Status ParseLevels(const Doc& doc, const JsonValue& root, const std::string& key,
                         size_t elements, bool host_levels, std::vector<PlogpLevel>* out) {
  ASSIGN_OR_RETURN(const JsonValue* arr, doc.Member(root, key, Type::kArray));
  if (arr->items.empty()) return doc.Error(*arr, absl::StrCat("\"", key, "\" is empty"));
  for (const JsonValue& lv : arr->items) {
    if (lv.type != Type::kObject) return doc.Error(lv, "a level must be an object");
    PlogpLevel level;
    ASSIGN_OR_RETURN(const JsonValue* name, doc.Member(lv, "name", Type::kString));
    level.name = name->string;
    if (!IsHostName(level.name)) return doc.Error(*name, "a level name must be a plain word");
    ASSIGN_OR_RETURN(const JsonValue* groups, doc.Member(lv, "groups", Type::kArray));
    if (groups->items.size() != elements) {
      return doc.Error(*groups,
                       absl::StrCat("level \"", level.name, "\" has ", groups->items.size(),
                                    " groups for ", elements, host_levels ? " hosts" : " ranks"));
    }
    std::vector<bool> used(elements, false);
    for (const JsonValue& g : groups->items) {
      ASSIGN_OR_RETURN(int64_t id, doc.Int(g, "a group", 0, static_cast<int64_t>(elements) - 1));
      level.group.push_back(static_cast<int32_t>(id));
      used[id] = true;
      level.num_groups = std::max<int32_t>(level.num_groups, id + 1);
    }
    for (int32_t id = 0; id < level.num_groups; ++id) {
      if (!used[id]) {
        return doc.Error(*groups, absl::StrCat("level \"", level.name, "\" skips group ", id));
      }
    }
    ASSIGN_OR_RETURN(level.cut_ns,
                     doc.NonNegativeMember(lv, "cut_ns", std::numeric_limits<double>::infinity()));
    ASSIGN_OR_RETURN(
        level.separation,
        doc.NonNegativeMember(lv, "separation", std::numeric_limits<double>::infinity()));
    if (host_levels) {
      ASSIGN_OR_RETURN(level.latency_ns, doc.NonNegativeMember(lv, "latency_ns"));
      ASSIGN_OR_RETURN(level.gbps, doc.NonNegativeMember(lv, "gbps"));
    }
    if (!out->empty()) {  // nested: elements together below stay together
      const PlogpLevel& below = out->back();
      std::vector<int32_t> parent(below.num_groups, -1);
      for (size_t e = 0; e < elements; ++e) {
        int32_t& p = parent[below.group[e]];
        if (p >= 0 && p != level.group[e]) {
          return doc.Error(lv, absl::StrCat("level \"", level.name, "\" splits a group of level \"",
                                            below.name, "\" (levels must nest)"));
        }
        p = level.group[e];
      }
    }
    out->push_back(std::move(level));
  }
  if (out->front().num_groups != static_cast<int32_t>(elements) || out->back().num_groups != 1) {
    return doc.Error(
        *arr, absl::StrCat("\"", key,
                           "\" must go from every element alone to one "
                           "group (",
                           out->front().num_groups, " .. ", out->back().num_groups, " groups)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<PlogpHwlocCheck> ParseHwlocCheck(const Doc& doc, const JsonValue& c,
                                                const PlogpProbe& p) {
  if (c.type != Type::kObject) return doc.Error(c, "\"hwloc_check\" must be an object");
  PlogpHwlocCheck check;
  ASSIGN_OR_RETURN(const JsonValue* verdict, doc.Member(c, "verdict", Type::kString));
  if (std::find(std::begin(kPlogpHwlocVerdicts), std::end(kPlogpHwlocVerdicts), verdict->string) ==
      std::end(kPlogpHwlocVerdicts)) {
    return doc.Error(*verdict, absl::StrCat("unknown verdict ", Quoted(verdict->string)));
  }
  check.verdict = verdict->string;
  ASSIGN_OR_RETURN(const JsonValue* detail, doc.Member(c, "detail", Type::kString));
  if (detail->string.size() > kMaxPlogpDetailBytes || !IsPrintableUtf8(detail->string)) {
    return doc.Error(*detail, absl::StrCat("\"detail\" must be printable UTF-8 of at most ",
                                           kMaxPlogpDetailBytes, " bytes"));
  }
  check.detail = detail->string;
  ASSIGN_OR_RETURN(const JsonValue* list, doc.Member(c, "comparisons", Type::kArray));
  for (const JsonValue& x : list->items) {
    if (x.type != Type::kObject) return doc.Error(x, "a comparison must be an object");
    PlogpHwlocComparison cmp;
    ASSIGN_OR_RETURN(const JsonValue* hwloc, doc.Member(x, "hwloc", Type::kString));
    if (hwloc->string != "package" && hwloc->string != "l3") {
      return doc.Error(*hwloc, "\"hwloc\" must be \"package\" or \"l3\"");
    }
    cmp.hwloc = hwloc->string;
    ASSIGN_OR_RETURN(int64_t groups,
                     doc.IntMember(x, "groups", 1, static_cast<int64_t>(p.ranks.size())));
    cmp.groups = static_cast<int32_t>(groups);
    const JsonValue* measured = x.Find("measured");
    if (measured == nullptr) return doc.Error(x, "missing member \"measured\"");
    if (measured->type == Type::kString) {
      const bool known =
          std::any_of(p.rank_levels.begin(), p.rank_levels.end(),
                      [&](const PlogpLevel& l) { return l.name == measured->string; });
      if (!known) return doc.Error(*measured, "\"measured\" is not the name of a rank level");
      cmp.measured = measured->string;
    } else if (measured->type != Type::kNull) {
      return doc.Error(*measured, "\"measured\" must be a rank level's name or null");
    }
    const JsonValue* ari = x.Find("ari");
    if (ari == nullptr) return doc.Error(x, "missing member \"ari\"");
    if (ari->type == Type::kNull) {
      cmp.ari = std::nan("");
    } else if (ari->type == Type::kNumber && ari->number >= -1 && ari->number <= 1) {
      cmp.ari = ari->number;
    } else {
      return doc.Error(*ari, "\"ari\" must be a number in [-1, 1] or null");
    }
    if (cmp.measured.empty() != std::isnan(cmp.ari)) {
      return doc.Error(x, "\"ari\" is null exactly when \"measured\" is");
    }
    check.comparisons.push_back(std::move(cmp));
  }
  return check;
}

// Synthetic GUIDs carry a fixed top 16 bits ("probe" GUIDs cannot meet real ones: 0x7072 is
// not an IEEE OUI prefix any vendor ships in a GUID's top bytes here).
uint64_t SyntheticGuid(const std::string& key) {
  return (0x7072ull << 48) | (Fnv64a(key) & 0x0000FFFFFFFFFFFFull) | 1;
}

template <typename T>
std::string Json(const T& v) {
  std::ostringstream s;
  JsonWriter w(&s);
  if constexpr (std::is_same_v<T, std::string>) {
    w.String(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    // 9 significant digits: ns to well below the timer's resolution, and files people read.
    if (!std::isfinite(v)) return "null";
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.9g", v);
    return buf;
  } else {
    w.Int(static_cast<int64_t>(v));
  }
  return s.str();
}

template <typename T>
std::string JsonList(const std::vector<T>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) absl::StrAppend(&out, i ? "," : "", Json(v[i]));
  return out + "]";
}

void WriteLevels(const std::vector<PlogpLevel>& levels, bool host_levels, std::ostream* out) {
  for (size_t k = 0; k < levels.size(); ++k) {
    const PlogpLevel& l = levels[k];
    *out << "    {\"name\": " << Json(l.name) << ", \"cut_ns\": " << Json(l.cut_ns)
         << ", \"separation\": " << Json(l.separation);
    if (host_levels) {
      *out << ", \"latency_ns\": " << Json(l.latency_ns) << ", \"gbps\": " << Json(l.gbps);
    }
    *out << ",\n     \"groups\": " << JsonList(l.group) << "}"
         << (k + 1 < levels.size() ? ",\n" : "\n");
  }
}

}  // namespace

int PlogpProbe::HostOf(int rank) const {
  auto it = std::lower_bound(hosts.begin(), hosts.end(), ranks[rank].host);
  return it != hosts.end() && *it == ranks[rank].host ? static_cast<int>(it - hosts.begin()) : -1;
}

absl::StatusOr<PlogpProbe> ParsePlogpProbe(std::string_view text, std::string_view file_name) {
  ASSIGN_OR_RETURN(JsonValue root, ParseJson(text, file_name));
  Doc doc(file_name);
  if (root.type != Type::kObject) return doc.Error(root, "probe.json must be an object");
  ASSIGN_OR_RETURN(const JsonValue* format, doc.Member(root, "format", Type::kString));
  if (format->string != kFormatName) {
    return doc.Error(*format, absl::StrCat("format is not \"", kFormatName, "\""));
  }
  ASSIGN_OR_RETURN(int64_t version, doc.IntMember(root, "version", 0, 1 << 20));
  if (version != kVersion) {
    return doc.Error(*root.Find("version"),
                     absl::StrCat("version ", version, " (this toporr reads ", kVersion, ")"));
  }
  PlogpProbe p;
  ASSIGN_OR_RETURN(const JsonValue* sizes, doc.Member(root, "sizes", Type::kArray));
  if (sizes->items.empty() || sizes->items.size() > kMaxPlogpSizes) {
    return doc.Error(*sizes, absl::StrCat("\"sizes\" must hold 1 to ", kMaxPlogpSizes, " sizes"));
  }
  for (const JsonValue& s : sizes->items) {
    ASSIGN_OR_RETURN(int64_t bytes, doc.Int(s, "a size", 0, int64_t{1} << 40));
    if (!p.sizes.empty() && bytes <= p.sizes.back()) {
      return doc.Error(s, "\"sizes\" must be ascending without repeats");
    }
    p.sizes.push_back(bytes);
  }
  ASSIGN_OR_RETURN(int64_t reps, doc.IntMember(root, "repetitions", 1, 1 << 20));
  p.repetitions = static_cast<int>(reps);

  ASSIGN_OR_RETURN(const JsonValue* ranks, doc.Member(root, "ranks", Type::kArray));
  if (ranks->items.empty() || ranks->items.size() > kMaxPlogpRanks) {
    return doc.Error(*ranks, absl::StrCat("\"ranks\" must hold 1 to ", kMaxPlogpRanks, " ranks"));
  }
  std::set<std::string> host_set;
  for (const JsonValue& r : ranks->items) {
    if (r.type != Type::kObject) return doc.Error(r, "a rank must be an object");
    PlogpRank rank;
    ASSIGN_OR_RETURN(const JsonValue* host, doc.Member(r, "host", Type::kString));
    if (!IsHostName(host->string)) {
      return doc.Error(*host, absl::StrCat(Quoted(host->string),
                                           " is not a short host name ([A-Za-z0-9_-], no '.')"));
    }
    rank.host = host->string;
    ASSIGN_OR_RETURN(int64_t core, doc.IntMember(r, "core", -1, 1 << 30));
    rank.core = static_cast<int>(core);
    if (const JsonValue* hw = r.Find("hwloc"); hw != nullptr) {
      if (hw->type != Type::kObject) return doc.Error(*hw, "\"hwloc\" must be an object");
      int64_t ids[4];
      for (int k = 0; k < 4; ++k) {
        ASSIGN_OR_RETURN(ids[k], doc.IntMember(*hw, kHwlocFields[k], -1, 1 << 30));
      }
      rank.hwloc = PlogpHwloc{static_cast<int32_t>(ids[0]), static_cast<int32_t>(ids[1]),
                              static_cast<int32_t>(ids[2]), static_cast<int32_t>(ids[3])};
    }
    host_set.insert(rank.host);
    p.ranks.push_back(std::move(rank));
  }
  ASSIGN_OR_RETURN(const JsonValue* hosts, doc.Member(root, "hosts", Type::kArray));
  for (const JsonValue& h : hosts->items) {
    if (h.type != Type::kString) return doc.Error(h, "a host must be a string");
    if (!p.hosts.empty() && h.string <= p.hosts.back()) {
      return doc.Error(h, "\"hosts\" must be sorted without repeats");
    }
    p.hosts.push_back(h.string);
  }
  if (std::vector<std::string>(host_set.begin(), host_set.end()) != p.hosts) {
    return doc.Error(*hosts, "\"hosts\" is not the set of the ranks' hosts");
  }

  const int64_t n = static_cast<int64_t>(p.ranks.size());
  ASSIGN_OR_RETURN(const JsonValue* pairs, doc.Member(root, "pairs", Type::kArray));
  std::unordered_set<int64_t> seen;
  for (const JsonValue& q : pairs->items) {
    if (q.type != Type::kObject) return doc.Error(q, "a pair must be an object");
    PlogpPair pair;
    ASSIGN_OR_RETURN(int64_t a, doc.IntMember(q, "a", 0, n - 1));
    ASSIGN_OR_RETURN(int64_t b, doc.IntMember(q, "b", 0, n - 1));
    if (a >= b) return doc.Error(q, absl::StrCat("pair ", a, " ", b, ": a must be < b"));
    if (!seen.insert(a * n + b).second) {
      return doc.Error(q, absl::StrCat("pair ", a, " ", b, " listed twice"));
    }
    pair.a = static_cast<int>(a);
    pair.b = static_cast<int>(b);
    const size_t k = p.sizes.size();
    ASSIGN_OR_RETURN(pair.rtt_ns, doc.Series(q, "rtt_ns", k));
    ASSIGN_OR_RETURN(pair.gap_ns, doc.Series(q, "gap_ns", k));
    ASSIGN_OR_RETURN(pair.os_ns, doc.Series(q, "os_ns", k));
    ASSIGN_OR_RETURN(pair.or_ns, doc.Series(q, "or_ns", k));
    ASSIGN_OR_RETURN(pair.latency_ns, doc.NonNegativeMember(q, "latency_ns"));
    ASSIGN_OR_RETURN(pair.spread, doc.NonNegativeMember(q, "spread"));
    ASSIGN_OR_RETURN(int64_t again, doc.IntMember(q, "remeasured", 0, 1 << 20));
    pair.remeasured = static_cast<int>(again);
    p.pairs.push_back(std::move(pair));
  }

  RETURN_IF_ERROR(ParseLevels(doc, root, "rank_levels", p.ranks.size(), false, &p.rank_levels));
  RETURN_IF_ERROR(ParseLevels(doc, root, "host_levels", p.hosts.size(), true, &p.host_levels));
  const JsonValue* rank_levels = root.Find("rank_levels");
  for (size_t k = 0; k < p.rank_levels.size(); ++k) {
    const PlogpLevel& l = p.rank_levels[k];
    if (l.name != "host") continue;
    // The host level must be exactly "same host name".
    std::map<int32_t, std::string> host_of_group;
    std::map<std::string, int32_t> group_of_host;
    for (int64_t r = 0; r < n; ++r) {
      const std::string& h = p.ranks[r].host;
      auto [g, g_new] = host_of_group.emplace(l.group[r], h);
      auto [hh, h_new] = group_of_host.emplace(h, l.group[r]);
      if (g->second != h || hh->second != l.group[r]) {
        return doc.Error(rank_levels->items[k],
                         absl::StrCat("rank level \"host\" is not the host-name partition (rank ",
                                      r, " on ", h, ")"));
      }
    }
  }
  if (p.host_levels.front().name != "host") {
    return doc.Error(*root.Find("host_levels"), "host_levels[0] must be named \"host\"");
  }
  if (const JsonValue* s = root.Find("schedule"); s != nullptr) {
    if (s->type != Type::kObject) return doc.Error(*s, "\"schedule\" must be an object");
    ASSIGN_OR_RETURN(p.schedule.rounds, doc.IntMember(*s, "rounds", 0, int64_t{1} << 40));
    ASSIGN_OR_RETURN(p.schedule.messages, doc.IntMember(*s, "messages", 0, int64_t{1} << 60));
    ASSIGN_OR_RETURN(p.schedule.elapsed_s, doc.NonNegativeMember(*s, "elapsed_s"));
  }
  if (const JsonValue* c = root.Find("hwloc_check"); c != nullptr) {
    ASSIGN_OR_RETURN(p.hwloc_check, ParseHwlocCheck(doc, *c, p));
  }
  return p;
}

void WritePlogpProbe(const PlogpProbe& p, std::ostream* out) {
  *out << "{\n  \"format\": \"" << kFormatName << "\",\n  \"version\": " << kVersion
       << ",\n  \"sizes\": " << JsonList(p.sizes) << ",\n  \"repetitions\": " << p.repetitions
       << ",\n  \"schedule\": {\"rounds\": " << p.schedule.rounds
       << ", \"messages\": " << p.schedule.messages
       << ", \"elapsed_s\": " << Json(p.schedule.elapsed_s) << "},\n  \"hosts\": [\n";
  for (size_t h = 0; h < p.hosts.size(); ++h)
    *out << "    " << Json(p.hosts[h]) << (h + 1 < p.hosts.size() ? ",\n" : "\n");
  *out << "  ],\n  \"ranks\": [\n";
  for (size_t r = 0; r < p.ranks.size(); ++r) {
    *out << "    {\"host\": " << Json(p.ranks[r].host) << ", \"core\": " << p.ranks[r].core;
    if (const auto& hw = p.ranks[r].hwloc) {
      const int32_t ids[4] = {hw->package, hw->numa, hw->l3, hw->core};
      *out << ", \"hwloc\": {";
      for (int k = 0; k < 4; ++k)
        *out << (k ? ", \"" : "\"") << kHwlocFields[k] << "\": " << ids[k];
      *out << "}";
    }
    *out << "}" << (r + 1 < p.ranks.size() ? ",\n" : "\n");
  }
  *out << "  ],\n  \"pairs\": [\n";
  for (size_t i = 0; i < p.pairs.size(); ++i) {
    const PlogpPair& q = p.pairs[i];
    *out << "    {\"a\": " << q.a << ", \"b\": " << q.b
         << ", \"latency_ns\": " << Json(q.latency_ns) << ", \"spread\": " << Json(q.spread)
         << ", \"remeasured\": " << q.remeasured << ", \"rtt_ns\": " << JsonList(q.rtt_ns)
         << ", \"gap_ns\": " << JsonList(q.gap_ns) << ", \"os_ns\": " << JsonList(q.os_ns)
         << ", \"or_ns\": " << JsonList(q.or_ns) << "}" << (i + 1 < p.pairs.size() ? ",\n" : "\n");
  }
  *out << "  ],\n  \"rank_levels\": [\n";
  WriteLevels(p.rank_levels, false, out);
  *out << "  ],\n  \"host_levels\": [\n";
  WriteLevels(p.host_levels, true, out);
  *out << "  ]";
  if (const auto& c = p.hwloc_check) {
    *out << ",\n  \"hwloc_check\": {\"verdict\": " << Json(c->verdict)
         << ", \"detail\": " << Json(c->detail) << ",\n    \"comparisons\": [";
    for (size_t k = 0; k < c->comparisons.size(); ++k) {
      const PlogpHwlocComparison& x = c->comparisons[k];
      *out << (k ? ",\n" : "\n") << "      {\"hwloc\": " << Json(x.hwloc)
           << ", \"groups\": " << x.groups
           << ", \"measured\": " << (x.measured.empty() ? "null" : Json(x.measured))
           << ", \"ari\": " << Json(x.ari) << "}";
    }
    *out << (c->comparisons.empty() ? "]}" : "\n    ]}");
  }
  *out << "\n}\n";
}

void NearestLinkRate(double gbps, int* width_lanes, LinkSpeed* speed) {
  double best = std::numeric_limits<double>::infinity();
  *width_lanes = 4;
  *speed = LinkSpeed::kHDR;
  for (int w : {1, 2, 4, 8, 12}) {
    for (int s = static_cast<int>(LinkSpeed::kSDR); s <= static_cast<int>(LinkSpeed::kXDR); ++s) {
      const double rate = fabric::LinkDataRateGbps(w, static_cast<LinkSpeed>(s));
      const double off = std::fabs(std::log(rate / gbps));
      // Ties (1x NDR = 4x EDR) go to 4 lanes, the common cable.
      if (off < best - 1e-9 || (off < best + 1e-9 && w == 4)) {
        best = off;
        *width_lanes = w;
        *speed = static_cast<LinkSpeed>(s);
      }
    }
  }
}

absl::StatusOr<Fabric> PlogpFabric(const PlogpProbe& p) {
  Fabric f;
  const int num_hosts = static_cast<int>(p.hosts.size());
  std::vector<PlogpLevel> levels = p.host_levels;
  if (levels.size() == 1) levels.push_back(levels[0]);  // one host: one switch above it
  // Children per switch: level j's groups under level j+1's.
  std::vector<std::vector<int>> switch_node(levels.size());
  std::vector<std::vector<int>> ports_used(levels.size());
  for (size_t j = 1; j < levels.size(); ++j) {
    std::vector<std::vector<std::string>> members(levels[j].num_groups);
    for (int h = 0; h < num_hosts; ++h) members[levels[j].group[h]].push_back(p.hosts[h]);
    std::vector<int> children(levels[j].num_groups, 0);
    std::vector<bool> seen(levels[j - 1].num_groups, false);
    for (int h = 0; h < num_hosts; ++h) {
      const int32_t below = levels[j - 1].group[h];
      if (!seen[below]) {
        seen[below] = true;
        ++children[levels[j].group[h]];
      }
    }
    for (int32_t g = 0; g < levels[j].num_groups; ++g) {
      Node sw;
      sw.type = NodeType::kSwitch;
      // Named by its level and first host: a host moving between two groups changes no
      // switch unless it was the first of one (the diff then says which hosts moved).
      sw.guid = SyntheticGuid(absl::StrCat("switch:", j, ":", members[g].front()));
      sw.num_ports = children[g] + (j + 1 < levels.size() ? 1 : 0);
      sw.description = absl::StrCat("probe ", levels[j].name, " ", g, " (", members[g].front(),
                                    members[g].size() > 1 ? " .." : "", ")");
      int index;
      RETURN_IF_ERROR(f.AddNode(std::move(sw), &index));
      switch_node[j].push_back(index);
      ports_used[j].push_back(0);
    }
  }
  auto rate = [&](size_t j, int* w, LinkSpeed* s) {
    const double gbps = levels[j].gbps;
    if (gbps > 0) {
      NearestLinkRate(gbps, w, s);
    } else {
      *w = 0;
      *s = LinkSpeed::kUnknown;
    }
  };
  for (int h = 0; h < num_hosts; ++h) {
    Node ca;
    ca.type = NodeType::kCa;
    ca.guid = SyntheticGuid(absl::StrCat("ca:", p.hosts[h]));
    ca.num_ports = 1;
    ca.description = absl::StrCat(p.hosts[h], " HCA-1");
    int index;
    RETURN_IF_ERROR(f.AddNode(std::move(ca), &index));
    const int32_t g = levels[1].group[h];
    int w;
    LinkSpeed s;
    rate(1, &w, &s);
    RETURN_IF_ERROR(f.Connect({index, 1}, {switch_node[1][g], ++ports_used[1][g]}, w, s));
  }
  for (size_t j = 1; j + 1 < levels.size(); ++j) {
    std::vector<bool> linked(levels[j].num_groups, false);
    for (int h = 0; h < num_hosts; ++h) {
      const int32_t g = levels[j].group[h], up = levels[j + 1].group[h];
      if (linked[g]) continue;
      linked[g] = true;
      const int child = switch_node[j][g];
      int w;
      LinkSpeed s;
      rate(j + 1, &w, &s);
      RETURN_IF_ERROR(f.Connect({child, f.nodes[child].num_ports},
                                {switch_node[j + 1][up], ++ports_used[j + 1][up]}, w, s));
    }
  }
  return f;
}

}  // namespace toporr::collectors
