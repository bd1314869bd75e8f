#include "services/gateway/support_levels.h"

#include "gtest/gtest.h"

namespace assisted::gateway {
namespace {

image::v1::BaseImage Image(const char* version, types::v1::CpuArchitecture architecture,
                           image::v1::BaseImageState state = image::v1::BASE_IMAGE_STATE_READY) {
  image::v1::BaseImage image;
  image.set_openshift_version(version);
  image.set_cpu_architecture(architecture);
  image.set_state(state);
  return image;
}

TEST(ArchitectureSupportLevels, SupportedWhereABaseImageOfThatMinorVersionExists) {
  const std::vector<image::v1::BaseImage> images = {
      Image("4.16", types::v1::CPU_ARCHITECTURE_X86_64),
      Image("4.16", types::v1::CPU_ARCHITECTURE_AARCH64),
      Image("4.15", types::v1::CPU_ARCHITECTURE_S390X),
      Image("4.16", types::v1::CPU_ARCHITECTURE_PPC64LE, image::v1::BASE_IMAGE_STATE_FAILED)};
  const Json expected = {{"architectures",
                          {{"X86_64_ARCHITECTURE", "supported"},
                           {"ARM64_ARCHITECTURE", "supported"},
                           {"PPC64LE_ARCHITECTURE", "unavailable"},
                           {"S390X_ARCHITECTURE", "unavailable"},
                           {"MULTIARCH_RELEASE_IMAGE", "unavailable"}}}};
  EXPECT_EQ(ArchitectureSupportLevels(images, "4.16"), expected);
  EXPECT_EQ(ArchitectureSupportLevels(images, "4.16.3"), expected);
  EXPECT_EQ(ArchitectureSupportLevels(images, "4.15.0")["architectures"]["S390X_ARCHITECTURE"],
            "supported");
}

TEST(ArchitectureSupportLevels, AnUnknownVersionHasEveryArchitectureUnavailable) {
  // "4.1" is another minor version than "4.16", not a prefix of it.
  const Json levels = ArchitectureSupportLevels({Image("4.16", types::v1::CPU_ARCHITECTURE_X86_64)},
                                                "4.1")["architectures"];
  ASSERT_EQ(levels.size(), 5u);
  for (const auto& [id, level] : levels.items()) EXPECT_EQ(level, "unavailable") << id;
  EXPECT_EQ(ArchitectureSupportLevels({Image("4.16", types::v1::CPU_ARCHITECTURE_X86_64)},
                                      "")["architectures"]["X86_64_ARCHITECTURE"],
            "unavailable");
}

TEST(FeatureSupportLevels, ImplementedFeaturesAreSupportedWhereABaseImageExists) {
  const std::vector<image::v1::BaseImage> images = {
      Image("4.16", types::v1::CPU_ARCHITECTURE_X86_64),
      Image("4.16", types::v1::CPU_ARCHITECTURE_AARCH64)};
  const Json levels =
      FeatureSupportLevels(images, "4.16.2", types::v1::CPU_ARCHITECTURE_ARM64, false);
  EXPECT_EQ(levels["features"]["SNO"], "supported");
  EXPECT_EQ(levels["features"]["CUSTOM_MANIFEST"], "supported");
  EXPECT_EQ(levels["features"]["VSPHERE_INTEGRATION"], "unavailable");
  // The operators of lib/operators/catalog.h are supported, upstream's others unavailable.
  EXPECT_EQ(levels["operators"]["LSO"], "supported");
  EXPECT_EQ(levels["operators"]["LVM"], "supported");
  EXPECT_EQ(levels["operators"]["ODF"], "unavailable");
  EXPECT_EQ(levels["operators"]["CNV"], "unavailable");
  EXPECT_EQ(levels["features"].size() + levels["operators"].size(), Features().size());
}

// An operator is offered only for the versions its cluster validation accepts (LVM: 4.12).
TEST(FeatureSupportLevels, AnOperatorIsUnavailableBelowItsMinimumVersion) {
  const std::vector<image::v1::BaseImage> images = {
      Image("4.11", types::v1::CPU_ARCHITECTURE_X86_64)};
  const Json levels =
      FeatureSupportLevels(images, "4.11", types::v1::CPU_ARCHITECTURE_X86_64, true);
  bool seen = false;
  for (const Json& entry : levels["operators"]) {
    if (entry["feature_support_level_id"] == "LVM") {
      seen = true;
      EXPECT_EQ(entry["support_level"], "unavailable");
      EXPECT_EQ(entry["reason"],
                "Logical Volume Manager Storage is only supported for OpenShift 4.12 and above");
    }
    if (entry["feature_support_level_id"] == "LSO") EXPECT_EQ(entry["support_level"], "supported");
  }
  EXPECT_TRUE(seen);
}

TEST(FeatureSupportLevels, NothingIsSupportedWithoutABaseImage) {
  const std::vector<image::v1::BaseImage> images = {
      Image("4.16", types::v1::CPU_ARCHITECTURE_X86_64),
      Image("4.15", types::v1::CPU_ARCHITECTURE_S390X, image::v1::BASE_IMAGE_STATE_FAILED)};
  for (const auto& [version, architecture] :
       {std::pair{"4.15", types::v1::CPU_ARCHITECTURE_S390X},
        std::pair{"4.17", types::v1::CPU_ARCHITECTURE_X86_64},
        std::pair{"4.16", types::v1::CPU_ARCHITECTURE_PPC64LE}}) {
    const Json detailed = FeatureSupportLevels(images, version, architecture, true);
    for (const Json& feature : detailed["features"]) {
      EXPECT_EQ(feature["support_level"], "unavailable") << feature;
      EXPECT_TRUE(feature.contains("reason")) << feature;
    }
  }
}

TEST(FeatureSupportLevels, DetailedListsEveryFeatureWithAReasonWhenUnavailable) {
  const Json detailed = FeatureSupportLevels({Image("4.16", types::v1::CPU_ARCHITECTURE_X86_64)},
                                             "4.16", types::v1::CPU_ARCHITECTURE_X86_64, true);
  ASSERT_EQ(detailed["features"].size() + detailed["operators"].size(), Features().size());
  for (const char* group : {"features", "operators"}) {
    for (const Json& feature : detailed[group]) {
      const bool supported = feature["support_level"] == "supported";
      EXPECT_EQ(feature.contains("reason"), !supported) << feature;
    }
  }
  EXPECT_EQ(detailed["features"][0],
            (Json{{"feature_support_level_id", "SNO"}, {"support_level", "supported"}}));
}

}  // namespace
}  // namespace assisted::gateway
