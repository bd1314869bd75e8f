// File: services/agent/steps/orchestrator_view.h
//
// What the orchestrator makes of a step result: the typed report in the result's member for its
// step type, stored in the Host field the orchestrator keeps it in, read back with the
// orchestrator's own view (services/orchestrator/core/agent_reports.h). Executor tests run
// their real results through these, so a report the orchestrator cannot read fails a test here.
//   connectivity-check            connectivity          -> connectivity_report
//   domain-resolution             domain_resolution     -> domain_name_resolutions_report
//   ntp-synchronizer              ntp_synchronization   -> ntp_sources_report
//   container-image-availability  image_availability    -> images_status_report
//   installation-disk-speed-check disk_speed            -> one disks_info_report entry:
//                                  {path, tested, speed_ms: io_sync_duration (0 on failure),
//                                   exit_code}
// Each is INVALID_ARGUMENT when the result lacks that member.
//
// ReferenceText is the report as the reference's JSON (lib/step_reports), for tests that pin
// the text the reference agent printed.

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

// The result's typed report as the reference agent's JSON output; "" when it has none.
std::string ReferenceText(const StepResult& result);

}  // namespace assisted::agent::steps::testing

#endif  // ASSISTED_SERVICES_AGENT_STEPS_ORCHESTRATOR_VIEW_H_
