// File: services/orchestrator/core/names.h
//
// Canonical strings of the shared enums, exactly as the reference API spells them
// ("installing-in-progress", "Writing image to disk", "connectivity-check", ...). Used in status
// messages, step ids and the generated docs. Values outside the enums print as "unknown".
// The spelling itself lives in lib/enums/spelling.h (shared with the gateway and aictl); these
// are its typed names for the core.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_NAMES_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_NAMES_H_

#include <string>

#include "absl/strings/string_view.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/step.pb.h"
#include "assisted/types/v1/validation.pb.h"

namespace assisted::orchestrator::core {

// "" for UNSPECIFIED (the state of a host that does not exist yet).
absl::string_view HostStatusName(types::v1::HostStatus status);
absl::string_view ClusterStatusName(types::v1::ClusterStatus status);
// "Starting installation", ..., "" for UNSPECIFIED.
absl::string_view HostStageName(types::v1::HostStage stage);
// "auto-assign", "master", "arbiter", "worker", "bootstrap".
absl::string_view HostRoleName(types::v1::HostRole role);
// "connectivity-check", ...; also the prefix of step ids.
absl::string_view StepTypeName(types::v1::StepType type);
// "Waiting for cluster operators", ...
absl::string_view FinalizingStageName(types::v1::FinalizingStage stage);
// "success", "failure", "pending", "error", "disabled", "success-suppress-output".
absl::string_view ValidationStatusName(types::v1::ValidationStatus status);
// "hardware", "network", "operators", "hosts-data", "configuration".
absl::string_view ValidationCategoryName(types::v1::ValidationCategory category);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_NAMES_H_
