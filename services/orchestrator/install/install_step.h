// File: services/orchestrator/install/install_step.h
//
// The install step's argument: what the agent's install executor (services/agent/steps/install.h)
// needs to write a host's disk. args[0] of a STEP_TYPE_INSTALL step is this JSON object:
//
//   {"cluster_id": "...", "host_id": "...", "role": "master" | "worker", "bootstrap": bool,
//    "boot_device": "/dev/...", "installer_args": ["..."],
//    "os_image": {"url": "http(s)://... or file:///...", "sha256": "<hex>"},
//    "ignition": "<the host's full Ignition JSON text>",
//    "high_availability_mode": "Full" | "None"}
//
// role is the Machine Config pool the host joins (arbiters and the bootstrap host are masters;
// the bootstrap host additionally has "bootstrap": true).

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_INSTALL_STEP_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_INSTALL_STEP_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/step.pb.h"
#include "lib/random/random.h"

namespace assisted::orchestrator::install {

// The OS image hosts write to disk (orchestrator flags --os-image-url / --os-image-sha256).
struct OsImage {
  std::string url;     // http://, https:// or file://
  std::string sha256;  // lower-case hex of the image
};

// Checks an OsImage: INVALID_ARGUMENT naming "os_image.url" or "os_image.sha256".
absl::Status CheckOsImage(const OsImage& image);

class InstallStepBuilder {
 public:
  explicit InstallStepBuilder(OsImage image) : image_(std::move(image)) {}

  // args[0] for `host` of `cluster`. FAILED_PRECONDITION when the host has no installation
  // disk or no role; INVALID_ARGUMENT when `ignition` is empty.
  absl::StatusOr<std::string> Args(const types::v1::Cluster& cluster, const types::v1::Host& host,
                                   absl::string_view ignition) const;

  // A whole STEP_TYPE_INSTALL step with a fresh step id.
  absl::StatusOr<types::v1::Step> Step(const types::v1::Cluster& cluster,
                                       const types::v1::Host& host, absl::string_view ignition,
                                       Random& random) const;

 private:
  OsImage image_;
};

}  // namespace assisted::orchestrator::install

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_INSTALL_STEP_H_
