// File: services/orchestrator/actions/cluster_actions.h
//
// The user's actions on a cluster, decided by the core's cluster table and written by the one
// refresher (action_context.h):
// - InstallCluster: refresh, require `ready` (FAILED_PRECONDITION naming the current status),
//   auto-assign roles (core/roles.h), choose the bootstrap host, move the cluster to
//   preparing-for-installation (PrepareForInstallation row). The refresh that follows generates
//   the installation files once (install/artifacts.h, through the refresher) and walks hosts
//   through preparing to installing as the tables say; a preparing cluster whose files are not
//   all stored yet (a restart midway) generates them again on its next refresh.
// - CancelInstallation and ResetCluster (their rows carry the hosts along), AllowAddWorkers
//   (day 2), RefreshCluster and GetClusterValidations.
// - The user's customisations before installation (insufficient, ready, pending-for-input;
//   FAILED_PRECONDITION naming the status otherwise): SetIgnoredValidations (only known,
//   ignorable ids: core/validation_ids.h) and UpdateInstallConfig (overrides checked as the
//   generator applies them, and by generating the document when the cluster can have one);
//   GetInstallConfig renders the document the installation would use now.
// - The user's manifests (install/manifests.h): listed and read in any status; created, updated
//   and deleted only before installation, each write judging the cluster again (a third-party
//   network plugin needs them).
// - Questions answered from the validations' own rules, in any status: GetPreflightRequirements
//   and GetSupportedPlatforms.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_CLUSTER_ACTIONS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_CLUSTER_ACTIONS_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "assisted/orchestrator/v1/orchestrator_service.pb.h"
#include "assisted/types/v1/cluster.pb.h"
#include "services/orchestrator/actions/action_context.h"

namespace assisted::orchestrator::actions {

class ClusterActions {
 public:
  // `context` must outlive the actions.
  explicit ClusterActions(ActionContext& context) : context_(context) {}

  absl::StatusOr<types::v1::Cluster> InstallCluster(const std::string& cluster_id);
  absl::StatusOr<types::v1::Cluster> CancelInstallation(const std::string& cluster_id);
  absl::StatusOr<types::v1::Cluster> ResetCluster(const std::string& cluster_id);
  absl::StatusOr<types::v1::Cluster> AllowAddWorkers(const std::string& cluster_id);
  // Re-evaluates every host and the cluster until nothing changes (bounded), generating missing
  // installation files of a preparing cluster first. Returns the cluster with its hosts.
  absl::StatusOr<types::v1::Cluster> RefreshCluster(const std::string& cluster_id);
  absl::StatusOr<v1::GetClusterValidationsResponse> GetClusterValidations(
      const std::string& cluster_id);
  absl::StatusOr<types::v1::Cluster> SetIgnoredValidations(
      const v1::SetIgnoredValidationsRequest& request);
  absl::StatusOr<std::string> GetInstallConfig(const std::string& cluster_id);
  absl::StatusOr<types::v1::Cluster> UpdateInstallConfig(const std::string& cluster_id,
                                                         const std::string& overrides);
  // What the host validations hold each role's hosts to (core::PreflightRequirementsOf).
  absl::StatusOr<v1::PreflightRequirements> GetPreflightRequirements(const std::string& cluster_id);
  // The platforms every host of the cluster is compatible with (core::SupportedPlatforms).
  absl::StatusOr<v1::GetSupportedPlatformsResponse> GetSupportedPlatforms(
      const std::string& cluster_id);

  // The user's manifests, by folder then file name (content left empty).
  absl::StatusOr<v1::ListClusterManifestsResponse> ListManifests(const std::string& cluster_id);
  // One manifest with its content; NOT_FOUND when absent.
  absl::StatusOr<v1::ClusterManifest> GetManifest(const v1::ClusterManifestRef& ref);
  // Stores a new manifest: INVALID_ARGUMENT naming folder, file_name or content; ALREADY_EXISTS.
  absl::StatusOr<v1::ClusterManifest> CreateManifest(const v1::ClusterManifest& manifest);
  // Moves, renames and/or replaces a manifest's content (checked as CreateManifest).
  absl::StatusOr<v1::ClusterManifest> UpdateManifest(
      const v1::UpdateClusterManifestRequest& request);
  // Removes a manifest; NOT_FOUND when absent.
  absl::StatusOr<v1::ClusterManifestRef> DeleteManifest(const v1::ClusterManifestRef& ref);

 private:
  // InstallCluster's first half: requires `ready`, writes auto-assigned roles and picks the
  // bootstrap host. ABORTED when a host changed meanwhile (the caller retries).
  absl::Status AssignRolesAndBootstrap(const std::string& cluster_id);
  // The rendezvous IP of the cluster's agent-based infra-env (the first of its infra-envs that
  // names one): the host holding it, node 0, is the bootstrap host. nullopt when none does.
  absl::StatusOr<std::optional<std::string>> RendezvousIp(const std::string& cluster_id);
  // FAILED_PRECONDITION naming the status unless the cluster is not installing yet.
  absl::Status RequireCustomisable(const std::string& cluster_id);
  // Writes `update` to the cluster if it is not installing yet, then judges it again.
  absl::StatusOr<types::v1::Cluster> CustomiseBeforeInstall(
      const std::string& cluster_id, const core::ClusterFieldsUpdate& update);

  ActionContext& context_;
};

}  // namespace assisted::orchestrator::actions

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_CLUSTER_ACTIONS_H_
