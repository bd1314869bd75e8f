// File: lib/enums/architecture.h
//
// The two spellings of a CPU architecture, side by side so neither is re-invented:
// - the REST API's (`cpu_architecture` of a cluster or infra-env), which keeps "arm64" and
//   "aarch64" apart as the user wrote them: EnumText(arch) from lib/enums/spelling.h;
// - the OS side's (RHCOS base images, release payloads, hardware requirement rules), which knows
//   one 64-bit ARM, "aarch64": OsImageArchitecture below. Looking up an image by the REST
//   spelling finds nothing for an "arm64" cluster, which is why the image service and the
//   orchestrator must both use this one.

#ifndef ASSISTED_LIB_ENUMS_ARCHITECTURE_H_
#define ASSISTED_LIB_ENUMS_ARCHITECTURE_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "assisted/types/v1/common.pb.h"

namespace assisted::enums {

// "x86_64", "aarch64" (for AARCH64 and its alias ARM64), "ppc64le" or "s390x". UNSPECIFIED,
// MULTI and numbers this build does not name read "x86_64", the architecture the services
// default to (a multi-architecture cluster's hosts are judged and booted as x86_64 unless they
// say otherwise).
absl::string_view OsImageArchitecture(types::v1::CpuArchitecture architecture);

// The enum value an OS-side name stands for ("aarch64" -> AARCH64). "arm64", which upstream's
// OS_IMAGES and RELEASE_IMAGES lists use, is accepted as the alias it is (AARCH64) so an operator's
// list in either spelling serves arm clusters. nullopt for any other text.
std::optional<types::v1::CpuArchitecture> CpuArchitectureFromOsImageName(absl::string_view name);

// `name` as OsImageArchitecture spells it when it names an architecture ("arm64" -> "aarch64"),
// else unchanged: what catalogs store, so lookups by OsImageArchitecture find every entry.
std::string CanonicalOsImageArchitecture(absl::string_view name);

}  // namespace assisted::enums

#endif  // ASSISTED_LIB_ENUMS_ARCHITECTURE_H_
