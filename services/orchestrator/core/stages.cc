// File: services/orchestrator/core/stages.cc

#include "services/orchestrator/core/stages.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "services/orchestrator/core/names.h"

namespace assisted::orchestrator::core {

namespace {

using types::v1::HostStage;

int IndexOf(const std::vector<HostStage>& stages, HostStage stage) {
  auto it = std::find(stages.begin(), stages.end(), stage);
  return it == stages.end() ? -1 : static_cast<int>(it - stages.begin());
}

absl::string_view ProfileName(StageProfile profile) {
  switch (profile) {
    case StageProfile::kBootstrap:
      return "bootstrap";
    case StageProfile::kMaster:
      return "master";
    case StageProfile::kWorker:
      return "worker";
    case StageProfile::kSno:
      return "single-node";
  }
  return "unknown";
}

}  // namespace

StageProfile ProfileOf(types::v1::HostRole role, bool bootstrap, bool sno) {
  if (sno) return StageProfile::kSno;
  if (bootstrap || role == types::v1::HOST_ROLE_BOOTSTRAP) return StageProfile::kBootstrap;
  if (role == types::v1::HOST_ROLE_MASTER || role == types::v1::HOST_ROLE_ARBITER) {
    return StageProfile::kMaster;
  }
  return StageProfile::kWorker;
}

const std::vector<HostStage>& StagesFor(StageProfile profile) {
  using namespace types::v1;  // NOLINT: the stage list reads better unqualified
  static const auto* const kBootstrap =
      new std::vector<HostStage>{HOST_STAGE_STARTING_INSTALLATION,
                                 HOST_STAGE_INSTALLING,
                                 HOST_STAGE_WRITING_IMAGE_TO_DISK,
                                 HOST_STAGE_COPYING_REGISTRY_DATA_TO_DISK,
                                 HOST_STAGE_WAITING_FOR_CONTROL_PLANE,
                                 HOST_STAGE_WAITING_FOR_BOOTKUBE,
                                 HOST_STAGE_WAITING_FOR_CONTROLLER,
                                 HOST_STAGE_REBOOTING,
                                 HOST_STAGE_CONFIGURING,
                                 HOST_STAGE_JOINED,
                                 HOST_STAGE_DONE};
  static const auto* const kMaster =
      new std::vector<HostStage>{HOST_STAGE_STARTING_INSTALLATION,
                                 HOST_STAGE_INSTALLING,
                                 HOST_STAGE_WRITING_IMAGE_TO_DISK,
                                 HOST_STAGE_COPYING_REGISTRY_DATA_TO_DISK,
                                 HOST_STAGE_REBOOTING,
                                 HOST_STAGE_CONFIGURING,
                                 HOST_STAGE_JOINED,
                                 HOST_STAGE_DONE};
  static const auto* const kWorker =
      new std::vector<HostStage>{HOST_STAGE_STARTING_INSTALLATION,
                                 HOST_STAGE_INSTALLING,
                                 HOST_STAGE_WRITING_IMAGE_TO_DISK,
                                 HOST_STAGE_WAITING_FOR_CONTROL_PLANE,
                                 HOST_STAGE_REBOOTING,
                                 HOST_STAGE_WAITING_FOR_IGNITION,
                                 HOST_STAGE_CONFIGURING,
                                 HOST_STAGE_JOINED,
                                 HOST_STAGE_DONE};
  static const auto* const kSno =
      new std::vector<HostStage>{HOST_STAGE_STARTING_INSTALLATION,
                                 HOST_STAGE_INSTALLING,
                                 HOST_STAGE_WAITING_FOR_BOOTKUBE,
                                 HOST_STAGE_WRITING_IMAGE_TO_DISK,
                                 HOST_STAGE_COPYING_REGISTRY_DATA_TO_DISK,
                                 HOST_STAGE_REBOOTING,
                                 HOST_STAGE_JOINED,
                                 HOST_STAGE_DONE};
  switch (profile) {
    case StageProfile::kBootstrap:
      return *kBootstrap;
    case StageProfile::kMaster:
      return *kMaster;
    case StageProfile::kWorker:
      return *kWorker;
    case StageProfile::kSno:
      return *kSno;
  }
  return *kWorker;
}

int InstallationPercentage(StageProfile profile, HostStage stage) {
  const std::vector<HostStage>& stages = StagesFor(profile);
  int index = IndexOf(stages, stage);
  if (index < 0) return 0;
  return (index + 1) * 100 / static_cast<int>(stages.size());
}

bool IsAfterReboot(HostStage stage) {
  switch (stage) {
    case types::v1::HOST_STAGE_REBOOTING:
    case types::v1::HOST_STAGE_WAITING_FOR_IGNITION:
    case types::v1::HOST_STAGE_CONFIGURING:
    case types::v1::HOST_STAGE_JOINED:
    case types::v1::HOST_STAGE_DONE:
      return true;
    default:
      return false;
  }
}

absl::Status CheckStageUpdate(StageProfile profile, HostStage current, HostStage next) {
  if (next == types::v1::HOST_STAGE_FAILED || next == current) return absl::OkStatus();
  const std::vector<HostStage>& stages = StagesFor(profile);
  int to = IndexOf(stages, next);
  if (to < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stage \"", HostStageName(next), "\" is not a stage of a ", ProfileName(profile), " host"));
  }
  if (to < IndexOf(stages, current)) {
    return absl::FailedPreconditionError(
        absl::StrCat("stages may not go backwards: the host is at \"", HostStageName(current),
                     "\" and reported \"", HostStageName(next), "\""));
  }
  return absl::OkStatus();
}

}  // namespace assisted::orchestrator::core
