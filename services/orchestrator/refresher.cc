// File: services/orchestrator/refresher.cc

#include "services/orchestrator/refresher.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "lib/time/proto_time.h"
#include "services/orchestrator/core/agent_reports.h"
#include "services/orchestrator/core/cluster_facts.h"
#include "services/orchestrator/core/cluster_state_machine.h"
#include "services/orchestrator/core/cluster_validations.h"
#include "services/orchestrator/core/contexts.h"
#include "services/orchestrator/core/disk_eligibility.h"
#include "services/orchestrator/core/host_state_machine.h"
#include "services/orchestrator/core/host_validations.h"
#include "services/orchestrator/core/hw_requirements.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/roles.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator {
namespace {

using Validations = google::protobuf::RepeatedPtrField<types::v1::ValidationResult>;

struct ClusterChoices {
  core::DiskPolicy disk_policy;
  std::vector<core::RoleAssignment> roles;
};

std::string DisplayName(const types::v1::Host& host) {
  if (!host.requested_hostname().empty()) return host.requested_hostname();
  if (!host.inventory().hostname().empty()) return host.inventory().hostname();
  return host.id();
}

bool Passing(types::v1::ValidationStatus status) {
  return status == types::v1::VALIDATION_STATUS_SUCCESS ||
         status == types::v1::VALIDATION_STATUS_SUCCESS_SUPPRESS_OUTPUT;
}

bool Failing(types::v1::ValidationStatus status) {
  return status == types::v1::VALIDATION_STATUS_FAILURE ||
         status == types::v1::VALIDATION_STATUS_ERROR;
}

// Calls `failed(v)` for each validation of `after` that passed in `before` and now fails, and
// `fixed(v)` for each that failed and now passes (pending ones are not news).
template <typename Failed, typename Fixed>
void ForEachOutcomeFlip(const Validations& before, const Validations& after, Failed failed,
                        Fixed fixed) {
  absl::flat_hash_map<std::string, types::v1::ValidationStatus> previous;
  for (const types::v1::ValidationResult& v : before) previous[v.id()] = v.status();
  for (const types::v1::ValidationResult& v : after) {
    auto it = previous.find(v.id());
    if (it == previous.end()) continue;
    if (Passing(it->second) && Failing(v.status())) failed(v);
    if (Failing(it->second) && Passing(v.status())) fixed(v);
  }
}

// Events for validations that started failing or passed again.
void EmitValidationEvents(const types::v1::Host& host, const Validations& before,
                          const Validations& after, EventSink& events, InstallMetrics* metrics) {
  ForEachOutcomeFlip(
      before, after,
      [&](const types::v1::ValidationResult& v) {
        if (metrics != nullptr) metrics->HostValidationFailed(v.id());
        events.Emit(HostEvent(host, "host_validation_failed",
                              absl::StrCat("Host ", DisplayName(host), ": validation '", v.id(),
                                           "' that used to succeed is now failing: ", v.message()),
                              types::v1::EVENT_SEVERITY_WARNING));
      },
      [&](const types::v1::ValidationResult& v) {
        events.Emit(HostEvent(
            host, "host_validation_fixed",
            absl::StrCat("Host ", DisplayName(host), ": validation '", v.id(), "' is now fixed")));
      });
}

// Whether the cluster still takes choices about its hosts: before installing, and while adding
// day-2 hosts (the role-dependent validations read suggested_role).
bool ChoosingHosts(types::v1::ClusterStatus status) {
  using namespace core::cluster_status;  // NOLINT
  return status == kPendingForInput || status == kInsufficient || status == kReady ||
         status == kAddingHosts;
}

// Host fields the service chooses while the user has not: the installation disk (the first disk
// eligible for every role the host could take) and, for auto-assign hosts of a cluster, the
// suggested role. Applied to `observed` (so the validations judge them) and recorded in
// `updates` (written with the host's next compare-and-set).
void ChooseForUser(const ClusterChoices& choices, std::vector<types::v1::Host>& observed,
                   std::vector<core::HostFieldsUpdate>& updates) {
  for (size_t i = 0; i < observed.size(); ++i) {
    types::v1::Host& host = observed[i];
    if (!host.has_inventory() || !host.installation_disk_id().empty() ||
        !host.installation_disk_path().empty()) {
      continue;
    }
    for (const types::v1::Disk& disk : host.inventory().disks()) {
      if (!disk.installation_eligibility().eligible() ||
          !core::DiskEligible(disk, host.inventory(), choices.disk_policy)) {
        continue;
      }
      host.set_installation_disk_id(disk.id().empty() ? disk.path() : disk.id());
      host.set_installation_disk_path(disk.path());
      updates[i].fields.set_installation_disk_id(host.installation_disk_id());
      updates[i].fields.set_installation_disk_path(host.installation_disk_path());
      updates[i].Mark("installation_disk_id");
      updates[i].Mark("installation_disk_path");
      break;
    }
  }
  for (const core::RoleAssignment& assignment : choices.roles) {
    for (size_t i = 0; i < observed.size(); ++i) {
      if (observed[i].id() != assignment.host_id ||
          observed[i].suggested_role() == assignment.role) {
        continue;
      }
      observed[i].set_suggested_role(assignment.role);
      updates[i].fields.set_suggested_role(assignment.role);
      updates[i].Mark("suggested_role");
    }
  }
}

// The preparation's outcome has been recorded (or another replica records it meanwhile).
bool FilesDecided(const types::v1::Cluster& cluster) {
  const types::v1::InstallationPreparationStatus status =
      cluster.last_installation_preparation().status();
  return cluster.status() != core::cluster_status::kPreparing ||
         status == types::v1::INSTALLATION_PREPARATION_STATUS_SUCCESS ||
         status == types::v1::INSTALLATION_PREPARATION_STATUS_FAILED;
}

// `fields` with `effects` (computed on the record as `fields` leave it) on top.
template <typename Record, typename Decision, typename Effects>
core::FieldsUpdate<Record> WithEffects(const Record& stored, const Decision& decision,
                                       core::FieldsUpdate<Record> fields, absl::Time now,
                                       Effects effects) {
  if (decision.effects.empty()) return fields;
  Record base = stored;
  fields.ApplyTo(base);
  fields.Merge(effects(base, decision, now));
  return fields;
}

}  // namespace

