#include "services/orchestrator/release_images.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::orchestrator {
namespace {

using ::assisted::testing::IsOk;
using ::testing::HasSubstr;

types::v1::Cluster ClusterOf(const std::string& version, types::v1::CpuArchitecture arch) {
  types::v1::Cluster cluster;
  cluster.set_openshift_version(version);
  cluster.set_cpu_architecture(arch);
  return cluster;
}

TEST(ReleaseImages, TheDefaultCatalogNamesA416ReleaseForBothArchitectures) {
  absl::StatusOr<std::vector<ReleaseImage>> catalog = ParseReleaseImages(kDefaultReleaseImages);
  ASSERT_THAT(catalog, IsOk());
  EXPECT_EQ(ReleaseImageFor(ClusterOf("4.16", types::v1::CPU_ARCHITECTURE_UNSPECIFIED), *catalog),
            "quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64");
  EXPECT_EQ(ReleaseImageFor(ClusterOf("4.16", types::v1::CPU_ARCHITECTURE_ARM64), *catalog),
            "quay.io/openshift-release-dev/ocp-release:4.16.3-aarch64");
  EXPECT_EQ(ReleaseImageFor(ClusterOf("4.15", types::v1::CPU_ARCHITECTURE_X86_64), *catalog), "");
}

TEST(ReleaseImages, AnUpstreamArm64EntryServesBothArmSpellingsOfTheCluster) {
  absl::StatusOr<std::vector<ReleaseImage>> catalog = ParseReleaseImages(R"([
    {"openshift_version":"4.16","cpu_architecture":"arm64","url":"arm"}])");
  ASSERT_THAT(catalog, IsOk());
  EXPECT_EQ(ReleaseImageFor(ClusterOf("4.16", types::v1::CPU_ARCHITECTURE_ARM64), *catalog), "arm");
  EXPECT_EQ(ReleaseImageFor(ClusterOf("4.16", types::v1::CPU_ARCHITECTURE_AARCH64), *catalog),
            "arm");
}

TEST(ReleaseImages, AFullVersionBeatsItsMinorAndTheClustersOwnImageBeatsBoth) {
  absl::StatusOr<std::vector<ReleaseImage>> catalog = ParseReleaseImages(R"([
    {"openshift_version":"4.16","cpu_architecture":"x86_64","url":"minor"},
    {"openshift_version":"4.16.9","cpu_architecture":"x86_64","url":"exact"}])");
  ASSERT_THAT(catalog, IsOk());
  EXPECT_EQ(ReleaseImageFor(ClusterOf("4.16.9", types::v1::CPU_ARCHITECTURE_X86_64), *catalog),
            "exact");
  EXPECT_EQ(ReleaseImageFor(ClusterOf("4.16.2", types::v1::CPU_ARCHITECTURE_X86_64), *catalog),
            "minor");
  types::v1::Cluster own = ClusterOf("4.16.9", types::v1::CPU_ARCHITECTURE_X86_64);
  own.set_ocp_release_image("mirror.lab/ocp@sha256:abc");
  EXPECT_EQ(ReleaseImageFor(own, *catalog), "mirror.lab/ocp@sha256:abc");
}

TEST(ReleaseImages, BadCatalogsNameTheEntryAndField) {
  for (auto [json, message] : std::vector<std::pair<const char*, const char*>>{
           {"{}", "must be a JSON list"},
           {"not json", "must be a JSON list"},
           {R"([{"cpu_architecture":"x86_64","url":"u"}])", "[0].openshift_version"},
           {R"([{"openshift_version":"4.16","cpu_architecture":"x86_64","url":""}])", "[0].url"},
           {R"([{"openshift_version":"4.16","cpu_architecture":"x86_64","url":"u","version":3}])",
            "[0].version"},
           {"[1]", "[0].openshift_version"}}) {
    absl::StatusOr<std::vector<ReleaseImage>> catalog = ParseReleaseImages(json);
    ASSERT_FALSE(catalog.ok()) << json;
    EXPECT_THAT(catalog.status().message(), HasSubstr(message)) << json;
  }
}

}  // namespace
}  // namespace assisted::orchestrator
