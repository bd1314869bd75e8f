// File: services/gateway/support_levels.h
//
// Upstream's support-level answers (GET /v2/support-levels/...) derived from what this
// deployment can actually install: an architecture is "supported" for an OpenShift version when
// the image service has a base OS image of that minor version for it (the same catalog
// GET /openshift-versions lists), "unavailable" otherwise. A feature is "supported" when this
// service implements it and a base image exists for the version and architecture asked about;
// otherwise "unavailable", with the reason. Pure functions, no I/O.

#ifndef ASSISTED_SERVICES_GATEWAY_SUPPORT_LEVELS_H_
#define ASSISTED_SERVICES_GATEWAY_SUPPORT_LEVELS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "assisted/image/v1/image_service.pb.h"
#include "services/gateway/json_model.h"

namespace assisted::gateway {

// Upstream's supported-architectures document for `openshift_version` ("4.16" or "4.16.3"):
// {"architectures": {"X86_64_ARCHITECTURE": "supported", "ARM64_ARCHITECTURE": "unavailable",
// ...}} with every one of upstream's five architecture ids (MULTIARCH_RELEASE_IMAGE for a
// multi-architecture image). Base images in state FAILED do not count.
Json ArchitectureSupportLevels(const std::vector<image::v1::BaseImage>& images,
                               absl::string_view openshift_version);

// One of upstream's feature-support-level-ids as this service answers it.
struct FeatureSupport {
  const char* id;           // upstream's id, e.g. "CUSTOM_MANIFEST"
  bool operator_feature;    // listed under "operators" (an OLM operator), else "features"
  const char* supported;    // what implements it here (documentation); null: not implemented
  const char* unavailable;  // why not, when `supported` is null
};

// Every feature id answered, in the order shown.
const std::vector<FeatureSupport>& Features();

// Upstream's supported-features document for `openshift_version` on `architecture`:
// {"features": {"SNO": "supported", ...}, "operators": {"LVM": "unavailable", ...}}. With
// `detailed`, each map becomes a list of {feature_support_level_id, support_level, reason}
// (reason only for "unavailable").
Json FeatureSupportLevels(const std::vector<image::v1::BaseImage>& images,
                          absl::string_view openshift_version,
                          types::v1::CpuArchitecture architecture, bool detailed);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_SUPPORT_LEVELS_H_
