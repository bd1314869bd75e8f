#include "services/orchestrator/install/manifests.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::orchestrator::install {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ManifestNames, RoundTripThroughTheArtifactName) {
  const ManifestName name{"openshift", "50-calico.yaml"};
  EXPECT_EQ(ManifestArtifactName(name), "manifests/openshift/50-calico.yaml");
  EXPECT_EQ(ParseManifestArtifactName("manifests/openshift/50-calico.yaml"), name);
  EXPECT_EQ(ManifestBootstrapPath(name), "/opt/openshift/openshift/50-calico.yaml");
}

TEST(ManifestNames, OtherArtifactNamesAreNotManifests) {
  for (const char* other : {"install-config.yaml", "manifests/a.yaml", "manifests/other/a.yaml",
                            "manifests/openshift/", "manifests/openshift/x/a.yaml"}) {
    EXPECT_EQ(ParseManifestArtifactName(other), std::nullopt) << other;
  }
}

TEST(ManifestNames, OnlyPlainYamlOrJsonFileNamesInTheInstallersFolders) {
  EXPECT_THAT(CheckManifestName({"manifests", "a.yaml"}, "folder", "file_name"), IsOk());
  EXPECT_THAT(CheckManifestName({"openshift", "b.yml"}, "folder", "file_name"), IsOk());
  EXPECT_THAT(CheckManifestName({"openshift", "c.json"}, "folder", "file_name"), IsOk());
  EXPECT_THAT(CheckManifestName({"tmp", "a.yaml"}, "folder", "file_name"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("folder: \"tmp\"")));
  for (const char* bad : {"", "a.txt", ".yaml", ".hidden.yaml", "../a.yaml", "x/a.yaml", "a b.yaml",
                          "a\"b.yaml", "a&b.yaml", "a#.yaml", "a\n.yaml", "\xc3\xa9.yaml"}) {
    EXPECT_THAT(CheckManifestName({"manifests", bad}, "folder", "file_name"),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("file_name: ")))
        << bad;
  }
  EXPECT_THAT(
      CheckManifestName({"manifests", std::string(201, 'a') + ".yaml"}, "folder", "file_name"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 200")));
}

TEST(ManifestContent, YamlObjectsOrAJsonObject) {
  EXPECT_THAT(CheckManifestContent("a.yaml", "apiVersion: v1\nkind: Namespace\n", "content"),
              IsOk());
  EXPECT_THAT(CheckManifestContent("a.yaml", "kind: A\n---\nkind: B\n---\n", "content"), IsOk());
  EXPECT_THAT(CheckManifestContent("a.json", R"({"kind":"Namespace"})", "content"), IsOk());
  struct Case {
    const char* file;
    std::string content;
    const char* problem;
  };
  for (const Case& c : std::vector<Case>{
           {"a.yaml", "", "must not be empty"},
           {"a.yaml", "  \n", "must not be empty"},
           {"a.yaml", "key: [unclosed", "not YAML"},
           {"a.yaml", "- a list\n", "mapping"},
           {"a.yaml", "---\n---\n", "no YAML document"},
           {"a.json", "kind: Namespace\n", "not JSON"},
           {"a.json", "[1]", "JSON object"},
           {"a.yaml", "k: " + std::string(kMaxManifestBytes, 'x'), "at most"},
       }) {
    EXPECT_THAT(CheckManifestContent(c.file, c.content, "content"),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.problem)))
        << c.file << ": " << c.content.substr(0, 40);
  }
}

}  // namespace
}  // namespace assisted::orchestrator::install
