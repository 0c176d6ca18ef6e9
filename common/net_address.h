// Network addresses as toporr's configuration and gRPC's peer strings write them: loopback
// checks for plaintext TCP and source-prefix lists for the daemon's TCP listener.
#ifndef TOPORR_COMMON_NET_ADDRESS_H_
#define TOPORR_COMMON_NET_ADDRESS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace toporr {

// True when `address` ("HOST:PORT") names this machine's loopback: 127.0.0.0/8, [::1] or
// localhost. Plaintext to it never leaves the machine.
bool IsLoopbackAddress(std::string_view address);

// An IPv4 or IPv6 address, IPv4 held as its IPv4-mapped IPv6 form (::ffff:a.b.c.d), so that
// one prefix list serves both families.
using IpAddress = std::array<uint8_t, 16>;

// "10.1.2.3", "fd00::1", "::ffff:10.1.2.3"; nullopt when not an address.
std::optional<IpAddress> ParseIpAddress(std::string_view text);

// The client address of a gRPC peer string ("ipv4:10.1.2.3:5000", "ipv6:[fd00::1]:5000",
// "ipv6:%5B::1%5D:5000"); nullopt for other transports ("unix:...", "fd:14").
std::optional<IpAddress> PeerIpAddress(std::string_view grpc_peer);

struct IpPrefix {
  IpAddress address{};
  int bits = 0;  // of the 128-bit form: an IPv4 /n is 96 + n
  bool Contains(const IpAddress& a) const;
};

// A comma- or blank-separated list of CIDR prefixes: "10.0.0.0/8, 192.168.7.0/24, fd00::/8".
// A bare address is a host prefix (/32, /128). kInvalidArgument naming the entry for anything
// else (bits beyond the family's, host bits set, not an address); an empty list is an empty
// vector.
absl::StatusOr<std::vector<IpPrefix>> ParseIpPrefixList(std::string_view text);

}  // namespace toporr

#endif  // TOPORR_COMMON_NET_ADDRESS_H_
