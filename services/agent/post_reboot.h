// File: services/agent/post_reboot.h
//
// The post-reboot reports: what a host's installed OS tells the orchestrator after the install
// step's reboot, the role upstream's assisted-installer-controller plays. ONE sequence for its
// two users:
//   - assisted-reporter (reporter_main.cc), which assisted-reporter.service runs on the installed
//     OS's boots until it finished, with the settings the install step wrote to the boot
//     partition (steps/reporter_settings.h): ReportAll;
//   - the fleet's simulated hosts (fleet.h), one call at a time on their shared pool:
//     PostRebootReports, CallReport, RetryDelay.
// The calls go to ControllerService on the agent port, each with the cluster-scoped controller
// token as bearer (proto/assisted/orchestrator/v1/controller_service.proto):
//   1. UpdateHostProgress with each stage of StagesAfterReboot (steps/install.h); SNO: Joined,
//      Done;
//   2. the bootstrap host only (an SNO's one host is its bootstrap host): UpdateFinalizingProgress
//      through FINALIZING_STAGE_DONE, with ReportOperatorStatus of each of settings.olm_operators
//      progressing after the OLM manifests are applied and available before Done, then
//      CompleteInstallation(is_success): the cluster is installed.
// A refused call is retried after RetryDelay: the orchestrator refuses CompleteInstallation
// before the cluster is finalizing, and nothing answers while it restarts.
//
//   for (const ControllerReport& report : PostRebootReports(settings)) { ... }
//   RETURN_IF_ERROR(ReportAll(settings, {}, log));

#ifndef ASSISTED_SERVICES_AGENT_POST_REBOOT_H_
#define ASSISTED_SERVICES_AGENT_POST_REBOOT_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "assisted/orchestrator/v1/controller_service.grpc.pb.h"
#include "lib/log/log.h"
#include "services/agent/steps/reporter_settings.h"

namespace assisted::agent {

// One call of the post-reboot reporter.
struct ControllerReport {
  // the HostStage or FinalizingStage name, "<operator> <OperatorStatus>", or
  // "CompleteInstallation"
  std::string name;
  std::function<grpc::Status(orchestrator::v1::ControllerService::Stub&, grpc::ClientContext&)>
      call;
};

// The calls for the host of `settings`, in order (see above).
std::vector<ControllerReport> PostRebootReports(const steps::ReporterSettings& settings);

// Makes `report` once, with `token` as bearer, within `timeout` (waiting for the channel to
// connect within it).
grpc::Status CallReport(orchestrator::v1::ControllerService::Stub& stub, const std::string& token,
                        const ControllerReport& report, absl::Duration timeout);

// The wait before retrying a report refused `attempt + 1` times: 100 ms more per attempt, at
// most 5 s.
absl::Duration RetryDelay(int attempt);

struct ReportAllOptions {
  absl::Duration call_timeout = absl::Seconds(10);
  // Give up on a report refused for this long (the service: never; tests: bounded).
  absl::Duration give_up_after = absl::InfiniteDuration();
};

// Makes every report of PostRebootReports(settings) in order over a channel to
// settings.access, each retried until it succeeds; logs each report made (never the token).
// INVALID_ARGUMENT for an unusable CA bundle; DEADLINE_EXCEEDED naming the report and its last
// error once one was refused for options.give_up_after.
absl::Status ReportAll(const steps::ReporterSettings& settings, const ReportAllOptions& options,
                       const log::Logger& log);

}  // namespace assisted::agent

#endif  // ASSISTED_SERVICES_AGENT_POST_REBOOT_H_
