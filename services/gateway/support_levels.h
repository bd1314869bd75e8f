// File: services/gateway/support_levels.h
//
// Upstream's support-level answers (GET /v2/support-levels/...) derived from what this
// deployment can actually install: an architecture is "supported" for an OpenShift version when
// the image service has a base OS image of that minor version for it (the same catalog
// GET /openshift-versions lists), "unavailable" otherwise. Pure functions, no I/O.

#ifndef ASSISTED_SERVICES_GATEWAY_SUPPORT_LEVELS_H_
#define ASSISTED_SERVICES_GATEWAY_SUPPORT_LEVELS_H_

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

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_SUPPORT_LEVELS_H_
