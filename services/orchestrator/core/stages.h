// File: services/orchestrator/core/stages.h
//
// The installation stages each kind of host goes through, in order, and what follows from them:
// the host's installation percentage, whether the agent is expected to be gone (after Rebooting)
// and whether a reported stage is allowed (stages only move forward).
//
//   const std::vector<HostStage>& stages = StagesFor(StageProfile::kBootstrap);
//   int pct = InstallationPercentage(StageProfile::kWorker, HOST_STAGE_REBOOTING);  // 55

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_STAGES_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_STAGES_H_

#include <vector>

#include "absl/status/status.h"
#include "assisted/types/v1/host.pb.h"

namespace assisted::orchestrator::core {

// Which stage list a host follows.
enum class StageProfile {
  kBootstrap,  // the master that runs the temporary bootstrap control plane
  kMaster,     // other masters and arbiters
  kWorker,     // day-1 and day-2 workers
  kSno,        // the single node of single-node OpenShift (bootstrap in place)
};

// The profile of a host with `role` (BOOTSTRAP, or `bootstrap` set, selects kBootstrap; ARBITER
// follows kMaster; AUTO_ASSIGN and UNSPECIFIED, which never install, follow kWorker).
StageProfile ProfileOf(types::v1::HostRole role, bool bootstrap, bool sno);

// The ordered stages of a profile, ending with DONE (FAILED is in no list).
const std::vector<types::v1::HostStage>& StagesFor(StageProfile profile);

// (index of `stage` + 1) / (number of stages) * 100, rounded down; 0 for UNSPECIFIED, FAILED or
// a stage not in the profile. DONE is always 100.
int InstallationPercentage(StageProfile profile, types::v1::HostStage stage);

// True for Rebooting and every stage after it: the discovery agent is gone, so the
// disconnection limit no longer applies.
bool IsAfterReboot(types::v1::HostStage stage);

// Whether a host at `current` may report `next`. OK when `next` is FAILED, equals `current`
// (progress text updates) or comes later in the profile. FAILED_PRECONDITION ("stages may not go
// backwards") when it comes earlier; INVALID_ARGUMENT when `next` is not a stage of the profile.
absl::Status CheckStageUpdate(StageProfile profile, types::v1::HostStage current,
                              types::v1::HostStage next);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_STAGES_H_
