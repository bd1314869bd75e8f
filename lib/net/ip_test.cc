#include "lib/net/ip.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::net {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::StartsWith;

IpAddress Ip(absl::string_view text) {
  absl::StatusOr<IpAddress> address = IpAddress::Parse(text);
  EXPECT_THAT(address, IsOk()) << text;
  return address.ok() ? *address : *IpAddress::Parse("0.0.0.0");
}

Cidr Block(absl::string_view text) {
  absl::StatusOr<Cidr> block = Cidr::Parse(text);
  EXPECT_THAT(block, IsOk()) << text;
  return block.ok() ? *block : *Cidr::Parse("0.0.0.0/0");
}

struct ValidAddress {
  std::string text;
  Family family;
  std::string canonical;
};

TEST(IpAddress, ParsesAndPrintsCanonically) {
  const std::vector<ValidAddress> cases = {
      {"10.0.0.1", Family::kIpv4, "10.0.0.1"},
      {"0.0.0.0", Family::kIpv4, "0.0.0.0"},
      {"255.255.255.255", Family::kIpv4, "255.255.255.255"},
      {"192.168.0.100", Family::kIpv4, "192.168.0.100"},
      {"::", Family::kIpv6, "::"},
      {"::1", Family::kIpv6, "::1"},
      {"0:0:0:0:0:0:0:1", Family::kIpv6, "::1"},
      {"FD00::1", Family::kIpv6, "fd00::1"},
      {"fd00:0000:0000:0000:0000:0000:0000:0001", Family::kIpv6, "fd00::1"},
      {"2001:db8:0:0:1:0:0:1", Family::kIpv6, "2001:db8::1:0:0:1"},     // first of equal runs
      {"2001:0:0:1:0:0:0:1", Family::kIpv6, "2001:0:0:1::1"},           // longest run wins
      {"2001:db8:0:1:1:1:1:1", Family::kIpv6, "2001:db8:0:1:1:1:1:1"},  // one zero stays
      {"1:2:3:4:5:6:7::", Family::kIpv6, "1:2:3:4:5:6:7:0"},
      {"::2:3:4:5:6:7:8", Family::kIpv6, "0:2:3:4:5:6:7:8"},
      {"1::", Family::kIpv6, "1::"},
      {"2001:DB8::ABCD:0012", Family::kIpv6, "2001:db8::abcd:12"},
      {"::ffff:10.0.0.1", Family::kIpv6, "::ffff:10.0.0.1"},
      {"::ffff:a00:1", Family::kIpv6, "::ffff:10.0.0.1"},
      {"::1.2.3.4", Family::kIpv6, "::102:304"},  // deprecated IPv4-compatible: plain hex
      {"64:ff9b::192.0.2.33", Family::kIpv6, "64:ff9b::c000:221"},
      {"fe80::1:2:3:4", Family::kIpv6, "fe80::1:2:3:4"},
  };
  for (const ValidAddress& c : cases) {
    absl::StatusOr<IpAddress> address = IpAddress::Parse(c.text);
    ASSERT_THAT(address, IsOk()) << c.text;
    EXPECT_EQ(address->family(), c.family) << c.text;
    EXPECT_EQ(address->ToString(), c.canonical) << c.text;
    EXPECT_EQ(*IpAddress::Parse(address->ToString()), *address) << c.text;
  }
}

TEST(IpAddress, KeepsIpv4InTheFirstFourBytes) {
  const IpAddress address = Ip("192.168.1.2");
  const std::array<uint8_t, 16> expected = {192, 168, 1, 2};
  EXPECT_EQ(address.bytes(), expected);
  EXPECT_EQ(Ip("::1").bytes()[15], 1);
}

struct InvalidAddress {
  std::string text;
  std::string message;  // expected message prefix
};

