#include "lib/net/ip.h"

#include <arpa/inet.h>

#include <algorithm>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace assisted::net {
namespace {

using Bytes = std::array<uint8_t, 16>;

int Bits(Family family) { return family == Family::kIpv4 ? 32 : 128; }

// Quotes user text for an error message: escaped (so random bytes print safely) and cut short
// (so a megabyte of garbage does not become a megabyte of message).
std::string Quote(absl::string_view text) {
  constexpr size_t kMaxShown = 64;
  const bool cut = text.size() > kMaxShown;
  return absl::StrCat("\"", absl::CHexEscape(text.substr(0, kMaxShown)), cut ? "...\"" : "\"");
}

// Dotted quad, exactly four decimal octets 0..255. A leading zero ("010") is refused: some
// parsers read it as octal, so accepting it would let one text mean two addresses.
bool ParseIpv4(absl::string_view text, Bytes* bytes) {
  bytes->fill(0);
  int octet = 0;
  size_t pos = 0;
  for (; octet < 4; ++octet) {
    if (octet > 0) {
      if (pos >= text.size() || text[pos] != '.') return false;
      ++pos;
    }
    const size_t start = pos;
    int value = 0;
    while (pos < text.size() && absl::ascii_isdigit(text[pos]) && pos - start < 3) {
      value = value * 10 + (text[pos] - '0');
      ++pos;
    }
    const size_t digits = pos - start;
    if (digits == 0 || value > 255 || (digits > 1 && text[start] == '0')) return false;
    (*bytes)[octet] = static_cast<uint8_t>(value);
  }
  return pos == text.size();
}

// RFC 4291 text through inet_pton, which also refuses leading zeros in an embedded IPv4 part.
bool ParseIpv6(absl::string_view text, Bytes* bytes) {
  // inet_pton reads a C string: an embedded NUL would silently cut the text short.
  if (text.empty() || text.size() > 45 || absl::StrContains(text, '\0')) return false;
  const std::string copy(text);
  return inet_pton(AF_INET6, copy.c_str(), bytes->data()) == 1;
}

std::string Ipv4Text(const Bytes& bytes, size_t offset) {
  return absl::StrCat(int{bytes[offset]}, ".", int{bytes[offset + 1]}, ".", int{bytes[offset + 2]},
                      ".", int{bytes[offset + 3]});
}

// RFC 5952: lower-case hex without leading zeros, the longest run of two or more zero groups
// (the first one on a tie) written "::". IPv4-mapped addresses (::ffff:0:0/96) keep their
// dotted tail, as RFC 5952 section 5 recommends; no other address uses the mixed notation.
std::string Ipv6Text(const Bytes& bytes) {
  static constexpr uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::equal(std::begin(kMappedPrefix), std::end(kMappedPrefix), bytes.begin())) {
    return absl::StrCat("::ffff:", Ipv4Text(bytes, 12));
  }
  uint16_t groups[8];
  for (int i = 0; i < 8; ++i) {
    groups[i] = static_cast<uint16_t>(bytes[2 * i] << 8 | bytes[2 * i + 1]);
  }
  int best_start = -1;
  int best_length = 1;  // a single zero group is never compressed
  for (int i = 0; i < 8;) {
    if (groups[i] != 0) {
      ++i;
      continue;
    }
    int end = i;
    while (end < 8 && groups[end] == 0) ++end;
    if (end - i > best_length) {
      best_start = i;
      best_length = end - i;
    }
    i = end;
  }
  std::string text;
  for (int i = 0; i < 8; ++i) {
    if (i == best_start) {
      absl::StrAppend(&text, "::");
      i += best_length - 1;
      continue;
    }
    if (!text.empty() && text.back() != ':') text.push_back(':');
    absl::StrAppend(&text, absl::Hex(groups[i]));
  }
  return text;
}

// `bytes` with every bit after the first `prefix_length` cleared.
Bytes Masked(const Bytes& bytes, int prefix_length) {
  Bytes masked = bytes;
  for (int i = 0; i < 16; ++i) {
    const int keep = std::clamp(prefix_length - 8 * i, 0, 8);
    masked[i] &= static_cast<uint8_t>(0xff00u >> keep);
  }
  return masked;
}

// What is wrong with text that is not an address, as far as one can tell from its shape.
std::string AddressProblem(absl::string_view text) {
  if (text.empty()) return "an empty string is not an IP address";
  std::string hint;
  if (text != absl::StripAsciiWhitespace(text)) {
    hint = " (remove the surrounding spaces)";
  } else if (absl::StartsWith(text, "[")) {
    hint = " (write it without brackets)";
  } else if (absl::StrContains(text, '%')) {
    hint = " (zone ids such as %eth0 are not accepted)";
  } else if (!absl::StrContains(text, ':')) {
    hint = " (four numbers 0 to 255 without leading zeros, e.g. 192.168.1.10)";
  }
  return absl::StrCat(Quote(text), " is not an ", absl::StrContains(text, ':') ? "IPv6" : "IPv4",
                      " address", hint);
}

