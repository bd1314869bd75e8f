// File: services/orchestrator/actions/host_actions.h
//
// The user's actions on one host, decided by the core's host table and written by the one
// refresher (action_context.h): day-2 install, reset, edits (role, name, installation disk, ...)
// until its installation begins, late binding (bind a pool host to a cluster, unbind it back);
// and the two host facts the agent hub asks of the actions: a
// new agent process on a known host (its register event) and the install step of a host in
// `installing`.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_HOST_ACTIONS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_HOST_ACTIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "assisted/orchestrator/v1/orchestrator_service.pb.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/step.pb.h"
#include "services/orchestrator/actions/action_context.h"
#include "services/orchestrator/install/install_step.h"

namespace assisted::orchestrator::actions {

class HostActions {
 public:
  // `context` must outlive the actions.
  explicit HostActions(ActionContext& context)
      : context_(context), steps_(context.options.os_image) {}

  absl::StatusOr<types::v1::Host> InstallHost(const std::string& infra_env_id,
                                              const std::string& host_id);
  absl::StatusOr<types::v1::Host> ResetHost(const std::string& infra_env_id,
                                            const std::string& host_id);
  absl::StatusOr<types::v1::Host> UpdateHost(const v1::UpdateHostRequest& request);
  // Clears the measurement behind a resettable validation (see the RPC's contract) and judges
  // the host's cluster again.
  absl::StatusOr<types::v1::Host> ResetHostValidation(
      const v1::ResetHostValidationRequest& request);

  // Late binding. BindHost moves a pool host (its infra-env has no cluster, or `cluster_id`
  // itself) into `cluster_id` and refreshes the cluster: the host is answered as judged there
  // (known when its checks pass). The cluster must be the host's tenant's (NOT_FOUND
  // otherwise, as for an unknown one), accept hosts (insufficient, ready, pending-for-input,
  // adding-hosts) and install the infra-env's architecture (or multi). UnbindHost releases a
  // bound host of a cluster-less infra-env back to its pool and refreshes both: before its
  // installation began the host is judged in the pool, after it waits unbound for the user to
  // reboot it into the discovery image. Refusals name the field at fault.
  absl::StatusOr<types::v1::Host> BindHost(const std::string& infra_env_id,
                                           const std::string& host_id,
                                           const std::string& cluster_id);
  absl::StatusOr<types::v1::Host> UnbindHost(const std::string& infra_env_id,
                                             const std::string& host_id);

  // A new agent process registered for `host` (it booted the discovery image again): fires the
  // host state machine's register event and writes its decision. A state with no register row
  // keeps its status (OK, host unchanged).
  absl::StatusOr<types::v1::Host> RegisterAgain(const types::v1::Host& host);

  // The instructions of a host in `installing` of `cluster`: one STEP_TYPE_INSTALL step
  // (install/install_step.h) carrying host-<id>.ign. Empty for hosts in any other status.
  absl::StatusOr<std::vector<types::v1::Step>> InstallInstructions(
      const types::v1::Host& host, const types::v1::Cluster& cluster);

 private:
  absl::StatusOr<types::v1::Host> InstallHostOnce(const std::string& infra_env_id,
                                                  const std::string& host_id);

  ActionContext& context_;
  install::InstallStepBuilder steps_;
};

}  // namespace assisted::orchestrator::actions

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_HOST_ACTIONS_H_
