// File: services/orchestrator/actions/user_actions.h
//
// Every user action, in one place to construct: the shared context (action_context.h) and the
// actions on clusters (cluster_actions.h), on hosts (host_actions.h) and on installation
// progress (progress.h). The OrchestratorService (orchestrator_service.h) and the agent hub's
// seams (agent_seams.h) call them.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_USER_ACTIONS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_USER_ACTIONS_H_

#include <utility>

#include "services/orchestrator/actions/action_context.h"
#include "services/orchestrator/actions/cluster_actions.h"
#include "services/orchestrator/actions/host_actions.h"
#include "services/orchestrator/actions/progress.h"

namespace assisted::orchestrator::actions {

class UserActions {
 public:
  // `inventory` and the parts must outlive the actions.
  UserActions(InventoryPort& inventory, ActionsOptions options, const Clock& clock, Random& random,
              log::Logger log, ActionsParts parts)
      : context_(inventory, std::move(options), clock, random, std::move(log), parts),
        clusters_(context_),
        hosts_(context_),
        progress_(context_) {}

  ClusterActions& clusters() { return clusters_; }
  HostActions& hosts() { return hosts_; }
  ProgressActions& progress() { return progress_; }

 private:
  ActionContext context_;
  ClusterActions clusters_;
  HostActions hosts_;
  ProgressActions progress_;
};

}  // namespace assisted::orchestrator::actions

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_USER_ACTIONS_H_
