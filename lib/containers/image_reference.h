// File: lib/containers/image_reference.h
//
// Container image references ("quay.io/ocp/release:4.16", "mirror.lab:5000/ocp@sha256:…") as
// the container tools read them: which registry a reference names, and whether it pulls by
// digest. Used by the agent's image check and by aictl's checks of the user's release image.

#ifndef ASSISTED_LIB_CONTAINERS_IMAGE_REFERENCE_H_
#define ASSISTED_LIB_CONTAINERS_IMAGE_REFERENCE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::containers {

// The registry host ("host[:port]") of an image reference; Docker Hub references
// ("ubuntu", "library/ubuntu:22.04") map to "registry-1.docker.io". INVALID_ARGUMENT for text
// that is not an image reference (at most 512 characters of letters, digits and "._-/:@[]").
absl::StatusOr<std::string> RegistryOf(absl::string_view image);

// True when `image` names its content by digest ("…@sha256:…").
bool PullsByDigest(absl::string_view image);

}  // namespace assisted::containers

#endif  // ASSISTED_LIB_CONTAINERS_IMAGE_REFERENCE_H_