bool ValidationOutcomesDiffer(const Validations& a, const Validations& b) {
  if (a.size() != b.size()) return true;
  for (int i = 0; i < a.size(); ++i) {
    if (a[i].id() != b[i].id() || a[i].status() != b[i].status()) return true;
  }
  return false;
}

bool ValidationMessagesDiffer(const Validations& a, const Validations& b) {
  if (ValidationOutcomesDiffer(a, b)) return true;
  for (int i = 0; i < a.size(); ++i) {
    if (a[i].message() != b[i].message()) return true;
  }
  return false;
}

Refresher::Refresher(InventoryPort& inventory, RefreshOptions options, const Clock& clock,
                     const LivenessView& liveness, EventSink& events, log::Logger log,
                     InstallationFiles* files, InstallMetrics* metrics)
    : inventory_(inventory),
      options_(std::move(options)),
      clock_(clock),
      liveness_(liveness),
      events_(events),
      log_(std::move(log)),
      files_(files),
      metrics_(metrics) {}

void MarkCheckedIn(const types::v1::Host& stored, absl::Time at, core::HostFieldsUpdate& update) {
  *update.fields.mutable_checked_in_at() = ToTimestamp(at);
  update.Mark("checked_in_at");
  if (!stored.has_timestamp() || !stored.has_checked_in_at()) return;
  const absl::Duration since = at - FromTimestamp(stored.checked_in_at());
  *update.fields.mutable_timestamp() = ToTimestamp(FromTimestamp(stored.timestamp()) + since);
  update.Mark("timestamp");
}

types::v1::Host Refresher::Observed(const types::v1::Host& stored, absl::Time now) const {
  std::optional<absl::Time> heard =
      liveness_.LastHeard(HostKey(stored.infra_env_id(), stored.id()));
  if (!heard && !stored.agent_stream_holder().empty() &&
      stored.agent_stream_holder() != liveness_.replica_id()) {
    heard = now;  // its holder judges it
  }
  types::v1::Host observed = stored;
  if (!heard) return observed;
  core::HostFieldsUpdate check_in;
  MarkCheckedIn(stored, *heard, check_in);
  *observed.mutable_checked_in_at() = check_in.fields.checked_in_at();
  if (check_in.fields.has_timestamp()) *observed.mutable_timestamp() = check_in.fields.timestamp();
  return observed;
}