// "address/prefix" as written: the address keeps its host bits.
struct Block {
  IpAddress address;
  int prefix_length;
};

absl::StatusOr<Block> ParseBlock(absl::string_view text) {
  const size_t slash = text.find('/');
  if (slash == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quote(text), " is not a CIDR block (address/prefix, e.g. 10.128.0.0/14)"));
  }
  absl::StatusOr<IpAddress> address = IpAddress::Parse(text.substr(0, slash));
  if (!address.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quote(text), " is not a CIDR block: ", address.status().message()));
  }
  const absl::string_view digits = text.substr(slash + 1);
  const int bits = Bits(address->family());
  bool valid = !digits.empty() && digits.size() <= 3 && (digits.size() == 1 || digits[0] != '0');
  int prefix_length = 0;
  for (char c : digits) {
    valid = valid && absl::ascii_isdigit(c);
    if (valid) prefix_length = prefix_length * 10 + (c - '0');
  }
  if (!valid || prefix_length > bits) {
    return absl::InvalidArgumentError(absl::StrCat(Quote(text),
                                                   " has no valid prefix length (0 to ", bits,
                                                   " for ", FamilyName(address->family()), ")"));
  }
  return Block{*address, prefix_length};
}

}  // namespace

absl::string_view FamilyName(Family family) { return family == Family::kIpv4 ? "IPv4" : "IPv6"; }

absl::StatusOr<IpAddress> IpAddress::Parse(absl::string_view text) {
  Bytes bytes;
  if (ParseIpv4(text, &bytes)) return IpAddress(Family::kIpv4, bytes);
  if (absl::StrContains(text, ':') && ParseIpv6(text, &bytes)) {
    return IpAddress(Family::kIpv6, bytes);
  }
  return absl::InvalidArgumentError(AddressProblem(text));
}

std::string IpAddress::ToString() const {
  return family_ == Family::kIpv4 ? Ipv4Text(bytes_, 0) : Ipv6Text(bytes_);
}

bool operator<(const IpAddress& a, const IpAddress& b) {
  return std::tie(a.family_, a.bytes_) < std::tie(b.family_, b.bytes_);
}

absl::StatusOr<Cidr> Cidr::Parse(absl::string_view text) {
  absl::StatusOr<Block> block = ParseBlock(text);
  if (!block.ok()) return block.status();
  const Cidr cidr(
      IpAddress(block->address.family(), Masked(block->address.bytes(), block->prefix_length)),
      block->prefix_length);
  if (cidr.network() != block->address) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quote(text), " has host bits set (did you mean ", cidr.ToString(), "?)"));
  }
  return cidr;
}

absl::StatusOr<Cidr> Cidr::ParseInterface(absl::string_view text) {
  absl::StatusOr<Block> block = ParseBlock(text);
  if (!block.ok()) return block.status();
  return Containing(block->address, block->prefix_length);
}

absl::StatusOr<Cidr> Cidr::Containing(const IpAddress& address, int prefix_length) {
  const int bits = Bits(address.family());
  if (prefix_length < 0 || prefix_length > bits) {
    return absl::InvalidArgumentError(absl::StrCat("prefix length ", prefix_length, " is not 0 to ",
                                                   bits, " (", FamilyName(address.family()), ")"));
  }
  return Cidr(IpAddress(address.family(), Masked(address.bytes(), prefix_length)), prefix_length);
}

bool Cidr::Contains(const IpAddress& address) const {
  return address.family() == family() &&
         Masked(address.bytes(), prefix_length_) == network_.bytes();
}

bool Cidr::Overlaps(const Cidr& other) const {
  if (other.family() != family()) return false;
  // Two blocks overlap exactly when the shorter one contains the longer one.
  const int shorter = std::min(prefix_length_, other.prefix_length_);
  return Masked(network_.bytes(), shorter) == Masked(other.network_.bytes(), shorter);
}

absl::uint128 Cidr::Size() const {
  const int host_bits = Bits(family()) - prefix_length_;
  if (host_bits >= 128) return absl::Uint128Max();
  return absl::uint128(1) << host_bits;
}

std::string Cidr::ToString() const {
  return absl::StrCat(network_.ToString(), "/", prefix_length_);
}

}  // namespace assisted::net
