// File: services/agent/steps/orchestrator_view.h
//
// What the orchestrator makes of a step result: the host column it stores the output in (as in
// the reference's "step replies update host columns") read back with the orchestrator's own
// parsers from services/orchestrator/core/agent_reports.h. Executor tests run their real
// outputs through these, so an output format the orchestrator cannot read fails a test here.
//   connectivity-check            output as is            -> ParseConnectivity
//   domain-resolution             output as is            -> ParseDomainResolutions
//   ntp-synchronizer              output["ntp_sources"]   -> ParseNtpSources
//   container-image-availability  output["images"]        -> ParseImagesStatus
//   installation-disk-speed-check [{"path", "disk_speed": {"tested": true,
//                                  "speed_ms": io_sync_duration (0 when absent on failure),
//                                  "exit_code"}}] -> ParseDisksInfo

#ifndef ASSISTED_SERVICES_AGENT_STEPS_ORCHESTRATOR_VIEW_H_
#define ASSISTED_SERVICES_AGENT_STEPS_ORCHESTRATOR_VIEW_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "services/agent/steps/step_executor.h"
#include "services/orchestrator/core/agent_reports.h"

namespace assisted::agent::steps::testing {

namespace core = ::assisted::orchestrator::core;

absl::StatusOr<core::ConnectivityReport> OrchestratorConnectivity(const StepResult& result);
absl::StatusOr<std::vector<core::DomainResolution>> OrchestratorDomains(const StepResult& result);
absl::StatusOr<std::vector<core::NtpSource>> OrchestratorNtpSources(const StepResult& result);
absl::StatusOr<std::vector<core::ImageStatus>> OrchestratorImages(const StepResult& result);
absl::StatusOr<std::vector<core::DiskSpeed>> OrchestratorDiskSpeed(const StepResult& result);

}  // namespace assisted::agent::steps::testing

#endif  // ASSISTED_SERVICES_AGENT_STEPS_ORCHESTRATOR_VIEW_H_