TEST(IpAddress, RefusesWhatIsNotAnAddress) {
  const std::vector<InvalidAddress> cases = {
      {"", "an empty string is not an IP address"},
      {"010.0.0.1", "\"010.0.0.1\" is not an IPv4 address (four numbers 0 to 255 without leading"},
      {"10.0.0.01", "\"10.0.0.01\" is not an IPv4 address"},
      {"10.0.0.00", "\"10.0.0.00\" is not an IPv4 address"},
      {"256.0.0.1", "\"256.0.0.1\" is not an IPv4 address"},
      {"1.2.3", "\"1.2.3\" is not an IPv4 address"},
      {"1.2.3.4.5", "\"1.2.3.4.5\" is not an IPv4 address"},
      {"1.2.3.", "\"1.2.3.\" is not an IPv4 address"},
      {"1..2.3", "\"1..2.3\" is not an IPv4 address"},
      {"1.2.3.1000", "\"1.2.3.1000\" is not an IPv4 address"},
      {"0x1.2.3.4", "\"0x1.2.3.4\" is not an IPv4 address"},
      {"+1.2.3.4", "\"+1.2.3.4\" is not an IPv4 address"},
      {"example.com", "\"example.com\" is not an IPv4 address"},
      {" 10.0.0.1", "\" 10.0.0.1\" is not an IPv4 address (remove the surrounding spaces)"},
      {"10.0.0.1\n", "\"10.0.0.1\\n\" is not an IPv4 address (remove the surrounding spaces)"},
      {std::string("10.0.0.1\0x", 10), "\"10.0.0.1\\x00x\" is not an IPv4 address"},
      {"1::2::3", "\"1::2::3\" is not an IPv6 address"},
      {"1:2:3:4:5:6:7:8:9", "\"1:2:3:4:5:6:7:8:9\" is not an IPv6 address"},
      {"1:2:3:4:5:6:7", "\"1:2:3:4:5:6:7\" is not an IPv6 address"},
      {"12345::1", "\"12345::1\" is not an IPv6 address"},
      {"fg::1", "\"fg::1\" is not an IPv6 address"},
      {":::", "\":::\" is not an IPv6 address"},
      {"::ffff:010.0.0.1", "\"::ffff:010.0.0.1\" is not an IPv6 address"},
      {"::ffff:1.2.3", "\"::ffff:1.2.3\" is not an IPv6 address"},
      {"fe80::1%eth0", "\"fe80::1%eth0\" is not an IPv6 address (zone ids such as %eth0 are not"},
      {"[::1]", "\"[::1]\" is not an IPv6 address (write it without brackets)"},
      {"::1 ", "\"::1 \" is not an IPv6 address (remove the surrounding spaces)"},
      {std::string(":\0:1", 4), "\":\\x00:1\" is not an IPv6 address"},
      {"fd00::/64", "\"fd00::/64\" is not an IPv6 address"},
  };
  for (const InvalidAddress& c : cases) {
    EXPECT_THAT(IpAddress::Parse(c.text),
                StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(c.message)))
        << c.text;
  }
}

TEST(IpAddress, CutsLongGarbageShortInMessages) {
  const std::string garbage(10000, 'x');
  absl::StatusOr<IpAddress> address = IpAddress::Parse(garbage);
  ASSERT_FALSE(address.ok());
  EXPECT_LT(address.status().message().size(), 200u);
  EXPECT_THAT(std::string(address.status().message()), HasSubstr("...\""));
}

TEST(IpAddress, OrdersIpv4BeforeIpv6ThenByBytes) {
  std::vector<IpAddress> addresses = {Ip("::1"),           Ip("10.0.0.2"),  Ip("::"),
                                      Ip("9.255.255.255"), Ip("10.0.0.10"), Ip("::ffff:0.0.0.0")};
  std::sort(addresses.begin(), addresses.end());
  std::vector<std::string> texts;
  for (const IpAddress& a : addresses) texts.push_back(a.ToString());
  EXPECT_THAT(texts, ::testing::ElementsAre("9.255.255.255", "10.0.0.2", "10.0.0.10", "::", "::1",
                                            "::ffff:0.0.0.0"));
  EXPECT_FALSE(Ip("10.0.0.1") < Ip("10.0.0.1"));
  // The same bytes in two families are different addresses.
  EXPECT_NE(Ip("0.0.0.0"), Ip("::"));
  EXPECT_TRUE(Ip("0.0.0.0") < Ip("::"));
}

TEST(FamilyName, NamesBothFamilies) {
  EXPECT_EQ(FamilyName(Family::kIpv4), "IPv4");
  EXPECT_EQ(FamilyName(Family::kIpv6), "IPv6");
}

struct ValidBlock {
  std::string text;
  std::string canonical;
  int prefix_length;
};

TEST(Cidr, ParsesCanonicalBlocks) {
  const std::vector<ValidBlock> cases = {
      {"10.128.0.0/14", "10.128.0.0/14", 14},      {"0.0.0.0/0", "0.0.0.0/0", 0},
      {"192.168.1.7/32", "192.168.1.7/32", 32},    {"fd00::/64", "fd00::/64", 64},
      {"FD00:0:0:0::/48", "fd00::/48", 48},        {"::/0", "::/0", 0},
      {"2001:db8::1/128", "2001:db8::1/128", 128}, {"fd02::/112", "fd02::/112", 112},
  };
  for (const ValidBlock& c : cases) {
    absl::StatusOr<Cidr> block = Cidr::Parse(c.text);
    ASSERT_THAT(block, IsOk()) << c.text;
    EXPECT_EQ(block->ToString(), c.canonical);
    EXPECT_EQ(block->prefix_length(), c.prefix_length);
    EXPECT_EQ(block->network().family(), block->family());
  }
}

