#include "lib/containers/image_reference.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::containers {
namespace {

using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;

TEST(RegistryOf, FollowsTheContainerToolsRules) {
  EXPECT_THAT(RegistryOf("quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64"),
              IsOkAndHolds("quay.io"));
  EXPECT_THAT(RegistryOf("registry.example.com:5000/ocp@sha256:0123abcd"),
              IsOkAndHolds("registry.example.com:5000"));
  EXPECT_THAT(RegistryOf("localhost/image"), IsOkAndHolds("localhost"));
  EXPECT_THAT(RegistryOf("[fd00::1]:5000/image"), IsOkAndHolds("[fd00::1]:5000"));
  EXPECT_THAT(RegistryOf("ubuntu:22.04"), IsOkAndHolds("registry-1.docker.io"));
  EXPECT_THAT(RegistryOf("library/ubuntu"), IsOkAndHolds("registry-1.docker.io"));
  EXPECT_THAT(RegistryOf("quay.io/a b"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(RegistryOf(""), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(RegistryOf("http://evil/x"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(PullsByDigest, OnlyAnAtWithAnAlgorithm) {
  EXPECT_TRUE(PullsByDigest("quay.io/a@sha256:0123abcd"));
  EXPECT_FALSE(PullsByDigest("quay.io/a:4.16"));
  EXPECT_FALSE(PullsByDigest("quay.io/a"));
}

}  // namespace
}  // namespace assisted::containers
