#include "services/orchestrator/actions/action_context.h"

#include <utility>

#include "lib/status/status_macros.h"
#include "services/orchestrator/core/cluster_state_machine.h"
#include "services/orchestrator/core/host_state_machine.h"

namespace assisted::orchestrator::actions {

namespace inv = inventory::v1;
using types::v1::Cluster;
using types::v1::Host;

ActionContext::ActionContext(InventoryPort& inventory_port, ActionsOptions action_options,
                             const Clock& action_clock, Random& action_random, log::Logger logger,
                             ActionsParts parts)
    : inventory(inventory_port),
      options(std::move(action_options)),
      clock(action_clock),
      random(action_random),
      log(std::move(logger)),
      refresher(parts.refresher),
      events(parts.events),
      files(parts.files) {}

void ActionContext::Event(const std::string& name, const std::string& cluster_id, const Host* host,
                          const std::string& message, types::v1::EventSeverity severity) const {
  types::v1::Event event = host != nullptr ? HostEvent(*host, name, message, severity)
                                           : ClusterEvent(cluster_id, name, message, severity);
  event.set_cluster_id(cluster_id);
  events.Emit(std::move(event));
}

absl::StatusOr<std::unique_ptr<ActionContext::Loaded>> ActionContext::Load(
    const std::string& cluster_id) const {
  auto loaded = std::make_unique<Loaded>();
  ASSIGN_OR_RETURN(loaded->cluster, inventory.GetCluster(cluster_id, /*with_hosts=*/true));
  loaded->hosts.assign(loaded->cluster.hosts().begin(), loaded->cluster.hosts().end());
  loaded->cluster.clear_hosts();
  loaded->reports.reserve(loaded->hosts.size());
  for (const Host& host : loaded->hosts) loaded->reports.push_back(core::ReportsOf(host));
  for (size_t i = 0; i < loaded->hosts.size(); ++i) {
    loaded->pointers.push_back(&loaded->hosts[i]);
    loaded->views.push_back({&loaded->hosts[i], &loaded->reports[i]});
  }
  absl::StatusOr<inv::Artifact> artifact =
      inventory.GetArtifact(cluster_id, install::kKubeconfigName, /*metadata_only=*/true);
  if (!artifact.ok() && !absl::IsNotFound(artifact.status())) return artifact.status();
  loaded->kubeconfig_exists = artifact.ok();
  return loaded;
}

absl::StatusOr<Cluster> ActionContext::Refresh(const std::string& cluster_id) {
  ASSIGN_OR_RETURN(RefreshOutcome outcome, refresher.RefreshCluster(cluster_id));
  Cluster cluster = *std::move(outcome.cluster);
  for (Host& host : outcome.hosts) *cluster.add_hosts() = std::move(host);
  return cluster;
}

absl::Status ActionContext::JudgeAfterStoredChange(const std::string& cluster_id) {
  return ChangeThenJudge(cluster_id, [] { return absl::OkStatus(); });
}

absl::Status ActionContext::ChangeThenJudge(const std::string& cluster_id,
                                            absl::FunctionRef<absl::Status()> change) {
  absl::Status changed;
  const absl::Status judged = refresher
                                  .RefreshClusterAfter(cluster_id,
                                                       [&] {
                                                         changed = change();
                                                         return changed;
                                                       })
                                  .status();
  if (!changed.ok()) return changed;
  if (!absl::IsAborted(judged)) return judged;
  log.Info("another refresher judged the cluster first",
           {{"cluster_id", cluster_id}, {"race", judged.message()}});
  return absl::OkStatus();
}

absl::StatusOr<Cluster> ActionContext::FireCluster(const std::string& cluster_id,
                                                   core::ClusterEvent event,
                                                   core::ClusterFieldsUpdate fields) {
  absl::Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    ASSIGN_OR_RETURN(std::unique_ptr<Loaded> loaded, Load(cluster_id));
    const core::ClusterContext context =
        core::MakeClusterContext(loaded->cluster, loaded->pointers, nullptr, clock.Now(),
                                 options.timeouts, options.decisions, loaded->kubeconfig_exists);
    ASSIGN_OR_RETURN(core::ClusterDecision decision,
                     core::ClusterStateMachine().Fire(event, loaded->cluster.status(), context));
    absl::StatusOr<Cluster> written = refresher.Apply(loaded->cluster, decision, fields);
    if (absl::IsAborted(written.status())) {
      last = written.status();
      continue;
    }
    RETURN_IF_ERROR(written.status());
    ApplyClusterEffects(*loaded, decision);
    return inventory.GetCluster(cluster_id, /*with_hosts=*/true);
  }
  return last;
}

void ActionContext::ApplyClusterEffects(const Loaded& loaded,
                                        const core::ClusterDecision& decision) {
  const bool cancel = decision.Has(core::ClusterEffect::kCancelHosts);
  const bool reset = decision.Has(core::ClusterEffect::kResetHosts);
  if (!cancel && !reset) return;
  Cluster cluster = loaded.cluster;
  cluster.set_status(decision.to);
  for (const Host& host : loaded.hosts) {
    absl::StatusOr<Host> moved =
        FireHost(host, &cluster, cancel ? core::HostEvent::kCancel : core::HostEvent::kReset);
    if (!moved.ok() && !absl::IsFailedPrecondition(moved.status())) {
      log.Warning("cannot move a host with its cluster",
                  {{"host_id", host.id()}, {"error", moved.status().message()}});
    }
  }
  if (reset) {
    absl::Status deleted = inventory.DeleteArtifacts(
        cluster.id(), {inv::ARTIFACT_KIND_INSTALL_CONFIG, inv::ARTIFACT_KIND_IGNITION,
                       inv::ARTIFACT_KIND_CREDENTIALS, inv::ARTIFACT_KIND_METADATA});
    if (!deleted.ok()) {
      log.Warning("cannot delete the installation files",
                  {{"cluster_id", cluster.id()}, {"error", deleted.message()}});
    }
  }
}

absl::StatusOr<Host> ActionContext::FireHost(const Host& stored, const Cluster* cluster,
                                             core::HostEvent event,
                                             const core::HostFieldsUpdate& fields) {
  Host host = stored;
  absl::Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const core::HostContext context = core::MakeHostContext(
        host, cluster, {&host}, nullptr, clock.Now(), options.timeouts, options.decisions);
    ASSIGN_OR_RETURN(core::HostDecision decision,
                     core::HostStateMachine().Fire(event, host.status(), context));
    absl::StatusOr<Host> written = refresher.Apply(host, decision, fields);
    if (!absl::IsAborted(written.status())) return written;
    last = written.status();
    ASSIGN_OR_RETURN(host, inventory.GetHost(stored.infra_env_id(), stored.id()));
  }
  return last;
}

}  // namespace assisted::orchestrator::actions
