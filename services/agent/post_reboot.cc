// File: services/agent/post_reboot.cc

#include "services/agent/post_reboot.h"

#include "absl/strings/str_cat.h"
#include "lib/grpc/channel.h"
#include "lib/status/status_macros.h"
#include "services/agent/protocol_session.h"
#include "services/agent/steps/install.h"

namespace assisted::agent {

namespace ov1 = orchestrator::v1;

std::vector<ControllerReport> PostRebootReports(const steps::ReporterSettings& settings) {
  steps::InstallRequest host;
  host.role = settings.role;
  host.bootstrap = settings.bootstrap;
  host.sno = settings.sno;
  std::vector<ControllerReport> reports;
  for (types::v1::HostStage stage : steps::StagesAfterReboot(host)) {
    ov1::UpdateHostProgressRequest update;
    update.set_infra_env_id(settings.access.infra_env_id);
    update.set_host_id(settings.host_id);
    update.set_current_stage(stage);
    reports.push_back({types::v1::HostStage_Name(stage),
                       [update](ov1::ControllerService::Stub& stub, grpc::ClientContext& c) {
                         types::v1::Host updated;
                         return stub.UpdateHostProgress(&c, update, &updated);
                       }});
  }
  if (!settings.bootstrap) return reports;
  // Each OLM operator's status: progressing once its manifests are applied, available once
  // its CSV is (the installed OS here runs no OLM to read the CSVs from: the reporter plays the
  // controller, as it does for the cluster operators).
  auto report_operators = [&](types::v1::OperatorStatus status, const char* info) {
    for (const std::string& name : settings.olm_operators) {
      ov1::ReportOperatorStatusRequest report;
      report.set_cluster_id(settings.cluster_id);
      report.set_name(name);
      report.set_status(status);
      report.set_status_info(info);
      reports.push_back({absl::StrCat(name, " ", types::v1::OperatorStatus_Name(status)),
                         [report](ov1::ControllerService::Stub& stub, grpc::ClientContext& c) {
                           types::v1::Cluster cluster;
                           return stub.ReportOperatorStatus(&c, report, &cluster);
                         }});
    }
  };
  for (types::v1::FinalizingStage stage :
       {types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS,
        types::v1::FINALIZING_STAGE_ADDING_ROUTER_CA,
        types::v1::FINALIZING_STAGE_APPLYING_OLM_MANIFESTS,
        types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION,
        types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV,
        types::v1::FINALIZING_STAGE_DONE}) {
    if (stage == types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION) {
      report_operators(types::v1::OPERATOR_STATUS_PROGRESSING, "installing");
    }
    if (stage == types::v1::FINALIZING_STAGE_DONE) {
      report_operators(types::v1::OPERATOR_STATUS_AVAILABLE, "install strategy completed");
    }
    ov1::UpdateFinalizingProgressRequest update;
    update.set_cluster_id(settings.cluster_id);
    update.set_finalizing_stage(stage);
    reports.push_back({types::v1::FinalizingStage_Name(stage),
                       [update](ov1::ControllerService::Stub& stub, grpc::ClientContext& c) {
                         types::v1::Cluster cluster;
                         return stub.UpdateFinalizingProgress(&c, update, &cluster);
                       }});
  }
  ov1::CompleteInstallationRequest complete;
  complete.set_cluster_id(settings.cluster_id);
  complete.set_is_success(true);
  reports.push_back({"CompleteInstallation",
                     [complete](ov1::ControllerService::Stub& stub, grpc::ClientContext& c) {
                       types::v1::Cluster cluster;
                       return stub.CompleteInstallation(&c, complete, &cluster);
                     }});
  return reports;
}

grpc::Status CallReport(ov1::ControllerService::Stub& stub, const std::string& token,
                        const ControllerReport& report, absl::Duration timeout) {
  std::unique_ptr<grpc::ClientContext> context = grpcutil::ContextWithin(timeout);
  AddBearerToken(*context, token);
  return report.call(stub, *context);
}

absl::Duration RetryDelay(int attempt) {
  return std::min(absl::Milliseconds(100) * (attempt + 1), absl::Seconds(5));
}

absl::Status ReportAll(const steps::ReporterSettings& settings, const ReportAllOptions& options,
                       const log::Logger& log) {
  grpcutil::ChannelOptions channel_options;
  channel_options.tls = settings.access.tls;
  channel_options.ca_bundle_pem = settings.access.ca_bundle_pem;
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::Channel> channel,
                   grpcutil::MakeChannel(settings.access.orchestrator_address, channel_options));
  std::unique_ptr<ov1::ControllerService::Stub> stub = ov1::ControllerService::NewStub(channel);
  for (const ControllerReport& report : PostRebootReports(settings)) {
    const absl::Time first = absl::Now();
    for (int attempt = 0;; ++attempt) {
      const grpc::Status status =
          CallReport(*stub, settings.access.controller_token, report, options.call_timeout);
      if (status.ok()) {
        log.Info("reported", {{"report", report.name}, {"attempts", attempt + 1}});
        break;
      }
      if (absl::Now() - first >= options.give_up_after) {
        return absl::DeadlineExceededError(
            absl::StrCat("the orchestrator refused ", report.name, ": ", status.error_message()));
      }
      // Every tenth refusal is worth a line; the others only make the journal longer.
      if (attempt % 10 == 0) {
        log.Warning("report refused; retrying",
                    {{"report", report.name}, {"error", status.error_message()}});
      }
      absl::SleepFor(RetryDelay(attempt));
    }
  }
  return absl::OkStatus();
}

}  // namespace assisted::agent