absl::StatusOr<types::v1::Cluster> Refresher::LoadCluster(const std::string& cluster_id) {
  return inventory_.GetCluster(cluster_id, /*with_hosts=*/true);
}

absl::StatusOr<RefreshOutcome> Refresher::Reported(
    const std::string& key, RefreshCause cause,
    absl::FunctionRef<absl::StatusOr<RefreshOutcome>()> refresh) {
  RefreshObserver* const observer = observer_.load();
  if (observer != nullptr) observer->RefreshStarted(key, cause);
  absl::StatusOr<RefreshOutcome> outcome = refresh();
  if (observer != nullptr) observer->RefreshFinished(key, outcome);
  return outcome;
}

absl::StatusOr<RefreshOutcome> Refresher::RefreshHost(const std::string& infra_env_id,
                                                      const std::string& host_id,
                                                      RefreshCause cause) {
  return RefreshHostFrom(infra_env_id, host_id, std::nullopt, cause);
}

absl::StatusOr<RefreshOutcome> Refresher::RefreshHost(types::v1::Host host, RefreshCause cause) {
  const std::string infra_env_id = host.infra_env_id();
  const std::string host_id = host.id();
  return RefreshHostFrom(infra_env_id, host_id, std::move(host), cause);
}

absl::StatusOr<RefreshOutcome> Refresher::RefreshHostFrom(const std::string& infra_env_id,
                                                          const std::string& host_id,
                                                          std::optional<types::v1::Host> known,
                                                          RefreshCause cause) {
  for (int attempt = 0;; ++attempt) {
    types::v1::Host host;
    if (known.has_value()) {
      host = *std::move(known);
      known.reset();
    } else {
      ASSIGN_OR_RETURN(host, inventory_.GetHost(infra_env_id, host_id));
    }
    if (!host.cluster_id().empty()) return RefreshCluster(host.cluster_id(), cause);
    absl::StatusOr<RefreshOutcome> outcome =
        Reported(HostKey(infra_env_id, host_id), cause, [&]() -> absl::StatusOr<RefreshOutcome> {
          RefreshOutcome alone;
          RETURN_IF_ERROR(RefreshOnce(std::nullopt, {host}, alone));
          return alone;
        });
    if (outcome.ok()) return outcome;
    if (!absl::IsAborted(outcome.status()) || attempt + 1 >= options_.attempts) return outcome;
  }
}

absl::StatusOr<RefreshOutcome> Refresher::RefreshCluster(const std::string& cluster_id,
                                                         RefreshCause cause) {
  return Reported(cluster_id, cause, [&] { return RefreshClusterAttempts(cluster_id); });
}

absl::StatusOr<RefreshOutcome> Refresher::RefreshClusterAfter(
    const std::string& cluster_id, absl::FunctionRef<absl::Status()> change) {
  return Reported(cluster_id, RefreshCause::kAction, [&]() -> absl::StatusOr<RefreshOutcome> {
    RETURN_IF_ERROR(change());
    return RefreshClusterAttempts(cluster_id);
  });
}

absl::StatusOr<RefreshOutcome> Refresher::RefreshClusterAttempts(const std::string& cluster_id) {
  for (int attempt = 0;; ++attempt) {
    ASSIGN_OR_RETURN(types::v1::Cluster cluster, LoadCluster(cluster_id));
    if (!FilesDecided(cluster)) {
      const absl::Status prepared = Prepare(cluster);
      // ABORTED: another replica generates; judge what can be judged meanwhile.
      if (!prepared.ok() && !absl::IsAborted(prepared)) return prepared;
      if (prepared.ok() && files_ != nullptr) {
        ASSIGN_OR_RETURN(cluster, LoadCluster(cluster_id));
      }
    }
    // Moved, not copied: a host with its inventory and reports is tens of kilobytes of strings.
    std::vector<types::v1::Host> hosts;
    hosts.reserve(cluster.hosts_size());
    for (types::v1::Host& host : *cluster.mutable_hosts()) hosts.push_back(std::move(host));
    cluster.clear_hosts();
    RefreshOutcome outcome;
    absl::Status status = RefreshUntilSettled(std::move(cluster), std::move(hosts), outcome);
    if (status.ok()) return outcome;
    if (!absl::IsAborted(status) || attempt + 1 >= options_.attempts) return status;
  }
}

