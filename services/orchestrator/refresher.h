// File: services/orchestrator/refresher.h
//
// THE refresh engine: every trigger (an agent's registration, result or progress, a Watch
// event, the monitor's deadlines, a user action in actions/) re-judges a cluster
// here and nowhere else. A refresh judges every host's validations (several depend on the other
// hosts: connectivity majority, hostname uniqueness, IP collisions, the machine network), every
// host's refresh transition, then the cluster's validations, refresh transition and progress;
// when the cluster's status moved, its hosts once more against it.
//
// Every decision, a refresh's or a user action's, is written by Apply: one compare-and-set of
// the status together with the row's effects (core::HostEffectFields, core::ClusterEffectFields)
// and the caller's fields, then one event through the rate-limited EventSink when the status
// moved. A refresh writes a record only when its status, a row effect, a choice made for the
// user (installation disk, suggested role), the cluster's progress or the outcome of a
// validation (id or status; messages carry durations that change on every evaluation) moved;
// the stored validations are then rewritten with the write. A refresh that learns nothing costs
// reads only. A host without a cluster is judged alone (the unbound machine).
//
// A preparing cluster whose installation files are not generated yet (the PrepareForInstallation
// row's effect, or a restart midway) has them generated through InstallationFiles first, and the
// outcome recorded.
//
// A lost compare-and-set (another writer moved the row first) re-reads and re-decides, a few
// times; every writer converges because each decides from what is stored after its own write.
//
// Liveness: the stored checked_in_at is replaced in memory by what `liveness` says (see
// liveness.h), so hosts held here are judged on their last-heard time and hosts held by
// another replica count as connected; the host's clock reading (timestamp) moves on with it.
//
// Every refresh, whoever asked for it (the hub's scheduler, a user action), is reported to the
// one RefreshObserver attached (the agent hub): when it starts and when it ends, with what it
// judged. The hub learns there which versions were judged and pushes the changed instructions,
// so a user action's refresh is not judged a second time when the Watch echoes its writes.
//
//   Refresher refresher(inventory, {.timeouts = timeouts}, clock, liveness, events, log, &files);
//   ASSIGN_OR_RETURN(RefreshOutcome outcome, refresher.RefreshHost(infra_env_id, host_id));

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_REFRESHER_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_REFRESHER_H_

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/log/log.h"
#include "lib/time/clock.h"
#include "services/orchestrator/core/cluster_state_machine.h"
#include "services/orchestrator/core/contexts.h"
#include "services/orchestrator/core/fields_update.h"
#include "services/orchestrator/core/host_state_machine.h"
#include "services/orchestrator/core/timeouts.h"
#include "services/orchestrator/events.h"
#include "services/orchestrator/install_metrics.h"
#include "services/orchestrator/inventory_port.h"
#include "services/orchestrator/liveness.h"
#include "services/orchestrator/refresh_cause.h"

namespace assisted::orchestrator {

// Records in `update` that `stored` was heard from at `at`: checked_in_at moves there and, when
// the host's clock was read at the stored checked_in_at, its timestamp moves on by as much. The
// two stay a pair, so a quiet stream's silence never reads as clock skew. Every writer of
// checked_in_at goes through here.
void MarkCheckedIn(const types::v1::Host& stored, absl::Time at, core::HostFieldsUpdate& update);

struct RefreshOptions {
  core::Timeouts timeouts;
  core::DecisionSettings decisions;
  int attempts = 4;  // decisions re-made after lost compare-and-sets
};

// What one refresh found. `hosts` and `cluster` are as stored after the refresh.
struct RefreshOutcome {
  std::optional<types::v1::Cluster> cluster;  // unset for an unbound host
  std::vector<types::v1::Host> hosts;         // the cluster's hosts (or the one unbound host)
  int hosts_written = 0;                      // host compare-and-sets that succeeded
  bool cluster_written = false;
};

// Hears of every refresh the Refresher runs, on the thread that runs it. Implementations must
// not call the Refresher back from these (they run inside a refresh) and must not block.
class RefreshObserver {
 public:
  virtual ~RefreshObserver() = default;
  // A refresh of `key` (a cluster id, or the HostKey of a host in no cluster) began. For a
  // RefreshClusterAfter, before the caller's change was written: changes to `key` reported
  // from now on may be that write's echo, which the refresh will judge.
  virtual void RefreshStarted(const std::string& key, RefreshCause cause) = 0;
  // It ended: what it judged, or why it failed (the caller's change failing included).
  virtual void RefreshFinished(const std::string& key,
                               const absl::StatusOr<RefreshOutcome>& outcome) = 0;
};

// Generates a preparing cluster's installation files (install/artifacts.h): the part of the
// PrepareForInstallation row's effect that is not a field of the cluster.
class InstallationFiles {
 public:
  virtual ~InstallationFiles() = default;
  // Generates what is missing for `cluster` (read with its hosts). ABORTED while another
  // replica generates, UNAVAILABLE or DEADLINE_EXCEEDED while the inventory is unreachable (the
  // next refresh resumes); any other error means the files cannot be made (the reason is
  // recorded as the preparation's failure).
  virtual absl::Status Generate(const types::v1::Cluster& cluster) = 0;
};

class Refresher {
 public:
  // `files` may be null: preparing clusters then wait for a refresher that has it. `metrics`
  // (may be null) hears of every write (installation metrics).
  Refresher(InventoryPort& inventory, RefreshOptions options, const Clock& clock,
            const LivenessView& liveness, EventSink& events, log::Logger log,
            InstallationFiles* files = nullptr, InstallMetrics* metrics = nullptr);

