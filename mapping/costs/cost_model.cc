#include "mapping/costs/cost_model.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/printable.h"

namespace toporr::mapping {
namespace {

CostModelOptions Kind(double nic, double sw, double link, double per_message) {
  CostModelOptions o;
  o.nic_latency_ns = nic;
  o.switch_latency_ns = sw;
  o.link_latency_ns = link;
  o.per_message_ns = per_message;
  return o;
}

// One overridable constant: its key, its field, and its range.
struct Constant {
  const char* key;
  double CostModelOptions::*field;
  bool scale;  // (0, 1000] instead of [0, 1e8] ns
};

constexpr Constant kConstants[] = {
    {"cost_model_nic_latency_ns", &CostModelOptions::nic_latency_ns, false},
    {"cost_model_switch_latency_ns", &CostModelOptions::switch_latency_ns, false},
    {"cost_model_link_latency_ns", &CostModelOptions::link_latency_ns, false},
    {"cost_model_per_message_ns", &CostModelOptions::per_message_ns, false},
    {"cost_model_host_rate_scale", &CostModelOptions::host_rate_scale, true},
    {"cost_model_switch_rate_scale", &CostModelOptions::switch_rate_scale, true},
};

constexpr double kMaxLatencyNs = 1e8;
constexpr double kMaxScale = 1000;

std::string KindNames() {
  std::string out;
  for (const CostModelKind& k : CostModelKinds())
    absl::StrAppend(&out, out.empty() ? "" : ", ", k.name);
  return out;
}

// Shortest decimal form that reads back as the same double.
std::string Number(double v) {
  for (int digits = 6; digits <= 17; ++digits) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
    double back = 0;
    if (absl::SimpleAtod(buf, &back) && back == v) return buf;
  }
  return absl::StrCat(v);
}

}  // namespace

const std::vector<CostModelKind>& CostModelKinds() {
  static const std::vector<CostModelKind>* kinds = new std::vector<CostModelKind>{
      {"infiniband-hdr", "InfiniBand HDR (NVIDIA Quantum): RDMA, ~130 ns switches",
       CostModelOptions{}},
      {"infiniband-ndr", "InfiniBand NDR (Quantum-2): as HDR", Kind(600, 130, 15, 0)},
      {"infiniband-edr", "InfiniBand EDR (Switch-IB 2): ~90 ns switches", Kind(600, 90, 15, 0)},
      {"omni-path", "Omni-Path 100: ~110 ns switches, a slower host interface",
       Kind(800, 110, 15, 0)},
      {"roce", "RoCE v2 over Ethernet: RDMA NICs, ~400 ns store-and-forward-class switches",
       Kind(1200, 400, 15, 0)},
      {"tcp", "MPI over kernel TCP on Ethernet (the virtual cluster): ~20 us per message",
       Kind(2000, 1000, 15, 20000)},
  };
  return *kinds;
}

std::vector<std::string_view> CostModelKeys() {
  std::vector<std::string_view> keys = {"cost_model"};
  for (const Constant& c : kConstants) keys.push_back(c.key);
  return keys;
}

namespace {

// The kind named `name`, or null.
const CostModelKind* FindKind(std::string_view name) {
  for (const CostModelKind& k : CostModelKinds()) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

}  // namespace

bool IsCostModelKey(std::string_view key) {
  if (key == "cost_model") return true;
  for (const Constant& c : kConstants) {
    if (key == c.key) return true;
  }
  return false;
}

absl::Status ApplyCostModelSetting(std::string_view key, std::string_view value,
                                   CostModelSettings* settings) {
  if (key == "cost_model") {
    if (settings->overridden) {
      return absl::InvalidArgumentError(
          "cost_model must come before the cost_model_* settings it would reset");
    }
    if (const CostModelKind* k = FindKind(value)) {
      settings->model = k->options;
      settings->kind = k->name;
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        absl::StrCat("cost_model: unknown kind ", Quoted(value), " (known: ", KindNames(), ")"));
  }
  for (const Constant& c : kConstants) {
    if (key != c.key) continue;
    double v = 0;
    const std::string text(value);
    if (!absl::SimpleAtod(text, &v) || !std::isfinite(v)) {
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(key), ": ", Quoted(text), " is not a number"));
    }
    if (c.scale ? !(v > 0 && v <= kMaxScale) : !(v >= 0 && v <= kMaxLatencyNs)) {
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(key), ": ", Quoted(text), " is out of range ",
                       c.scale ? absl::StrCat("(0, ", kMaxScale, "]")
                               : absl::StrCat("[0, ", kMaxLatencyNs, "] ns")));
    }
    settings->model.*c.field = v;
    settings->overridden = true;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(Quoted(key), " is not a cost model setting"));
}

std::string CostModelSettingLines(const std::string& kind, const CostModelOptions& model,
                                  bool all) {
  const CostModelKind* found = FindKind(kind);
  const CostModelOptions preset = found ? found->options : CostModelOptions{};
  std::string out = absl::StrCat("cost_model = ", kind, "\n");
  for (const Constant& c : kConstants) {
    if (all || model.*c.field != preset.*c.field) {
      absl::StrAppend(&out, c.key, " = ", Number(model.*c.field), "\n");
    }
  }
  return out;
}

std::string DescribeCostModel(const std::string& kind, const CostModelOptions& model) {
  return absl::StrCat(kind, " (nic ", Number(model.nic_latency_ns), " ns, switch ",
                      Number(model.switch_latency_ns), " ns, cable ", Number(model.link_latency_ns),
                      " ns, per message ", Number(model.per_message_ns), " ns, rate scales host ",
                      Number(model.host_rate_scale), " switch ", Number(model.switch_rate_scale),
                      ")");
}

bool ScalesRates(const CostModelOptions& model) {
  return model.host_rate_scale != 1.0 || model.switch_rate_scale != 1.0;
}

fabric::Fabric ScaledFabric(const fabric::Fabric& fabric, const CostModelOptions& model) {
  fabric::Fabric out = fabric;
  auto is_ca = [&](const fabric::LinkEnd& e) {
    return out.nodes[e.node].type == fabric::NodeType::kCa ||
           out.nodes[e.node].type == fabric::NodeType::kAggregation;
  };
  for (fabric::Link& l : out.links) {
    l.data_rate_gbps *= is_ca(l.a) || is_ca(l.b) ? model.host_rate_scale : model.switch_rate_scale;
  }
  return out;
}

}  // namespace toporr::mapping