absl::Status Refresher::RefreshUntilSettled(types::v1::Cluster cluster,
                                            std::vector<types::v1::Host> hosts,
                                            RefreshOutcome& outcome) {
  constexpr int kPasses = 3;
  for (int pass = 1;; ++pass) {
    const types::v1::ClusterStatus before = cluster.status();
    RefreshOutcome this_pass;
    RETURN_IF_ERROR(RefreshOnce(std::move(cluster), std::move(hosts), this_pass));
    outcome.hosts_written += this_pass.hosts_written;
    outcome.cluster_written = outcome.cluster_written || this_pass.cluster_written;
    outcome.hosts = std::move(this_pass.hosts);
    outcome.cluster = std::move(this_pass.cluster);
    if (outcome.cluster->status() == before || pass >= kPasses) return absl::OkStatus();
    cluster = *outcome.cluster;
    hosts = outcome.hosts;
  }
}

absl::Status Refresher::RefreshOnce(std::optional<types::v1::Cluster> cluster,
                                    std::vector<types::v1::Host> hosts, RefreshOutcome& outcome) {
  const absl::Time now = clock_.Now();
  const types::v1::Cluster* cluster_ptr = cluster ? &*cluster : nullptr;
  std::vector<types::v1::Host> observed;
  observed.reserve(hosts.size());
  for (const types::v1::Host& host : hosts) observed.push_back(Observed(host, now));
  std::vector<core::HostReports> reports;
  reports.reserve(observed.size());
  for (const types::v1::Host& host : observed) reports.push_back(core::ReportsOf(host));
  auto views = [&] {
    std::vector<core::HostView> out;
    for (size_t i = 0; i < observed.size(); ++i) out.push_back({&observed[i], &reports[i]});
    return out;
  };
  std::vector<const types::v1::Host*> pointers;
  for (const types::v1::Host& host : observed) pointers.push_back(&host);

  std::vector<core::HostView> host_views = views();
  ASSIGN_OR_RETURN(
      core::ClusterFacts facts,
      core::BuildClusterFacts(cluster_ptr, host_views, options_.decisions.hw_requirements, {}));
  std::vector<core::HostFieldsUpdate> updates(observed.size());
  ChooseForUser({{core::MinimalRequirements(facts).disk_size_gb, &facts.requirements, facts.version,
                  facts.architecture},
                 cluster && ChoosingHosts(cluster->status()) ? core::AssignRoles(pointers, facts)
                                                             : std::vector<core::RoleAssignment>{}},
                observed, updates);
  for (size_t i = 0; i < observed.size(); ++i) {
    core::ValidationResults validations =
        core::ValidateHost({observed[i], reports[i], facts, now, options_.timeouts.host});
    if (cluster) {
      validations.Ignore(std::vector<std::string>(cluster->ignored_host_validations().begin(),
                                                  cluster->ignored_host_validations().end()),
                         core::NonIgnorableHostValidationIds());
    }
    const core::HostContext context =
        core::MakeHostContext(observed[i], cluster_ptr, pointers, &validations, now,
                              options_.timeouts, options_.decisions);
    absl::StatusOr<core::HostDecision> decision =
        core::HostStateMachine().Fire(core::HostEvent::kRefresh, observed[i].status(), context);
    if (!decision.ok()) {
      log_.Warning("no refresh rule for the host",
                   {{"host_id", observed[i].id()}, {"error", decision.status().message()}});
      continue;
    }
    Validations results;
    validations.ToProto(&results);
    if (!decision->changed() && decision->effects.empty() && updates[i].empty() &&
        !ValidationOutcomesDiffer(results, hosts[i].validations_info())) {
      continue;
    }
    *updates[i].fields.mutable_validations_info() = results;
    updates[i].Mark("validations_info");
    ASSIGN_OR_RETURN(types::v1::Host written, Apply(hosts[i], *decision, std::move(updates[i])));
    ++outcome.hosts_written;
    EmitValidationEvents(written, hosts[i].validations_info(), results, events_, metrics_);
    observed[i] = Observed(written, now);
    hosts[i] = std::move(written);
  }
  outcome.hosts = std::move(hosts);  // what follows reads `observed` only
  if (!cluster) return absl::OkStatus();

  host_views = views();
  ASSIGN_OR_RETURN(facts, core::BuildClusterFacts(cluster_ptr, host_views,
                                                  options_.decisions.hw_requirements, {}));
  bool manifests_uploaded = false;
  if (core::NeedsCustomManifests(*cluster)) {
    ASSIGN_OR_RETURN(
        std::vector<inventory::v1::ArtifactInfo> manifests,
        inventory_.ListArtifacts(cluster->id(), inventory::v1::ARTIFACT_KIND_MANIFEST));
    manifests_uploaded = !manifests.empty();
  }
  core::ValidationResults validations =
      core::ValidateCluster({*cluster, host_views, facts, now, manifests_uploaded});
  validations.Ignore(std::vector<std::string>(cluster->ignored_cluster_validations().begin(),
                                              cluster->ignored_cluster_validations().end()),
                     core::NonIgnorableClusterValidationIds());
  bool kubeconfig_exists = false;
  if (cluster->status() == core::cluster_status::kFinalizing) {
    kubeconfig_exists =
        inventory_.GetArtifact(cluster->id(), "kubeconfig", /*metadata_only=*/true).ok();
  }
  const core::ClusterContext context =
      core::MakeClusterContext(*cluster, pointers, &validations, now, options_.timeouts,
                               options_.decisions, kubeconfig_exists);
  ASSIGN_OR_RETURN(
      core::ClusterDecision decision,
      core::ClusterStateMachine().Fire(core::ClusterEvent::kRefresh, cluster->status(), context));
  core::ClusterFieldsUpdate update;
  const types::v1::ClusterProgress progress =
      core::ClusterProgressIn(*cluster, pointers, decision.to);
  if (progress.SerializeAsString() != cluster->progress().SerializeAsString()) {
    *update.fields.mutable_progress() = progress;
    update.Mark("progress");
  }
  Validations results;
  validations.ToProto(&results);
  // A cluster's validation messages say which hosts hold it back, and none counts time: they
  // are kept current, and its status_info with them (a host's are not, see
  // ValidationOutcomesDiffer). A status_info alone is not rewritten: a ready cluster keeps
  // saying why its last preparation failed.
  if (decision.changed() || !decision.effects.empty() || !update.empty() ||
      ValidationMessagesDiffer(results, cluster->validations_info())) {
    *update.fields.mutable_validations_info() = results;
    update.Mark("validations_info");
    const Validations before = cluster->validations_info();
    ASSIGN_OR_RETURN(*cluster, Apply(*cluster, decision, std::move(update)));
    outcome.cluster_written = true;
    if (metrics_ != nullptr) {
      ForEachOutcomeFlip(
          before, results,
          [&](const types::v1::ValidationResult& v) { metrics_->ClusterValidationFailed(v.id()); },
          [](const types::v1::ValidationResult&) {});
    }
    // Only a refresh starts an installation, and only it knows the hosts.
    if (metrics_ != nullptr && decision.Has(core::ClusterEffect::kStartInstallation)) {
      metrics_->InstallationStarted(*cluster, static_cast<int>(context.hosts.size()));
    }
  }
  outcome.cluster = std::move(cluster);
  return absl::OkStatus();
}

