// File: services/agent/steps/image_availability.h
//
// container-image-availability: can this host reach the registries of the images the
// installation needs.
//   args:   [{"images": ["quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64", ...],
//             "timeout": <seconds for all images, default 960>}]
//   output: {"images": [{"name", "result": "success"|"failure", "size_bytes", "time" (s),
//            "download_rate" (MB/s)}]} in request order; exit code 2 when any image failed
//            (as the reference agent does), 0 otherwise.
// Each image is looked up where a pull of it would go: through the mirror rules of the host's
// registries.conf (lib/containers/registries_conf.h: its mirrors in order, digest-only mirrors
// only for references by digest, then the source unless blocked); the first of those registries
// that answers makes the image available, and the report keeps the image's own name. A
// registries.conf that cannot be read fails every image, as it fails podman's pulls.
// Per registry, one GET of its /v2/ endpoint (the registry API's version check) with
// libcurl: 200 and 401 (the registry is up and wants a token) count as reachable, anything else
// (other statuses, DNS, TCP or TLS failures, timeout) does not. Images are not pulled:
// size_bytes is what that GET transferred (headers and body), time its duration, and
// download_rate size_bytes over the time from sending the request to the end of the response
// (connection and TLS setup excluded). Images are checked one after another within the shared
// timeout, each with at most request_timeout. Proxies come from the usual environment variables.

#ifndef ASSISTED_SERVICES_AGENT_STEPS_IMAGE_AVAILABILITY_H_
#define ASSISTED_SERVICES_AGENT_STEPS_IMAGE_AVAILABILITY_H_

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/containers/registries_conf.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

struct ImageAvailabilityOptions {
  absl::Duration request_timeout = absl::Seconds(30);  // per image
  absl::Duration default_timeout = absl::Minutes(16);  // for all images, when args give none
  std::set<std::string> plain_http_registries;         // "host:port" reached over http://
  std::string ca_bundle;                               // extra trust; empty: system roots
  // The host's mirror rules; a missing file means none. Empty: no mirrors (unit tests).
  std::string registries_conf = "/etc/containers/registries.conf";
  size_t max_images = 32;
};

// GETs `url` with libcurl, at most `timeout`, giving up early when `cancellation` is set.
RegistryAnswer ProbeRegistry(const std::string& url, absl::Duration timeout,
                             const std::string& ca_bundle, const Cancellation& cancellation);

// The mirror rules of the registries.conf at `path`; none when the path is empty or the file
// does not exist. INVALID_ARGUMENT naming the path and line when it cannot be read.
absl::StatusOr<std::vector<containers::MirrorRule>> ReadMirrorRules(const std::string& path);

// Where a pull of `image` would go (containers::PullReferences over `rules`), each registry's
// /v2/ probed in order, each within `budget()`, until one answers 200 or 401.
struct ImageLookUp {
  RegistryAnswer answer;  // the answering registry's, else the last one's
  std::string reference;  // the reference that answer is for; empty when none was probed
};
ImageLookUp LookUpImage(const std::string& image, const std::vector<containers::MirrorRule>& rules,
                        const ImageAvailabilityOptions& options,
                        const std::function<absl::Duration()>& budget,
                        const Cancellation& cancellation);

class ImageAvailability final : public StepExecutor {
 public:
  explicit ImageAvailability(ImageAvailabilityOptions options) : options_(std::move(options)) {}

  StepType type() const override { return types::v1::STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY; }
  absl::Duration default_timeout() const override { return absl::Minutes(17); }
  StepResult Run(const Step& step, StepContext& context) override;

 private:
  const ImageAvailabilityOptions options_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_IMAGE_AVAILABILITY_H_