  // Attaches the one observer of every refresh (the agent hub, which attaches itself when it
  // is built, before it serves); null detaches it. Refreshes that run meanwhile may or may not
  // be reported. The observer must outlive its attachment.
  void Observe(RefreshObserver* observer) { observer_.store(observer); }

  // Refreshes the cluster of the host (or the host alone when it has no cluster). `cause` is
  // only reported (RefreshObserver); callers outside the hub are actions.
  absl::StatusOr<RefreshOutcome> RefreshHost(const std::string& infra_env_id,
                                             const std::string& host_id,
                                             RefreshCause cause = RefreshCause::kAction);
  // The same, starting from `host` as the inventory just returned it (a write's answer): one
  // read fewer; a lost compare-and-set re-reads as usual.
  absl::StatusOr<RefreshOutcome> RefreshHost(types::v1::Host host,
                                             RefreshCause cause = RefreshCause::kAction);
  // Refreshes `cluster_id` and all its hosts.
  absl::StatusOr<RefreshOutcome> RefreshCluster(const std::string& cluster_id,
                                                RefreshCause cause = RefreshCause::kAction);
  // Writes a change to the cluster or its hosts with `change`, then refreshes `cluster_id`,
  // reported as one refresh that began before the write (RefreshObserver::RefreshStarted), so
  // the write's own echo waits for this refresh instead of causing another. `change`'s error
  // is returned as it is, with no refresh.
  absl::StatusOr<RefreshOutcome> RefreshClusterAfter(const std::string& cluster_id,
                                                     absl::FunctionRef<absl::Status()> change);

  // Writes `decision` about `stored` (the record it was decided from) with one compare-and-set
  // of the status: status_info (kept when the decision has none), `fields`, then the row's
  // effects on top (core::HostEffectFields of the record as `fields` leave it). Logs and emits
  // an event when the status moved. ABORTED when another writer moved the record first.
  absl::StatusOr<types::v1::Host> Apply(const types::v1::Host& stored,
                                        const core::HostDecision& decision,
                                        core::HostFieldsUpdate fields = {});
  absl::StatusOr<types::v1::Cluster> Apply(const types::v1::Cluster& stored,
                                           const core::ClusterDecision& decision,
                                           core::ClusterFieldsUpdate fields = {});

  // The host as the state machine and validations must see it: checked_in_at from liveness,
  // timestamp moved on by as much (the skew between the clocks stays as measured).
  types::v1::Host Observed(const types::v1::Host& stored, absl::Time now) const;

 private:
  absl::StatusOr<RefreshOutcome> RefreshHostFrom(const std::string& infra_env_id,
                                                 const std::string& host_id,
                                                 std::optional<types::v1::Host> known,
                                                 RefreshCause cause);
  // RefreshCluster's work: read, judge, write, again after a lost compare-and-set.
  absl::StatusOr<RefreshOutcome> RefreshClusterAttempts(const std::string& cluster_id);
  // Runs `refresh` of `key`, reported to the observer.
  absl::StatusOr<RefreshOutcome> Reported(
      const std::string& key, RefreshCause cause,
      absl::FunctionRef<absl::StatusOr<RefreshOutcome>()> refresh);
  // RefreshOnce, again while the cluster's status moves. Hosts are judged before their cluster
  // and some of their transitions follow the cluster's (prepared hosts start installing once it
  // is installing), so they are judged again against its new status, from what was just
  // written; otherwise they would wait for some later event to refresh them. At most 3 passes.
  absl::Status RefreshUntilSettled(types::v1::Cluster cluster, std::vector<types::v1::Host> hosts,
                                   RefreshOutcome& outcome);
  // One pass; ABORTED when a compare-and-set was lost (the caller re-reads and retries).
  absl::Status RefreshOnce(std::optional<types::v1::Cluster> cluster,
                           std::vector<types::v1::Host> hosts, RefreshOutcome& outcome);
  // Generates the files of a preparing `cluster` (with its hosts) that has none recorded yet,
  // and records the outcome. OK when nothing was to be done; the generation's transient errors
  // as they come.
  absl::Status Prepare(const types::v1::Cluster& cluster);
  absl::StatusOr<types::v1::Cluster> LoadCluster(const std::string& cluster_id);

  InventoryPort& inventory_;
  const RefreshOptions options_;
  const Clock& clock_;
  const LivenessView& liveness_;
  EventSink& events_;
  log::Logger log_;
  InstallationFiles* const files_;
  InstallMetrics* const metrics_;
  std::atomic<RefreshObserver*> observer_{nullptr};
};

// Whether two validation lists differ in outcome (id or status; messages are ignored, since
// some carry durations that change on every evaluation).
bool ValidationOutcomesDiffer(
    const google::protobuf::RepeatedPtrField<types::v1::ValidationResult>& a,
    const google::protobuf::RepeatedPtrField<types::v1::ValidationResult>& b);

// Whether they differ in outcome or in any message.
bool ValidationMessagesDiffer(
    const google::protobuf::RepeatedPtrField<types::v1::ValidationResult>& a,
    const google::protobuf::RepeatedPtrField<types::v1::ValidationResult>& b);

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_REFRESHER_H_
