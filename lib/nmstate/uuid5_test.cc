#include "lib/nmstate/uuid5.h"

#include "gtest/gtest.h"

namespace assisted::nmstate {
namespace {

constexpr char kDnsNamespace[] = "6ba7b810-9dad-11d1-80b4-00c04fd430c8";
constexpr char kUrlNamespace[] = "6ba7b811-9dad-11d1-80b4-00c04fd430c8";

// Expected values from Python's uuid.uuid5, an independent implementation.
TEST(Uuid5, MatchesKnownVectors) {
  EXPECT_EQ(Uuid5(kDnsNamespace, "python.org"), "886313e1-3b8a-5372-9b90-0c9aee199e5d");
  EXPECT_EQ(Uuid5(kUrlNamespace, "enp2s0"), "691bbdf2-7157-5ca8-95d0-f7b8b94640c7");
}

TEST(Uuid5, DependsOnNameAndNamespace) {
  EXPECT_NE(Uuid5(kDnsNamespace, "eth0"), Uuid5(kDnsNamespace, "eth1"));
  EXPECT_NE(Uuid5(kDnsNamespace, "eth0"), Uuid5(kUrlNamespace, "eth0"));
  EXPECT_EQ(Uuid5(kDnsNamespace, "eth0"), Uuid5(kDnsNamespace, "eth0"));
}

}  // namespace
}  // namespace assisted::nmstate
