#include "lib/version/openshift_version.h"

#include "gtest/gtest.h"

namespace assisted::version {
namespace {

TEST(MinorVersion, APatchReleaseBelongsToItsMinorVersion) {
  EXPECT_EQ(MinorVersion("4.16.3"), "4.16");
  EXPECT_EQ(MinorVersion("4.17.0-ec.2"), "4.17");
  EXPECT_EQ(MinorVersion("4.16.3.1"), "4.16");
}

TEST(MinorVersion, AMinorVersionIsItself) {
  EXPECT_EQ(MinorVersion("4.16"), "4.16");
  EXPECT_EQ(MinorVersion("4.9"), "4.9");
}

TEST(MinorVersion, TextWithoutTwoPartsMatchesOnlyItself) {
  EXPECT_EQ(MinorVersion("4"), "4");
  EXPECT_EQ(MinorVersion(""), "");
  EXPECT_EQ(MinorVersion("latest"), "latest");
}

}  // namespace
}  // namespace assisted::version
