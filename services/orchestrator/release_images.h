// File: services/orchestrator/release_images.h
//
// Which OpenShift release image a cluster installs, by OpenShift version and CPU architecture
// (the reference's RELEASE_IMAGES). Hosts check they can pull it while preparing
// (container-image-availability), so a cluster registered with only "4.16" still gets a real
// pull spec to check. Configured with --release-images, a JSON list:
//
//   [{"openshift_version":"4.16","cpu_architecture":"x86_64",
//     "url":"quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64","version":"4.16.3"}]

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_RELEASE_IMAGES_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_RELEASE_IMAGES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/cluster.pb.h"

namespace assisted::orchestrator {

struct ReleaseImage {
  std::string openshift_version;  // "4.16" (x.y) or a full "4.16.3"
  std::string cpu_architecture;   // "x86_64", "aarch64", ...
  std::string url;                // the pull spec
  std::string version;            // the release's full version
};

// The catalog the orchestrator starts with when --release-images is not given.
inline constexpr char kDefaultReleaseImages[] =
    R"([{"openshift_version":"4.16","cpu_architecture":"x86_64",)"
    R"("url":"quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64","version":"4.16.3"},)"
    R"({"openshift_version":"4.16","cpu_architecture":"aarch64",)"
    R"("url":"quay.io/openshift-release-dev/ocp-release:4.16.3-aarch64","version":"4.16.3"}])";

// Parses the JSON list; INVALID_ARGUMENT naming the entry and field that is wrong.
absl::StatusOr<std::vector<ReleaseImage>> ParseReleaseImages(absl::string_view json);

// The pull spec for `cluster`: its own ocp_release_image when set, else the catalog entry for
// its architecture whose openshift_version equals the cluster's or is its x.y; "" when none.
std::string ReleaseImageFor(const types::v1::Cluster& cluster,
                            const std::vector<ReleaseImage>& catalog);

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_RELEASE_IMAGES_H_