TEST(Cidr, RefusesHostBitsAndSaysWhatWasMeant) {
  const std::vector<InvalidAddress> cases = {
      {"192.168.1.10/24", "\"192.168.1.10/24\" has host bits set (did you mean 192.168.1.0/24?)"},
      {"10.128.0.1/14", "\"10.128.0.1/14\" has host bits set (did you mean 10.128.0.0/14?)"},
      {"10.0.0.1/0", "\"10.0.0.1/0\" has host bits set (did you mean 0.0.0.0/0?)"},
      {"fd00::1/64", "\"fd00::1/64\" has host bits set (did you mean fd00::/64?)"},
      {"fd00:0:0:1::/47", "\"fd00:0:0:1::/47\" has host bits set (did you mean fd00::/47?)"},
  };
  for (const InvalidAddress& c : cases) {
    EXPECT_THAT(Cidr::Parse(c.text), StatusIs(absl::StatusCode::kInvalidArgument, c.message));
  }
}

TEST(Cidr, RefusesMalformedBlocks) {
  const std::vector<InvalidAddress> cases = {
      {"10.0.0.0", "\"10.0.0.0\" is not a CIDR block (address/prefix, e.g. 10.128.0.0/14)"},
      {"", "\"\" is not a CIDR block"},
      {"10.0.0.0/", "\"10.0.0.0/\" has no valid prefix length (0 to 32 for IPv4)"},
      {"10.0.0.0/33", "\"10.0.0.0/33\" has no valid prefix length (0 to 32 for IPv4)"},
      {"10.0.0.0/08", "\"10.0.0.0/08\" has no valid prefix length"},
      {"10.0.0.0/-1", "\"10.0.0.0/-1\" has no valid prefix length"},
      {"10.0.0.0/8/8", "\"10.0.0.0/8/8\" has no valid prefix length"},
      {"10.0.0.0/ 8", "\"10.0.0.0/ 8\" has no valid prefix length"},
      {"fd00::/129", "\"fd00::/129\" has no valid prefix length (0 to 128 for IPv6)"},
      {"fd00::/1000", "\"fd00::/1000\" has no valid prefix length"},
      {"010.0.0.0/8", "\"010.0.0.0/8\" is not a CIDR block: \"010.0.0.0\" is not an IPv4 address"},
      {"/8", "\"/8\" is not a CIDR block: an empty string is not an IP address"},
  };
  for (const InvalidAddress& c : cases) {
    EXPECT_THAT(Cidr::Parse(c.text),
                StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(c.message)))
        << c.text;
    EXPECT_THAT(Cidr::ParseInterface(c.text), StatusIs(absl::StatusCode::kInvalidArgument))
        << c.text;
  }
}

TEST(Cidr, ParseInterfaceReturnsTheBlockTheAddressLiesIn) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"192.168.1.10/24", "192.168.1.0/24"}, {"192.168.1.10/32", "192.168.1.10/32"},
      {"10.1.2.3/0", "0.0.0.0/0"},           {"fd00::5/64", "fd00::/64"},
      {"fe80::1:2:3:4/64", "fe80::/64"},     {"10.0.0.0/8", "10.0.0.0/8"},
  };
  for (const auto& [text, block] : cases) {
    absl::StatusOr<Cidr> parsed = Cidr::ParseInterface(text);
    ASSERT_THAT(parsed, IsOk()) << text;
    EXPECT_EQ(parsed->ToString(), block) << text;
  }
}

TEST(Cidr, ContainingMasksTheAddress) {
  EXPECT_EQ(Cidr::Containing(Ip("192.168.1.77"), 26)->ToString(), "192.168.1.64/26");
  EXPECT_EQ(Cidr::Containing(Ip("192.168.1.77"), 0)->ToString(), "0.0.0.0/0");
  EXPECT_EQ(Cidr::Containing(Ip("192.168.1.77"), 32)->ToString(), "192.168.1.77/32");
  EXPECT_EQ(Cidr::Containing(Ip("fd00::1:2"), 112)->ToString(), "fd00::1:0/112");
  EXPECT_EQ(Cidr::Containing(Ip("fd00::1:2"), 128)->ToString(), "fd00::1:2/128");
  EXPECT_THAT(
      Cidr::Containing(Ip("10.0.0.1"), 33),
      StatusIs(absl::StatusCode::kInvalidArgument, "prefix length 33 is not 0 to 32 (IPv4)"));
  EXPECT_THAT(Cidr::Containing(Ip("10.0.0.1"), -1), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      Cidr::Containing(Ip("::1"), 129),
      StatusIs(absl::StatusCode::kInvalidArgument, "prefix length 129 is not 0 to 128 (IPv6)"));
}

