#include "services/gateway/support_levels.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/operators/catalog.h"
#include "lib/version/ocp_version.h"
#include "lib/version/openshift_version.h"

namespace assisted::gateway {
namespace {

namespace types = types::v1;

// Upstream's architecture-support-level-id of each architecture a base image can be for (both
// spellings of ARM read as upstream's one id).
constexpr std::pair<types::CpuArchitecture, const char*> kArchitectureIds[] = {
    {types::CPU_ARCHITECTURE_X86_64, "X86_64_ARCHITECTURE"},
    {types::CPU_ARCHITECTURE_AARCH64, "ARM64_ARCHITECTURE"},
    {types::CPU_ARCHITECTURE_ARM64, "ARM64_ARCHITECTURE"},
    {types::CPU_ARCHITECTURE_PPC64LE, "PPC64LE_ARCHITECTURE"},
    {types::CPU_ARCHITECTURE_S390X, "S390X_ARCHITECTURE"},
    {types::CPU_ARCHITECTURE_MULTI, "MULTIARCH_RELEASE_IMAGE"},
};

// Whether a usable base image of `openshift_version`'s minor version exists for `architecture`
// (both spellings of ARM are one architecture).
bool HasBaseImage(const std::vector<image::v1::BaseImage>& images,
                  absl::string_view openshift_version, types::CpuArchitecture architecture) {
  auto arm = [](types::CpuArchitecture a) {
    return a == types::CPU_ARCHITECTURE_AARCH64 ? types::CPU_ARCHITECTURE_ARM64 : a;
  };
  const std::string wanted = version::MinorVersion(openshift_version);
  for (const image::v1::BaseImage& image : images) {
    if (image.state() == image::v1::BASE_IMAGE_STATE_FAILED) continue;
    if (version::MinorVersion(image.openshift_version()) != wanted) continue;
    if (arm(image.cpu_architecture()) == arm(architecture)) return true;
  }
  return false;
}

// Why the catalog's operator of `feature_id` cannot install `openshift_version` (its minimum
// version, as the cluster validation has it), or null when it can or the feature is no operator.
std::optional<std::string> BelowOperatorMinimum(absl::string_view feature_id,
                                                absl::string_view openshift_version) {
  absl::StatusOr<version::OcpVersion> wanted = version::OcpVersion::Parse(openshift_version);
  if (!wanted.ok()) return std::nullopt;
  for (const operators::OperatorSpec& spec : operators::SupportedOperators()) {
    if (spec.feature_id != feature_id) continue;
    // The answer knows no topology: the single-node minimum.
    return operators::BelowMinimumVersion(spec, *wanted, /*multi_node=*/false);
  }
  return std::nullopt;
}

constexpr char kNoOperators[] =
    "not supported by this service yet (GET /v2/supported-operators lists what can be "
    "installed)";
constexpr char kPlatformNone[] =
    "clusters of this platform install with platform none: there is no provider integration";

}  // namespace

const std::vector<FeatureSupport>& Features() {
  static const auto* features = new std::vector<FeatureSupport>{
      {"SNO", false, "single-node clusters (high_availability_mode None)", nullptr},
      {"CUSTOM_MANIFEST", false, "custom manifests written into bootstrap.ign", nullptr},
      {"FULL_ISO", false, "the full discovery ISO", nullptr},
      {"MINIMAL_ISO", false, "the minimal discovery ISO (rootfs fetched over HTTP)", nullptr},
      {"VIP_AUTO_ALLOC", false, "VIPs leased over DHCP (vip_dhcp_allocation)", nullptr},
      {"CLUSTER_MANAGED_NETWORKING", false, "the baremetal platform with API and ingress VIPs",
       nullptr},
      {"USER_MANAGED_NETWORKING", false, "user-managed load balancing (platform none)", nullptr},
      {"BAREMETAL_PLATFORM", false, "platform baremetal", nullptr},
      {"NONE_PLATFORM", false, "platform none", nullptr},
      {"VSPHERE_INTEGRATION", false, nullptr, kPlatformNone},
      {"NUTANIX_INTEGRATION", false, nullptr, kPlatformNone},
      {"EXTERNAL_PLATFORM", false, nullptr, kPlatformNone},
      {"EXTERNAL_PLATFORM_OCI", false, nullptr, kPlatformNone},
      {"LSO", true, "the Local Storage Operator (olm_operators: lso)", nullptr},
      {"LVM", true, "Logical Volume Manager Storage (olm_operators: lvm)", nullptr},
      {"ODF", true, nullptr, kNoOperators},
      {"CNV", true, nullptr, kNoOperators},
      {"MCE", true, nullptr, kNoOperators},
      {"MTV", true, nullptr, kNoOperators},
      {"NODE_FEATURE_DISCOVERY", true, nullptr, kNoOperators},
      {"NVIDIA_GPU", true, nullptr, kNoOperators},
      {"PIPELINES", true, nullptr, kNoOperators},
      {"SERVICEMESH", true, nullptr, kNoOperators},
      {"SERVERLESS", true, nullptr, kNoOperators},
      {"OPENSHIFT_AI", true, nullptr, kNoOperators},
  };
  return *features;
}

Json FeatureSupportLevels(const std::vector<image::v1::BaseImage>& images,
                          absl::string_view openshift_version, types::CpuArchitecture architecture,
                          bool detailed) {
  const bool installable = HasBaseImage(images, openshift_version, architecture);
  Json document = {{"features", detailed ? Json::array() : Json::object()},
                   {"operators", detailed ? Json::array() : Json::object()}};
  for (const FeatureSupport& feature : Features()) {
    const std::optional<std::string> too_old = BelowOperatorMinimum(feature.id, openshift_version);
    const bool supported = feature.supported != nullptr && installable && !too_old;
    const char* level = supported ? "supported" : "unavailable";
    Json& group = document[feature.operator_feature ? "operators" : "features"];
    if (!detailed) {
      group[feature.id] = level;
      continue;
    }
    Json entry = {{"feature_support_level_id", feature.id}, {"support_level", level}};
    if (!installable) {
      entry["reason"] = "the image service has no base OS image of this version and architecture";
    } else if (too_old) {
      entry["reason"] = *too_old;
    } else if (!supported) {
      entry["reason"] = feature.unavailable;
    }
    group.push_back(std::move(entry));
  }
  return document;
}

Json ArchitectureSupportLevels(const std::vector<image::v1::BaseImage>& images,
                               absl::string_view openshift_version) {
  Json levels = Json::object();
  for (const auto& [architecture, id] : kArchitectureIds) levels[id] = "unavailable";
  // Base images serve a minor version.
  const std::string wanted = version::MinorVersion(openshift_version);
  for (const image::v1::BaseImage& image : images) {
    if (image.state() == image::v1::BASE_IMAGE_STATE_FAILED) continue;
    if (version::MinorVersion(image.openshift_version()) != wanted) continue;
    for (const auto& [architecture, id] : kArchitectureIds) {
      if (image.cpu_architecture() == architecture) levels[id] = "supported";
    }
  }
  return Json{{"architectures", std::move(levels)}};
}

}  // namespace assisted::gateway
