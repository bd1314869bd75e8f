// File: services/orchestrator/core/names.cc
//
// Typed doors onto lib/enums, the one place enum values are spelled: the core's messages, step
// ids and docs read exactly as the REST API does.

#include "services/orchestrator/core/names.h"

#include "lib/enums/spelling.h"

namespace assisted::orchestrator::core {

absl::string_view HostStatusName(types::v1::HostStatus status) {
  return enums::EnumTextOrUnknown(status);
}

absl::string_view ClusterStatusName(types::v1::ClusterStatus status) {
  return enums::EnumTextOrUnknown(status);
}

absl::string_view HostStageName(types::v1::HostStage stage) {
  return enums::EnumTextOrUnknown(stage);
}

absl::string_view HostRoleName(types::v1::HostRole role) { return enums::EnumTextOrUnknown(role); }

absl::string_view StepTypeName(types::v1::StepType type) { return enums::EnumTextOrUnknown(type); }

absl::string_view FinalizingStageName(types::v1::FinalizingStage stage) {
  return enums::EnumTextOrUnknown(stage);
}

absl::string_view ValidationStatusName(types::v1::ValidationStatus status) {
  return enums::EnumTextOrUnknown(status);
}

absl::string_view ValidationCategoryName(types::v1::ValidationCategory category) {
  return enums::EnumTextOrUnknown(category);
}

}  // namespace assisted::orchestrator::core