struct Membership {
  std::string block;
  std::string address;
  bool contains;
};

TEST(Cidr, Contains) {
  const std::vector<Membership> cases = {
      {"192.168.111.0/24", "192.168.111.5", true},
      {"192.168.111.0/24", "192.168.111.0", true},
      {"192.168.111.0/24", "192.168.111.255", true},
      {"192.168.111.0/24", "192.168.112.0", false},
      {"192.168.111.0/24", "192.168.110.255", false},
      {"10.0.0.0/8", "10.255.255.255", true},
      {"0.0.0.0/0", "203.0.113.9", true},
      {"0.0.0.0/0", "::1", false},  // never across families
      {"10.0.0.1/32", "10.0.0.1", true},
      {"10.0.0.1/32", "10.0.0.2", false},
      {"fd00::/64", "fd00::ffff:1", true},
      {"fd00::/64", "fd00:0:0:1::1", false},
      {"::/0", "2001:db8::1", true},
      {"::/0", "0.0.0.0", false},
      {"::ffff:0:0/96", "::ffff:10.0.0.1", true},
      {"::ffff:0:0/96", "10.0.0.1", false},
  };
  for (const Membership& c : cases) {
    EXPECT_EQ(Block(c.block).Contains(Ip(c.address)), c.contains) << c.block << " " << c.address;
  }
}

struct Overlap {
  std::string a;
  std::string b;
  bool overlaps;
};

TEST(Cidr, Overlaps) {
  const std::vector<Overlap> cases = {
      {"10.128.0.0/14", "10.128.0.0/14", true},
      {"10.128.0.0/14", "10.130.0.0/16", true},   // b inside a
      {"10.128.0.0/14", "10.132.0.0/16", false},  // just after a
      {"10.128.0.0/14", "10.127.255.0/24", false},
      {"10.0.0.0/8", "10.255.255.255/32", true},
      {"0.0.0.0/0", "192.168.0.0/16", true},
      {"172.30.0.0/16", "192.168.111.0/24", false},
      {"10.0.0.0/8", "fd00::/8", false},  // never across families
      {"0.0.0.0/0", "::/0", false},
      {"fd00::/48", "fd00:0:0:ff::/64", true},
      {"fd00::/48", "fd00:1::/48", false},
      {"::/0", "fd02::/112", true},
      {"fd01::/48", "fd02::/112", false},
  };
  for (const Overlap& c : cases) {
    EXPECT_EQ(Block(c.a).Overlaps(Block(c.b)), c.overlaps) << c.a << " " << c.b;
    EXPECT_EQ(Block(c.b).Overlaps(Block(c.a)), c.overlaps) << c.b << " " << c.a;  // symmetric
  }
}

TEST(Cidr, SizeCountsAddressesAndSaturatesForIpv6Slash0) {
  EXPECT_EQ(Block("10.0.0.1/32").Size(), 1);
  EXPECT_EQ(Block("192.168.1.0/24").Size(), 256);
  EXPECT_EQ(Block("10.128.0.0/14").Size(), 262144);
  EXPECT_EQ(Block("0.0.0.0/0").Size(), absl::uint128(1) << 32);
  EXPECT_EQ(Block("::1/128").Size(), 1);
  EXPECT_EQ(Block("fd02::/112").Size(), 65536);
  EXPECT_EQ(Block("fd00::/64").Size(), absl::uint128(1) << 64);
  EXPECT_EQ(Block("::/1").Size(), absl::uint128(1) << 127);
  EXPECT_EQ(Block("::/0").Size(), absl::Uint128Max());
}

TEST(Cidr, EqualityComparesNetworkAndPrefix) {
  EXPECT_EQ(Block("10.0.0.0/8"), *Cidr::ParseInterface("10.1.2.3/8"));
  EXPECT_NE(Block("10.0.0.0/8"), Block("10.0.0.0/9"));
  EXPECT_NE(Block("0.0.0.0/0"), Block("::/0"));
}

}  // namespace
}  // namespace assisted::net
