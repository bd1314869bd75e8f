// File: lib/net/ip.h
//
// IP addresses and CIDR blocks, IPv4 and IPv6, as values: parsing with messages a user can act
// on, canonical printing, containment and overlap. Used for cluster/machine/service networks,
// VIPs and host interface addresses.
//
//   ASSIGN_OR_RETURN(Cidr machine, Cidr::Parse("192.168.111.0/24"));
//   ASSIGN_OR_RETURN(IpAddress vip, IpAddress::Parse("192.168.111.5"));
//   if (!machine.Contains(vip)) …

#ifndef ASSISTED_LIB_NET_IP_H_
#define ASSISTED_LIB_NET_IP_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/numeric/int128.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::net {

enum class Family { kIpv4, kIpv6 };

// "IPv4" or "IPv6".
absl::string_view FamilyName(Family family);

class IpAddress {
 public:
  // Parses dotted-quad IPv4 ("10.0.0.1") or any RFC 4291 IPv6 text ("fd00::1",
  // "::ffff:10.0.0.1"). No zone ids, no surrounding brackets or spaces.
  // INVALID_ARGUMENT quoting the text otherwise.
  static absl::StatusOr<IpAddress> Parse(absl::string_view text);

  Family family() const { return family_; }
  // Network byte order; IPv4 uses the first 4 bytes, the rest are zero.
  const std::array<uint8_t, 16>& bytes() const { return bytes_; }

  // Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run as "::").
  std::string ToString() const;

  friend bool operator==(const IpAddress& a, const IpAddress& b) {
    return a.family_ == b.family_ && a.bytes_ == b.bytes_;
  }
  friend bool operator!=(const IpAddress& a, const IpAddress& b) { return !(a == b); }
  // Orders IPv4 before IPv6, then by bytes.
  friend bool operator<(const IpAddress& a, const IpAddress& b);

 private:
  IpAddress(Family family, const std::array<uint8_t, 16>& bytes) : family_(family), bytes_(bytes) {}
  friend class Cidr;
  Family family_;
  std::array<uint8_t, 16> bytes_;
};

class Cidr {
 public:
  // Parses "address/prefix" in canonical form: no host bits set. For "192.168.1.10/24" the
  // error says so and names the canonical block ("did you mean 192.168.1.0/24?").
  static absl::StatusOr<Cidr> Parse(absl::string_view text);

  // Parses "address/prefix" allowing host bits (an interface address such as
  // "192.168.1.10/24") and returns the block it lies in (192.168.1.0/24).
  static absl::StatusOr<Cidr> ParseInterface(absl::string_view text);

  // The block of `prefix_length` bits containing `address`; INVALID_ARGUMENT when the length
  // exceeds the family's (32 or 128).
  static absl::StatusOr<Cidr> Containing(const IpAddress& address, int prefix_length);

  Family family() const { return network_.family(); }
  const IpAddress& network() const { return network_; }
  int prefix_length() const { return prefix_length_; }

  bool Contains(const IpAddress& address) const;
  // Whether the two blocks share at least one address (false across families).
  bool Overlaps(const Cidr& other) const;
  // Number of addresses in the block (2^(bits - prefix)); saturates at the uint128 maximum
  // for an IPv6 /0.
  absl::uint128 Size() const;

  // Canonical text, e.g. "10.128.0.0/14", "fd00::/64".
  std::string ToString() const;

  friend bool operator==(const Cidr& a, const Cidr& b) {
    return a.network_ == b.network_ && a.prefix_length_ == b.prefix_length_;
  }
  friend bool operator!=(const Cidr& a, const Cidr& b) { return !(a == b); }

 private:
  Cidr(IpAddress network, int prefix_length) : network_(network), prefix_length_(prefix_length) {}
  IpAddress network_;
  int prefix_length_;
};

}  // namespace assisted::net

#endif  // ASSISTED_LIB_NET_IP_H_
