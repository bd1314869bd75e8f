#include "lib/containers/registries_conf.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::containers {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kDigest[] =
    "@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

// Seed 002's imageContentSources as the agent ISO turns them into rules.
std::vector<MirrorRule> Seed002Rules() {
  return {{.source = "quay.io/openshift-release-dev/ocp-v4.0-art-dev",
           .mirrors = {"provisioning.schmaustech.com:5000/ocp4/openshift4"},
           .mirror_by_digest_only = true},
          {.source = "registry.svc.ci.openshift.org/ocp/release",
           .mirrors = {"provisioning.schmaustech.com:5000/ocp4/openshift4"},
           .mirror_by_digest_only = true}};
}

TEST(RegistriesConf, WhatIsWrittenReadsBackAsTheSameRules) {
  std::vector<MirrorRule> rules = Seed002Rules();
  rules.push_back({.source = "registry.example.com",
                   .location = "registry.internal:5000",
                   .mirrors = {"mirror.lab:5000", "[fd00::5]:5000"},
                   .blocked = true});
  const std::string text = RenderRegistriesConf(rules);
  absl::StatusOr<std::vector<MirrorRule>> read = ParseRegistriesConf(text);
  ASSERT_THAT(read, IsOk());
  ASSERT_EQ(read->size(), 3u);
  for (size_t i = 0; i < rules.size(); ++i) {
    EXPECT_EQ((*read)[i].source, rules[i].source) << i;
    EXPECT_EQ((*read)[i].location, rules[i].location) << i;
    EXPECT_EQ((*read)[i].mirrors, rules[i].mirrors) << i;
    EXPECT_EQ((*read)[i].mirror_by_digest_only, rules[i].mirror_by_digest_only) << i;
    EXPECT_EQ((*read)[i].blocked, rules[i].blocked) << i;
  }
}

TEST(RegistriesConf, ReadsTheFileAsContainersToolsWriteIt) {
  // The shape of an OpenShift node's file (machine-config-operator) and of containers-common's
  // comments: quoted keys' values, literal strings, comments after values, tables it skips.
  absl::StatusOr<std::vector<MirrorRule>> read = ParseRegistriesConf(R"(
# comment
unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]
short-name-mode = "enforcing"

[aliases]
  "fedora" = "registry.fedoraproject.org/fedora"

[[registry]]
  prefix = ""
  location = "quay.io/openshift-release-dev/ocp-release"   # the release
  mirror-by-digest-only = true

  [[registry.mirror]]
    location = 'mirror.lab:5000/ocp/release'
    insecure = false

[[registry]]
location = "docker.io"
blocked = true

[[registry]]
prefix = "*.example.com"
location = "mirror.lab:5000/example"
)");
  ASSERT_THAT(read, IsOk());
  ASSERT_EQ(read->size(), 2u);  // the wildcard prefix is skipped
  EXPECT_EQ((*read)[0].source, "quay.io/openshift-release-dev/ocp-release");
  EXPECT_THAT((*read)[0].mirrors, ElementsAre("mirror.lab:5000/ocp/release"));
  EXPECT_TRUE((*read)[0].mirror_by_digest_only);
  EXPECT_EQ((*read)[1].source, "docker.io");
  EXPECT_TRUE((*read)[1].blocked);
  EXPECT_TRUE((*read)[1].mirrors.empty());
}

TEST(RegistriesConf, MalformedTextIsRefusedNamingTheLine) {
  EXPECT_THAT(ParseRegistriesConf("[[registry]]\nlocation = \"quay.io\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 2: unterminated")));
  EXPECT_THAT(ParseRegistriesConf("[[registry]]\nlocation\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 2: no '='")));
  EXPECT_THAT(ParseRegistriesConf("[[registry.mirror]]\nlocation = \"m\"\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 1:")));
  EXPECT_THAT(ParseRegistriesConf("[[registry]]\nblocked = yes\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("blocked is not true/false")));
  EXPECT_THAT(ParseRegistriesConf("[[registry]]\nlocation = true\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("location is not a string")));
  EXPECT_THAT(ParseRegistriesConf(std::string(kMaxRegistriesConfBytes + 1, '#')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("larger than")));
  EXPECT_THAT(ParseRegistriesConf(""), IsOk());
}

TEST(PullReferences, DigestPullsGoThroughTheMirrorsFirstThenTheSource) {
  const std::string image = std::string("registry.svc.ci.openshift.org/ocp/release") + kDigest;
  EXPECT_THAT(
      PullReferences(image, Seed002Rules()),
      ElementsAre(std::string("provisioning.schmaustech.com:5000/ocp4/openshift4") + kDigest,
                  image));
  // Sub-repositories and tags of a rule's source: the rest of the reference is kept.
  const std::vector<MirrorRule> all = {{.source = "quay.io/ocp", .mirrors = {"m1:5000/a", "m2/b"}}};
  EXPECT_THAT(
      PullReferences("quay.io/ocp/release:4.16", all),
      ElementsAre("m1:5000/a/release:4.16", "m2/b/release:4.16", "quay.io/ocp/release:4.16"));
}

TEST(PullReferences, TagPullsSkipDigestOnlyMirrors) {
  EXPECT_THAT(
      PullReferences("registry.svc.ci.openshift.org/ocp/release:4.11.0-rc.7", Seed002Rules()),
      ElementsAre("registry.svc.ci.openshift.org/ocp/release:4.11.0-rc.7"));
}

TEST(PullReferences, TheLongestSourceWinsAndOnlyAtABoundary) {
  const std::vector<MirrorRule> rules = {
      {.source = "quay.io", .mirrors = {"everything.lab"}},
      {.source = "quay.io/ocp/release", .mirrors = {"release.lab/r"}},
  };
  EXPECT_THAT(PullReferences("quay.io/ocp/release:1", rules),
              ElementsAre("release.lab/r:1", "quay.io/ocp/release:1"));
  EXPECT_THAT(PullReferences("quay.io/ocp/releases:1", rules),
              ElementsAre("everything.lab/ocp/releases:1", "quay.io/ocp/releases:1"));
  EXPECT_THAT(PullReferences("quay.iox/a:1", rules), ElementsAre("quay.iox/a:1"));
  EXPECT_THAT(PullReferences("other.io/a:1", rules), ElementsAre("other.io/a:1"));
}

TEST(PullReferences, ABlockedSourceIsNeverContactedAndALocationReplacesIt) {
  const std::vector<MirrorRule> rules = {
      {.source = "quay.io/ocp", .mirrors = {"mirror.lab/ocp"}, .blocked = true},
      {.source = "docker.io", .location = "registry.internal:5000/hub"},
  };
  EXPECT_THAT(PullReferences("quay.io/ocp:1", rules), ElementsAre("mirror.lab/ocp:1"));
  EXPECT_THAT(PullReferences("docker.io/library/alpine:3", rules),
              ElementsAre("registry.internal:5000/hub/library/alpine:3"));
}

}  // namespace
}  // namespace assisted::containers
