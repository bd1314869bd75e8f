// File: services/agent/hardware/host_id_test.cc

#include "services/agent/hardware/host_id.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/hardware/fixture_trees.h"

namespace assisted::agent::hardware {
namespace {

using ::assisted::testing::IsOk;

constexpr char kValidUuid[] = "4c4c4544-0042-3510-8051-b7c04f4e3332";
constexpr char kMac[] = "52:54:00:6b:3c:58";

TEST(Md5Uuid, LaysTheDigestOutAsAUuid) {
  // md5("") = d41d8cd98f00b204e9800998ecf8427e
  EXPECT_EQ(Md5Uuid(""), "d41d8cd9-8f00-b204-e980-0998ecf8427e");
  // md5("abc") = 900150983cd24fb0d6963f7d28e17f72
  EXPECT_EQ(Md5Uuid("abc"), "90015098-3cd2-4fb0-d696-3f7d28e17f72");
}

TEST(DeriveHostId, AValidBoardSerialWins) {
  EXPECT_EQ(DeriveHostId({"abc", kValidUuid, {kMac}}), Md5Uuid("abc"));
  // Surrounding whitespace is not part of the serial.
  EXPECT_EQ(DeriveHostId({"  abc\n", kValidUuid, {kMac}}), Md5Uuid("abc"));
}

class InvalidSerial : public ::testing::TestWithParam<std::string> {};

TEST_P(InvalidSerial, FallsBackToTheSystemUuid) {
  EXPECT_EQ(DeriveHostId({GetParam(), kValidUuid, {kMac}}), kValidUuid);
}

INSTANTIATE_TEST_SUITE_P(PlaceholderSerials, InvalidSerial,
                         ::testing::Values("", "   ", "unknown", "Unknown", "none", "NONE",
                                           "(none)", "-", "Default string", "DEFAULT STRING",
                                           "Not Specified", "Unspecified Base Board Serial Number",
                                           "unspecified system serial number", "PCA_NUMBER.ACC",
                                           " Not Specified \n"));

struct UuidCase {
  std::string name;
  std::string product_uuid;
  std::vector<std::string> macs;
  std::string expected;
};

class UuidRules : public ::testing::TestWithParam<UuidCase> {};

TEST_P(UuidRules, Apply) {
  const UuidCase& c = GetParam();
  EXPECT_EQ(DeriveHostId({"Default string", c.product_uuid, c.macs}), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Table, UuidRules,
    ::testing::Values(
        UuidCase{"ValidUuid", kValidUuid, {kMac}, kValidUuid},
        UuidCase{
            "UpperCaseUuidIsLowered", "4C4C4544-0042-3510-8051-B7C04F4E3332", {kMac}, kValidUuid},
        UuidCase{
            "ZeroUuidFallsToMac", "00000000-0000-0000-0000-000000000000", {kMac}, Md5Uuid(kMac)},
        UuidCase{"SharedFirmwareUuidFallsToMac",
                 "03000200-0400-0500-0006-000700080009",
                 {kMac},
                 Md5Uuid(kMac)},
        UuidCase{"MalformedUuidFallsToMac", "not-a-uuid", {kMac}, Md5Uuid(kMac)},
        UuidCase{"MissingUuidFallsToMac", "", {kMac}, Md5Uuid(kMac)},
        UuidCase{"LowestSortingMacWins",
                 "",
                 {"b4:96:91:aa:00:02", "3c:ec:ef:10:20:31", "b4:96:91:aa:00:01"},
                 Md5Uuid("3c:ec:ef:10:20:31")},
        UuidCase{"MacsAreComparedInLowerCase",
                 "",
                 {"B4:96:91:AA:00:02", "3C:EC:EF:10:20:31"},
                 Md5Uuid("3c:ec:ef:10:20:31")},
        UuidCase{"ZeroMacsAreIgnored",
                 "",
                 {"00:00:00:00:00:00", "b4:96:91:aa:00:02"},
                 Md5Uuid("b4:96:91:aa:00:02")},
        UuidCase{"NothingValidGivesTheFallback", "", {}, std::string(kFallbackHostId)},
        UuidCase{"OnlyZeroMacsGiveTheFallback",
                 "00000000-0000-0000-0000-000000000000",
                 {"00:00:00:00:00:00"},
                 std::string(kFallbackHostId)}),
    [](const ::testing::TestParamInfo<UuidCase>& info) { return info.param.name; });

TEST(HostId, OfAnEmptyRootIsTheFallback) {
  EXPECT_EQ(HostId(HostRoot("/nonexistent-root-for-host-id")), kFallbackHostId);
}

TEST(HostId, LaptopUsesItsBoardSerial) {
  absl::StatusOr<std::string> root = testing::FixtureRoot("laptop");
  ASSERT_THAT(root, IsOk());
  EXPECT_EQ(HostId(HostRoot(*root)), Md5Uuid("L1HF16A0123"));
}

TEST(HostId, ServerSkipsThePlaceholderSerialAndUsesItsUuid) {
  absl::StatusOr<std::string> root = testing::FixtureRoot("server");
  ASSERT_THAT(root, IsOk());
  EXPECT_EQ(HostId(HostRoot(*root)), "00000000-0000-0000-0000-ac1f6bb4c2d8");
}

TEST(HostId, VmUsesItsUuid) {
  absl::StatusOr<std::string> root = testing::FixtureRoot("vm");
  ASSERT_THAT(root, IsOk());
  EXPECT_EQ(HostId(HostRoot(*root)), "6f1c3e2a-9b7d-4c1e-8a55-0d2f4b6c8e10");
}

}  // namespace
}  // namespace assisted::agent::hardware
