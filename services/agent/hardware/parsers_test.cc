// File: services/agent/hardware/parsers_test.cc
//
// The small parsers the collectors share: numbers, mount tables, kernel arguments, the udev
// database, routing tables, interface addresses, and text made safe to send.

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/agent/hardware/addresses.h"
#include "services/agent/hardware/attributes.h"
#include "services/agent/hardware/mounts.h"
#include "services/agent/hardware/routes.h"
#include "services/agent/hardware/sanitize.h"
#include "services/agent/hardware/udev_db.h"

namespace assisted::agent::hardware {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Optional;

TEST(Numbers, DecimalAndHex) {
  EXPECT_THAT(ParseDecimal(" 512\n"), Optional(512));
  EXPECT_THAT(ParseDecimal("-1"), Optional(-1));
  EXPECT_EQ(ParseDecimal("99999999999999999999"), std::nullopt);
  EXPECT_EQ(ParseDecimal("12abc"), std::nullopt);
  EXPECT_THAT(ParseHex("0x030000\n"), Optional(0x030000u));
  EXPECT_THAT(ParseHex("80000000"), Optional(0x80000000u));
  EXPECT_THAT(ParseHex("0001A8C0"), Optional(0x0001A8C0u));
  EXPECT_EQ(ParseHex("0x"), std::nullopt);
  EXPECT_EQ(ParseHex("0x0x10"), std::nullopt);
  EXPECT_EQ(ParseHex("-10"), std::nullopt);
  EXPECT_EQ(ParseHex("1ffffffffffffffff"), std::nullopt);
}

TEST(Numbers, CheckedMultiply) {
  EXPECT_THAT(CheckedMultiply(2000409264, 512), Optional(int64_t{1024209543168}));
  EXPECT_THAT(CheckedMultiply(0, 512), Optional(0));
  EXPECT_EQ(CheckedMultiply(int64_t{1} << 55, 512), std::nullopt);
  EXPECT_EQ(CheckedMultiply(-8, 512), std::nullopt);
}

TEST(Mounts, ParsesFieldsAndOctalEscapes) {
  const std::vector<Mount> mounts = ParseMounts(
      "/dev/sdg /run/media/iso iso9660 ro 0 0\n"
      "/dev/sdb1 /mnt/my\\040disk ext4 rw 0 0\n"
      "short line\n"
      "\n");
  ASSERT_EQ(mounts.size(), 2u);
  EXPECT_EQ(mounts[0].source, "/dev/sdg");
  EXPECT_EQ(mounts[0].target, "/run/media/iso");
  EXPECT_EQ(mounts[0].fs_type, "iso9660");
  EXPECT_EQ(mounts[1].target, "/mnt/my disk");
  EXPECT_EQ(ParseMounts("/dev/x /a\\04 xfs")[0].target, "/a\\04");  // incomplete escape kept
}

TEST(KernelArguments, LastValueWins) {
  const std::string cmdline =
      "BOOT_IMAGE=/vmlinuz ip=dhcp quiet coreos.liveiso=a coreos.liveiso=b\n";
  EXPECT_EQ(KernelArgument(cmdline, "coreos.liveiso"), "b");
  EXPECT_EQ(KernelArgument(cmdline, "ip"), "dhcp");
  EXPECT_EQ(KernelArgument(cmdline, "quiet"), "");
  EXPECT_EQ(KernelArgument(cmdline, "BOOTIF"), "");
}

TEST(Udev, PropertiesAndLinks) {
  const UdevRecord record = ParseUdevRecord(
      "S:disk/by-id/wwn-0x5000c500a1b2c3d4\nW:12\nE:ID_SERIAL=ST4000_ZC18\n"
      "E:ID_MODEL_ENC=a=b\nE:=orphan\nE:ID_WWN=\ngarbage\n");
  EXPECT_THAT(record.links, ElementsAre("disk/by-id/wwn-0x5000c500a1b2c3d4"));
  EXPECT_EQ(record.Get("ID_SERIAL"), "ST4000_ZC18");
  EXPECT_EQ(record.Get("ID_MODEL_ENC"), "a=b");
  EXPECT_EQ(record.Get("ID_MISSING"), "");
  EXPECT_EQ(record.First({"ID_WWN", "ID_SERIAL"}), "ST4000_ZC18");  // empty values skipped
}

TEST(Routes, Ipv4KeepsUpRoutesOffLoopback) {
  const auto routes = ParseIpv4Routes(
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n"
      "eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
      "eth0\t0001A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n"
      "eth0\t0002A8C0\t00000000\t0000\t0\t0\t100\t00FFFFFF\t0\t0\t0\n"  // not up
      "eth0\t0003A8C0\t00000000\t0201\t0\t0\t100\t00FFFFFF\t0\t0\t0\n"  // reject
      "lo\t0000007F\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0\n"
      "eth0\tZZZZZZZZ\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n");
  ASSERT_EQ(routes.size(), 2u);
  EXPECT_EQ(routes[0].destination(), "0.0.0.0");
  EXPECT_EQ(routes[0].gateway(), "192.168.1.1");
  EXPECT_EQ(routes[0].metric(), 100);
  EXPECT_EQ(routes[0].family(), types::v1::ADDRESS_FAMILY_IPV4);
  EXPECT_EQ(routes[1].destination(), "192.168.1.0");
}

TEST(Routes, Ipv6LeavesOutLocalMulticastAndRejected) {
  const std::string zero(32, '0');
  const auto row = [&](const std::string& dest, const std::string& hop, const char* flags,
                       const char* nic) {
    return dest + " 40 " + zero + " 00 " + hop + " 00000064 00000001 00000000 " + flags + " " +
           nic + "\n";
  };
  const auto routes = ParseIpv6Routes(
      row("fd001101000000000000000000000000", zero, "00000001", "bond0") +
      row(zero, "fd001101000000000000000000000001", "00000003", "bond0") +
      row("fd001101000000000000000000000023", zero, "80200001", "bond0") +  // local
      row("ff000000000000000000000000000000", zero, "00000001", "bond0") +  // multicast
      row(zero, zero, "00200200", "eth1") +                                 // reject
      row("fd001101000000000000000000000000", zero, "00000001", "lo") + "short row\n");
  ASSERT_EQ(routes.size(), 2u);
  EXPECT_EQ(routes[0].destination(), "fd00:1101::");
  EXPECT_EQ(routes[0].gateway(), "::");
  EXPECT_EQ(routes[1].destination(), "::");
  EXPECT_EQ(routes[1].gateway(), "fd00:1101::1");
  EXPECT_EQ(routes[1].metric(), 100);
  EXPECT_EQ(routes[1].family(), types::v1::ADDRESS_FAMILY_IPV6);
}

TEST(Addresses, CanonicalWithoutLoopbackOrLinkLocal) {
  NicAddresses nic;
  AddAddress("10.0.0.5", 24, &nic);
  AddAddress("FD00:1101:0:0::23", 64, &nic);
  AddAddress("127.0.0.1", 8, &nic);
  AddAddress("169.254.3.7", 16, &nic);
  AddAddress("::1", 128, &nic);
  AddAddress("fe80::1", 64, &nic);
  AddAddress("febf::1", 64, &nic);  // still fe80::/10
  AddAddress("10.0.0.6", 33, &nic);
  AddAddress("not-an-ip", 24, &nic);
  EXPECT_THAT(nic.ipv4, ElementsAre("10.0.0.5/24"));
  EXPECT_THAT(nic.ipv6, ElementsAre("fd00:1101::23/64"));
}

TEST(Addresses, TheRunningKernelsAddressesHaveNoLoopback) {
  for (const auto& [name, nic] : SystemAddressSource().Addresses()) {
    EXPECT_THAT(nic.ipv4, ::testing::Not(::testing::Contains("127.0.0.1/8"))) << name;
    EXPECT_THAT(nic.ipv6, ::testing::Not(::testing::Contains("::1/128"))) << name;
  }
}

TEST(Sanitize, ReplacesMalformedUtf8) {
  EXPECT_EQ(ValidUtf8("plain ascii"), "plain ascii");
  EXPECT_EQ(ValidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(ValidUtf8("a\xFF"), "a" + r);
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), r + r);                  // overlong "/"
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), r + r + r);          // surrogate
  EXPECT_EQ(ValidUtf8("\xF4\x90\x80\x80"), r + r + r + r);  // above U+10FFFF
  EXPECT_EQ(ValidUtf8("\xE2\x82"), r + r);                  // cut short
}

TEST(Sanitize, CutsLongFieldsAtACharacterBoundary) {
  types::v1::Inventory inventory;
  inventory.set_hostname(std::string(10, 'h'));
  inventory.mutable_system_vendor()->set_product_name("ab\xC3\xA9");  // 4 bytes
  inventory.add_disks()->set_model("\xFF");
  EXPECT_EQ(SanitizeStrings(&inventory, 3), 2);
  EXPECT_EQ(inventory.hostname(), "hhh");
  EXPECT_EQ(inventory.system_vendor().product_name(), "ab");
  EXPECT_EQ(inventory.disks(0).model(), "\xEF\xBF\xBD");
  EXPECT_THAT(inventory.interfaces(), IsEmpty());
}

}  // namespace
}  // namespace assisted::agent::hardware
