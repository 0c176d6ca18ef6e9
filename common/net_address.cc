#include "common/net_address.h"

#include <arpa/inet.h>

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/printable.h"

namespace toporr {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::optional<IpAddress> ParseIpAddress(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  const std::string s(text);
  IpAddress a{};
  in_addr v4;
  if (inet_pton(AF_INET, s.c_str(), &v4) == 1) {
    a[10] = a[11] = 0xff;
    std::memcpy(&a[12], &v4, 4);
    return a;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, s.c_str(), &v6) == 1) {
    std::memcpy(a.data(), &v6, 16);
    return a;
  }
  return std::nullopt;
}

bool IsLoopbackAddress(std::string_view address) {
  const std::string_view host = address.substr(0, address.rfind(':'));
  if (host == "localhost" || host == "[::1]") return true;
  std::optional<IpAddress> a = ParseIpAddress(host);
  return a && host.find(':') == std::string_view::npos && (*a)[12] == 127;
}

std::optional<IpAddress> PeerIpAddress(std::string_view peer) {
  std::string_view rest;
  if (StartsWith(peer, "ipv4:")) {
    rest = peer.substr(5);
    return ParseIpAddress(rest.substr(0, rest.rfind(':')));
  }
  if (!StartsWith(peer, "ipv6:")) return std::nullopt;
  std::string host(peer.substr(5, peer.rfind(':') - 5));
  // gRPC writes the brackets of an IPv6 peer percent-encoded in some versions.
  for (const char* enc : {"%5B", "%5b"}) {
    if (StartsWith(host, enc)) host = "[" + host.substr(3);
  }
  for (const char* enc : {"%5D", "%5d"}) {
    if (EndsWith(host, enc)) host = host.substr(0, host.size() - 3) + "]";
  }
  if (host.size() < 2 || host.front() != '[' || host.back() != ']') return std::nullopt;
  host = host.substr(1, host.size() - 2);
  if (size_t zone = host.find('%'); zone != std::string::npos) host.resize(zone);
  return ParseIpAddress(host);
}

bool IpPrefix::Contains(const IpAddress& a) const {
  const int full = bits / 8, rest = bits % 8;
  if (std::memcmp(a.data(), address.data(), full) != 0) return false;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (a[full] & mask) == (address[full] & mask);
}

absl::StatusOr<std::vector<IpPrefix>> ParseIpPrefixList(std::string_view text) {
  std::vector<IpPrefix> out;
  for (absl::string_view piece : absl::StrSplit(absl::string_view(text.data(), text.size()),
                                                absl::ByAnyChar(", \t"), absl::SkipEmpty())) {
    const std::string_view entry(piece.data(), piece.size());
    auto refuse = [&](std::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("network ", Quoted(entry), ": ", std::string(why)));
    };
    const size_t slash = entry.find('/');
    const std::string_view host = entry.substr(0, slash);
    std::optional<IpAddress> a = ParseIpAddress(host);
    if (!a) return refuse("not an IPv4 or IPv6 address");
    const bool v4 = host.find(':') == std::string_view::npos;
    const int max_bits = v4 ? 32 : 128;
    int bits = max_bits;
    if (slash != std::string_view::npos &&
        (!absl::SimpleAtoi(std::string(entry.substr(slash + 1)), &bits) || bits < 0 ||
         bits > max_bits)) {
      return refuse(absl::StrCat("prefix length must be 0..", max_bits));
    }
    IpPrefix p{*a, v4 ? 96 + bits : bits};
    IpPrefix host_bits_clear = p;
    for (int i = p.bits; i < 128; ++i) host_bits_clear.address[i / 8] &= ~(0x80 >> (i % 8));
    if (host_bits_clear.address != p.address) {
      return refuse("host bits are set (write the network address)");
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace toporr
