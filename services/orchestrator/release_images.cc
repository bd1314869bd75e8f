#include "services/orchestrator/release_images.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/enums/architecture.h"
#include "lib/version/openshift_version.h"
#include "nlohmann/json.hpp"

namespace assisted::orchestrator {
absl::StatusOr<std::vector<ReleaseImage>> ParseReleaseImages(absl::string_view json) {
  const nlohmann::json list = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (list.is_discarded() || !list.is_array()) {
    return absl::InvalidArgumentError("release images: must be a JSON list of objects");
  }
  std::vector<ReleaseImage> images;
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& entry = list[i];
    ReleaseImage image;
    for (auto [name, target, required] :
         {std::tuple{"openshift_version", &image.openshift_version, true},
          std::tuple{"cpu_architecture", &image.cpu_architecture, true},
          std::tuple{"url", &image.url, true}, std::tuple{"version", &image.version, false}}) {
      const bool present = entry.is_object() && entry.contains(name);
      if (present && entry[name].is_string() && !entry[name].get<std::string>().empty()) {
        *target = entry[name].get<std::string>();
      } else if (required || present) {
        return absl::InvalidArgumentError(
            absl::StrCat("release images[", i, "].", name, ": must be a non-empty string"));
      }
    }
    image.cpu_architecture = enums::CanonicalOsImageArchitecture(image.cpu_architecture);
    images.push_back(std::move(image));
  }
  return images;
}

std::string ReleaseImageFor(const types::v1::Cluster& cluster,
                            const std::vector<ReleaseImage>& catalog) {
  if (!cluster.ocp_release_image().empty()) return cluster.ocp_release_image();
  const absl::string_view architecture = enums::OsImageArchitecture(cluster.cpu_architecture());
  const std::string& version = cluster.openshift_version();
  const ReleaseImage* minor_match = nullptr;
  for (const ReleaseImage& image : catalog) {
    if (image.cpu_architecture != architecture) continue;
    if (image.openshift_version == version || image.version == version) return image.url;
    if (minor_match == nullptr && image.openshift_version == version::MinorVersion(version)) {
      minor_match = &image;
    }
  }
  return minor_match == nullptr ? "" : minor_match->url;
}

}  // namespace assisted::orchestrator
