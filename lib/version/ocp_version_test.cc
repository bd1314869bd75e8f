#include "lib/version/ocp_version.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::version {
namespace {

using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

TEST(OcpVersion, ParsesReleasesAndPreReleases) {
  absl::StatusOr<OcpVersion> v = OcpVersion::Parse("4.15.0-ec.1");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->ToString(), "4.15.0");
  EXPECT_EQ(OcpVersion::Parse("4.16")->ToString(), "4.16.0");
  EXPECT_EQ(OcpVersion::Parse("4.16.12")->patch, 12);
}

TEST(OcpVersion, OrdersNumerically) {
  EXPECT_TRUE(*OcpVersion::Parse("4.9") < *OcpVersion::Parse("4.10"));
  EXPECT_TRUE(*OcpVersion::Parse("4.14.2") < *OcpVersion::Parse("4.14.10"));
  EXPECT_TRUE(*OcpVersion::Parse("4.14") <= *OcpVersion::Parse("4.14.0"));
  EXPECT_TRUE(*OcpVersion::Parse("4.14") == *OcpVersion::Parse("4.14.0-rc.2"));
}

TEST(OcpVersion, RejectsGarbage) {
  for (const char* bad : {"", "4", "four.1", "4.1.2.3", "4.-1"}) {
    EXPECT_THAT(OcpVersion::Parse(bad), StatusIs(absl::StatusCode::kInvalidArgument,
                                                 HasSubstr("is not an OpenShift version")))
        << bad;
  }
}

}  // namespace
}  // namespace assisted::version