absl::Status Refresher::Prepare(const types::v1::Cluster& cluster) {
  if (files_ == nullptr || FilesDecided(cluster)) return absl::OkStatus();
  const absl::Status generated = files_->Generate(cluster);
  if (absl::IsAborted(generated) || absl::IsUnavailable(generated) ||
      absl::IsDeadlineExceeded(generated)) {
    return generated;  // transient: the next refresh resumes
  }
  // Another refresh of this replica may have generated them first and recorded it.
  ASSIGN_OR_RETURN(types::v1::Cluster stored,
                   inventory_.GetCluster(cluster.id(), /*with_hosts=*/false));
  if (FilesDecided(stored)) return absl::OkStatus();
  core::ClusterFieldsUpdate outcome;
  types::v1::LastInstallationPreparation& preparation =
      *outcome.fields.mutable_last_installation_preparation();
  preparation.set_status(generated.ok() ? types::v1::INSTALLATION_PREPARATION_STATUS_SUCCESS
                                        : types::v1::INSTALLATION_PREPARATION_STATUS_FAILED);
  preparation.set_reason(std::string(generated.message()));
  outcome.Mark("last_installation_preparation");
  // The cluster stays preparing: the refresh that follows decides on the recorded outcome.
  const core::ClusterDecision stay{stored.status(), stored.status()};
  ASSIGN_OR_RETURN(types::v1::Cluster written, Apply(stored, stay, std::move(outcome)));
  if (generated.ok()) {
    events_.Emit(ClusterEvent(written, "cluster_installation_files_generated",
                              "Generated install-config, credentials and Ignition configs"));
  } else {
    log_.Warning("cannot generate the installation files",
                 {{"cluster_id", cluster.id()}, {"error", generated.message()}});
    events_.Emit(ClusterEvent(
        written, "cluster_installation_files_failed",
        absl::StrCat("Failed to generate the installation files: ", generated.message()),
        types::v1::EVENT_SEVERITY_ERROR));
  }
  return absl::OkStatus();
}

