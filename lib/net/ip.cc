// TEMPORARY minimal implementation of lib/net/ip.h (see BUILD.bazel); replaced at merge by the
// real one from the net-validation branch.

#include "lib/net/ip.h"

#include <arpa/inet.h>

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace assisted::net {

absl::string_view FamilyName(Family family) { return family == Family::kIpv4 ? "IPv4" : "IPv6"; }

absl::StatusOr<IpAddress> IpAddress::Parse(absl::string_view text) {
  std::string s(text);
  std::array<uint8_t, 16> bytes{};
  if (inet_pton(AF_INET, s.c_str(), bytes.data()) == 1) return IpAddress(Family::kIpv4, bytes);
  if (inet_pton(AF_INET6, s.c_str(), bytes.data()) == 1) return IpAddress(Family::kIpv6, bytes);
  return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" is not an IP address"));
}

std::string IpAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(family_ == Family::kIpv4 ? AF_INET : AF_INET6, bytes_.data(), buf, sizeof(buf));
  return buf;
}

bool operator<(const IpAddress& a, const IpAddress& b) {
  if (a.family_ != b.family_) return a.family_ == Family::kIpv4;
  return a.bytes_ < b.bytes_;
}

namespace {

int Bits(Family family) { return family == Family::kIpv4 ? 32 : 128; }

std::array<uint8_t, 16> Mask(const std::array<uint8_t, 16>& bytes, int prefix) {
  std::array<uint8_t, 16> out{};
  for (int i = 0; i < 16; ++i) {
    int keep = prefix - 8 * i;
    if (keep >= 8) {
      out[i] = bytes[i];
    } else if (keep > 0) {
      out[i] = bytes[i] & static_cast<uint8_t>(0xff << (8 - keep));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Cidr> Cidr::ParseInterface(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, absl::MaxSplits('/', 1));
  if (parts.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" is not a CIDR"));
  }
  absl::StatusOr<IpAddress> address = IpAddress::Parse(parts[0]);
  if (!address.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" is not a CIDR"));
  }
  int prefix = 0;
  if (!absl::SimpleAtoi(parts[1], &prefix)) {
    return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" has a bad prefix length"));
  }
  return Containing(*address, prefix);
}

absl::StatusOr<Cidr> Cidr::Parse(absl::string_view text) {
  absl::StatusOr<Cidr> cidr = ParseInterface(text);
  if (!cidr.ok()) return cidr;
  std::vector<absl::string_view> parts = absl::StrSplit(text, '/');
  absl::StatusOr<IpAddress> address = IpAddress::Parse(parts[0]);
  if (*address != cidr->network()) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" has host bits set (did you mean ", cidr->ToString(), "?)"));
  }
  return cidr;
}

absl::StatusOr<Cidr> Cidr::Containing(const IpAddress& address, int prefix_length) {
  if (prefix_length < 0 || prefix_length > Bits(address.family())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "prefix length ", prefix_length, " is out of range for ", FamilyName(address.family())));
  }
  return Cidr(IpAddress(address.family(), Mask(address.bytes(), prefix_length)), prefix_length);
}

bool Cidr::Contains(const IpAddress& address) const {
  return address.family() == family() && Mask(address.bytes(), prefix_length_) == network_.bytes();
}

bool Cidr::Overlaps(const Cidr& other) const {
  if (other.family() != family()) return false;
  int shorter = std::min(prefix_length_, other.prefix_length_);
  return Mask(network_.bytes(), shorter) == Mask(other.network_.bytes(), shorter);
}

absl::uint128 Cidr::Size() const {
  int host_bits = Bits(family()) - prefix_length_;
  if (host_bits >= 128) return absl::Uint128Max();
  return absl::uint128(1) << host_bits;
}

std::string Cidr::ToString() const {
  return absl::StrCat(network_.ToString(), "/", prefix_length_);
}

}  // namespace assisted::net
