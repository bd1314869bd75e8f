// File: services/orchestrator/actions/progress.h
//
// What installers report while a cluster installs, decided by the core's tables and written by
// the one refresher (action_context.h): host stages (UpdateHostProgress and agents' streams go
// through ApplyHostProgress only: stage order (core/stages.h), the Progress rows, the
// percentage), finalizing stages, monitored operators, the ingress CA, and the controller's
// completion report. Each ends with a refresh of the cluster, which moves on as the tables say.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_PROGRESS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_PROGRESS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "assisted/agent/v1/agent_service.pb.h"
#include "assisted/orchestrator/v1/orchestrator_service.pb.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "services/orchestrator/actions/action_context.h"

namespace assisted::orchestrator::actions {

class ProgressActions {
 public:
  // `context` must outlive the actions.
  explicit ProgressActions(ActionContext& context) : context_(context) {}

  // THE host progress function (UpdateHostProgress and agent streams). FAILED_PRECONDITION when
  // the stage goes backwards or the host is not installing; INVALID_ARGUMENT for a stage the
  // host's role never reaches.
  absl::StatusOr<types::v1::Host> ApplyHostProgress(const std::string& infra_env_id,
                                                    const std::string& host_id,
                                                    types::v1::HostStage stage,
                                                    const std::string& info);

  // An agent's progress report (AgentMessage.progress) for `host`, through ApplyHostProgress.
  // OK once applied, and also for reports that can never apply (a stage going backwards, a
  // host no longer installing: logged), so the agent stops re-sending them; transient errors
  // (inventory unavailable, a lost race) are returned for the agent to send again.
  absl::Status ApplyAgentProgress(const types::v1::Host& host, const agent::v1::Progress& progress);

  absl::StatusOr<types::v1::Cluster> UpdateFinalizingProgress(const std::string& cluster_id,
                                                              types::v1::FinalizingStage stage);
  // Records a monitored operator's state (NOT_FOUND naming an operator the cluster does not
  // monitor), then refreshes: finalizing completes once every operator is available.
  absl::StatusOr<types::v1::Cluster> ReportOperatorStatus(const v1::ReportOperatorStatusRequest&);
  // Stores the ingress CA and derives `kubeconfig` from `kubeconfig-noingress` with it.
  absl::StatusOr<types::v1::Cluster> UploadIngressCert(const std::string& cluster_id,
                                                       const std::string& ca_certificate);
  absl::StatusOr<types::v1::Cluster> CompleteInstallation(const std::string& cluster_id,
                                                          bool success,
                                                          const std::string& error_info);

 private:
  ActionContext& context_;
};

}  // namespace assisted::orchestrator::actions

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_PROGRESS_H_
