#include "services/gateway/support_levels.h"

#include <string>
#include <utility>

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

}  // namespace

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