absl::StatusOr<types::v1::Host> Refresher::Apply(const types::v1::Host& stored,
                                                 const core::HostDecision& decision,
                                                 core::HostFieldsUpdate fields) {
  const core::HostFieldsUpdate update =
      WithEffects(stored, decision, std::move(fields), clock_.Now(), core::HostEffectFields);
  const std::string info =
      decision.status_info.empty() ? stored.status_info() : decision.status_info;
  ASSIGN_OR_RETURN(types::v1::Host written,
                   inventory_.UpdateHostStatus(stored, decision.to, info, update));
  if (metrics_ != nullptr) metrics_->Written(stored, written);
  if (decision.to != stored.status()) {
    log_.Info("host status changed", {{"host_id", stored.id()},
                                      {"from", core::HostStatusName(stored.status())},
                                      {"to", core::HostStatusName(decision.to)},
                                      {"info", info}});
    events_.Emit(HostEvent(written, "host_status_updated",
                           absl::StrCat("Host ", DisplayName(written), ": updated status from ",
                                        core::HostStatusName(stored.status()), " to ",
                                        core::HostStatusName(decision.to),
                                        info.empty() ? "" : absl::StrCat(" (", info, ")")),
                           decision.to == core::host_status::kError
                               ? types::v1::EVENT_SEVERITY_ERROR
                               : types::v1::EVENT_SEVERITY_INFO));
  }
  return written;
}

absl::StatusOr<types::v1::Cluster> Refresher::Apply(const types::v1::Cluster& stored,
                                                    const core::ClusterDecision& decision,
                                                    core::ClusterFieldsUpdate fields) {
  const core::ClusterFieldsUpdate update =
      WithEffects(stored, decision, std::move(fields), clock_.Now(), core::ClusterEffectFields);
  const std::string info =
      decision.status_info.empty() ? stored.status_info() : decision.status_info;
  ASSIGN_OR_RETURN(types::v1::Cluster written,
                   inventory_.UpdateClusterStatus(stored, decision.to, info, update));
  if (metrics_ != nullptr) metrics_->Written(decision, written);
  if (decision.to != stored.status()) {
    log_.Info("cluster status changed", {{"cluster_id", stored.id()},
                                         {"from", core::ClusterStatusName(stored.status())},
                                         {"to", core::ClusterStatusName(decision.to)}});
    events_.Emit(ClusterEvent(
        written, "cluster_status_updated",
        absl::StrCat("Updated status of the cluster to ", core::ClusterStatusName(decision.to),
                     info.empty() ? "" : absl::StrCat(" (", info, ")")),
        decision.to == core::cluster_status::kError ? types::v1::EVENT_SEVERITY_ERROR
                                                    : types::v1::EVENT_SEVERITY_INFO));
  }
  return written;
}

}  // namespace assisted::orchestrator
