// File: services/orchestrator/agent_hub.h
//
// The orchestrator's side of every agent stream: admits sessions within caps, registers hosts
// in the inventory, keeps one live session per host (a newer connection from the same host
// replaces the older one), pushes the host's instructions, and applies the agent's results
// exactly once: every result carries the agent's sequence number, and the highest applied one is
// stored on the host (with the agent instance it belongs to) in the same inventory write as the
// result itself. A result seen again after a reconnect is acknowledged, not re-applied.
//
// Event-driven, not polled:
//   * After a registration, an applied result or progress, a reconnect after silence, or any
//     host/cluster change the inventory's Watch reports for a cluster this replica has streams
//     in, the hub refreshes that cluster (refresher.h: every host's validations and transition,
//     then the cluster's) and recomputes the instructions of each host it holds a stream for
//     (InstructionSource, instructions.h). Only steps that stream was not already sent (same
//     type and arguments) are pushed, so a refresh that changes nothing sends nothing and a
//     change to one step's arguments re-runs that step alone. A reconnecting agent process
//     reports the steps it ran (Register.steps_run) and those count as sent: after a restart
//     of this service the fleet re-registers without running its discovery again.
//   * When refreshes run is the RefreshScheduler's (refresh_scheduler.h): an agent's own work
//     (its messages, and the refresh each one causes) goes ahead of the refreshes Watch events
//     and the monitor ask for, which coalesce per cluster and are dropped when already judged.
//   * The hub observes every refresh of its refresher (RefreshObserver, refresher.h), its own
//     and the user actions' (actions/, which share the refresher): each one that ends pushes
//     the changed instructions and tells the scheduler what it judged. A user's change is thus
//     judged once, by the action, and pushed from there; its Watch echo finds it judged. The
//     hub attaches itself to the refresher when it is built (before it serves) and detaches
//     when it goes; the refresher reaches the hub, the hub the actions' sinks (HubParts), and
//     they the refresher: a cycle closed at run time only, never at construction.
//   * Streams are admitted by StreamAdmission (stream_admission.h): only registered ones count
//     toward streams.max_registered; the monitor closes those that send nothing in time. A
//     result is applied only for a step pushed to that stream (or reported run by the same agent
//     process when it registered), a log chunk only for a logs-gather step that asked for it:
//     anything else gets Reject (and its Ack, so it is not sent again), as does a result whose
//     output is over the size or depth limits (step_results.h).
//   * Liveness lives in memory (liveness.h): an open stream is a live agent (keepalive breaks
//     the stream of a peer that stops answering); only registration and stream close write to
//     the database (holder + checked_in_at).
//   * The monitor (MonitorOnce, on its own thread, driven by the injected Clock so tests call it
//     with a FakeClock) wakes at the nearest deadline (deadlines.h), at least every
//     `monitor_interval`: never a scan of every agent. Its deadlines: a host whose stream closed
//     here is refreshed once the disconnection timeout has passed (it goes `disconnected` by the
//     core's rules; a new stream heals it); a host in a state with time limits (preparing,
//     installing, ...) is refreshed every `monitor_interval`, so status timeouts fire; the
//     steps behind a host's failing validations (a registry, NTP server or peer that was down
//     for a while) run again after `recheck_after` and then backing off (a passing host is never
//     asked again); a stream that has sent nothing in time is closed. Every pass also keeps
//     this replica's presence lease and hands back the hosts of replicas that died holding their
//     streams (replica_presence.h), which then go disconnected like any host whose stream closed.
//
// The hub's rooms: agent_hub.cc (streams, the agent table, pushing instructions, the Watch),
// hub_registration.cc (admission and registration, checked and written by the Registrar,
// registrar.h), hub_results.cc (results, progress and log
// chunks applied, then refreshed), hub_monitor.cc (the deadlines above).
//
// Steady-state database writes: zero per heartbeat; per host two per connection plus one per
// status or validation-outcome change, so a quiet fleet of any size costs nothing.
//
// All blocking work (inventory calls) runs on the scheduler's workers, one message at a time per
// session and in order; gRPC threads only queue.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_AGENT_HUB_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_AGENT_HUB_H_

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "lib/log/log.h"
#include "lib/random/random.h"
#include "lib/time/clock.h"
#include "prometheus/registry.h"
#include "services/orchestrator/agent_session.h"
#include "services/orchestrator/controller_token.h"
#include "services/orchestrator/core/timeouts.h"
#include "services/orchestrator/deadlines.h"
#include "services/orchestrator/events.h"
#include "services/orchestrator/hub_metrics.h"
#include "services/orchestrator/instructions.h"
#include "services/orchestrator/inventory_port.h"
#include "services/orchestrator/liveness.h"
#include "services/orchestrator/refresh_scheduler.h"
#include "services/orchestrator/refresher.h"
#include "services/orchestrator/registrar.h"
#include "services/orchestrator/replica_presence.h"
#include "services/orchestrator/stream_admission.h"

namespace assisted::orchestrator {

struct HubOptions {
  // Which agent streams are held, and how long one may wait to register (stream_admission.h).
  AdmissionLimits streams;
  int workers = 8;              // threads doing inventory work
  size_t max_backlog = 100000;  // queued session work before shedding load
  // This replica's id in Host.agent_stream_holder; empty: a random one.
  std::string replica_id;
  core::Timeouts timeouts;
  // The longest the monitor sleeps between passes, and how often a host in a state with time
  // limits is refreshed; zero: no monitor thread (tests call MonitorOnce), and such hosts are
  // refreshed on every pass.
  absl::Duration monitor_interval = absl::Seconds(5);
  // A host failing validations that a step re-run can change (core::StepsToRecheck) has those
  // steps re-run this long after the failure was judged, then after twice as long each time it
  // still fails, at most max_recheck_after; zero: never.
  absl::Duration recheck_after = absl::Seconds(30);
  absl::Duration max_recheck_after = absl::Minutes(10);
  // This replica's presence (replica_presence.h): the ttl of its lease (zero: no lease and no
  // sweep), and how often it looks for hosts left held by replicas that are gone (the first
  // look comes one interval after start, when a herd of agents that lost a replica has
  // reconnected and taken its hosts back itself).
  absl::Duration replica_lease_ttl = absl::Seconds(30);
  absl::Duration orphan_sweep_interval = absl::Minutes(2);
  // Follow the inventory's Watch (off in tests that drive the hub directly).
  bool follow_watch = true;
  EventRateOptions event_rate;
  // The service key checking the agents' tokens ("authorization: Bearer" metadata), with each
  // infra-env's own signing key (lib/auth/token.h); empty: no check.
  std::string agent_token_key;
  // Issues the controller tokens install steps carry (Instruction.controller_token); null: none
  // (the controller's calls are not authenticated either).
  std::shared_ptr<const ControllerTokens> controller_tokens;
  // How long an infra-env's signing key read from the inventory is used: a regenerated key is
  // in force for new streams this long after the regeneration at the latest.
  absl::Duration signing_key_ttl = absl::Seconds(5);
};

// What the hub uses besides the inventory; null members get the defaults (core next steps,
// logging progress sink, events appended to the inventory, the real clock, liveness of the
// replica `replica_id` names, a refresher of its own).
struct HubParts {
  InstructionSource* instructions = nullptr;
  ProgressSink* progress = nullptr;
  RegistrationSink* registrations = nullptr;  // optional: none records registrations only
  EventSink* events = nullptr;
  const Clock* clock = nullptr;
  // Shared with the user actions (actions/), so that one refresher judges for every
  // trigger: `refresher` must read `liveness` and emit to `events`; both or neither.
  LivenessTracker* liveness = nullptr;
  Refresher* refresher = nullptr;
  prometheus::Registry* metrics = nullptr;  // optional: none keeps the hub's metrics private
};

class AgentHub final : public SessionHandler, public RefreshObserver {
 public:
  // `inventory` must outlive the hub.
  AgentHub(InventoryPort& inventory, HubOptions options, Random& random, log::Logger log,
           HubParts parts = {});
  ~AgentHub() override;

  void OnOpen(const std::shared_ptr<Session>& session) override;
  void OnFirstMessage(const std::shared_ptr<Session>& session) override;
  void OnMessage(const std::shared_ptr<Session>& session,
                 const agent::v1::AgentMessage& message) override;
  bool Schedule(const std::shared_ptr<Session>& session) override;
  void OnClosed(const std::shared_ptr<Session>& session) override;

  // Every refresh of the refresher, whoever asked (refresher.h): counted by cause, then, when
  // it ends, its changed instructions pushed and what it judged told to the scheduler.
  void RefreshStarted(const std::string& key, RefreshCause cause) override;
  void RefreshFinished(const std::string& key,
                       const absl::StatusOr<RefreshOutcome>& outcome) override;

  // One monitor pass (see the file comment), closing streams that sent nothing in time.
  // Runs on the caller's thread.
  void MonitorOnce();

  // Returns once the hub's queued work (stream ends, refreshes) is done; for tests.
  void WaitIdle() const { scheduler_.WaitIdle(); }

  // Sessions open now, and hosts with a registered session.
  int open_sessions() const;
  int registered_hosts() const;
  const std::string& replica_id() const { return liveness_.replica_id(); }

 private:
  // What the hub knows of a registered session's agent.
  struct Agent {
    std::string infra_env_id;
    std::string host_id;
    std::string instance_id;
    std::string cluster_id;
    uint64_t applied_seq = 0;
    types::v1::HostStatus status = types::v1::HOST_STATUS_UNSPECIFIED;
    // The steps it was last given, as NewWork compares them (type and argument digest).
    std::vector<SentStep> last_pushed;
    bool pushed = false;
    // The host's resource_version last_pushed was computed from: a refresh that ends later but
    // read the host before (an action's and the hub's run at once) pushes nothing to it.
    int64_t pushed_version = 0;
    // Steps to re-run because of failing validations, when, and the wait after that.
    std::vector<types::v1::StepType> recheck;
    absl::Time recheck_at = absl::InfiniteFuture();
    absl::Duration recheck_backoff;
  };
  using Target = RefreshTarget;

  void Register(const std::shared_ptr<Session>& session, const agent::v1::Register& request);
  void ApplyResult(const std::shared_ptr<Session>& session, uint64_t seq,
                   const types::v1::StepResult& result);
  void ApplyProgress(const std::shared_ptr<Session>& session, uint64_t seq,
                     const agent::v1::Progress& progress);
  // Sends the refusal as Registered (not accepted) and closes the stream with its status.
  void Refuse(const std::shared_ptr<Session>& session, const Refusal& refusal);
  // The scheduler's Judge: the refresher's refresh of `target`.
  absl::StatusOr<RefreshOutcome> Judge(const Target& target, const types::v1::Host* written,
                                       RefreshCause cause);
  // A copy of what the hub knows of `session`'s agent, taken under the lock.
  Agent AgentOf(const Session& session);
  // Stores a chunk of a log bundle as the cluster artifact logs/<host|controller>_<host>.tar.gz
  // (partial until the last chunk), then acknowledges it.
  void ApplyLogChunk(const std::shared_ptr<Session>& session, uint64_t seq,
                     const agent::v1::LogChunk& chunk);
  // After every refresh: pushes changed instructions to the streams this replica holds.
  void PushChanged(const RefreshOutcome& outcome);
  // Sets the monitor's deadlines that follow from `agent`'s status and validations (`host`):
  // re-runs of the steps its failing validations came from, and the periodic refresh of a
  // state with time limits; cancels them when they no longer apply.
  void SetAgentDeadlines(const types::v1::Host& host, Agent& agent)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Arms (or cancels) the periodic refresh of a host in a state with time limits.
  void ArmTimedState(const std::string& host_key, types::v1::HostStatus status);
  // The agent holding `host_key`'s stream here, or null.
  Agent* AgentOfHost(const std::string& host_key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The monitor's handling of one due deadline (a key of deadlines_); adds to `due` what to
  // refresh.
  void OnDeadline(const std::string& key, absl::Time now,
                  absl::flat_hash_map<std::string, Target>& due);
  // A due re-check of `host_key`: its steps are forgotten as sent and its host refreshed (which
  // sends them again); the next one backs off.
  std::optional<Target> DueRecheck(const std::string& host_key, absl::Time now);
  // Records that the stream for `host` closed: holder cleared, checked_in_at = last heard.
  void RecordDisconnect(const Agent& agent, absl::Time last_heard);
  // Clears the host's agent_stream_holder if it is still `holder` (and sets checked_in_at to
  // `last_heard` when given), and has the monitor refresh the host once the disconnection
  // timeout has passed since it was last heard: the core's rules then make it disconnected,
  // unless a stream came back meanwhile.
  void ReleaseStream(const std::string& infra_env_id, const std::string& host_id,
                     const std::string& holder, std::optional<absl::Time> last_heard);
  // The monitor's part: hands back the hosts of replicas that are gone (replica_presence.h).
  void AdoptOrphans(absl::Time now);
  // Keys of deadlines_: the earliest unregistered stream's, and per host (by HostKey).
  static constexpr char kAdmissionDeadline[] = "admission";
  static std::string ClosedKey(const std::string& host_key);
  static std::string RecheckKey(const std::string& host_key);
  static std::string TimedKey(const std::string& host_key);

  void OnWatchEvent(const inventory::v1::WatchEvent& event);
  void OnWatchResync();
  void MonitorLoop();
  void Acknowledge(const std::shared_ptr<Session>& session, uint64_t seq);
  // Refuses the agent message `seq` for good: Reject with `reason`, then its Ack (the agent does
  // not send it again), logged and counted. Nothing of it is stored.
  void RejectMessage(const std::shared_ptr<Session>& session, uint64_t seq,
                     absl::string_view reason);
  // The agent message `seq` cannot be stored now (the inventory unavailable, a lost race):
  // ends the stream (UNAVAILABLE), logged. Acks are cumulative, so acknowledging any later
  // message would drop this one; instead nothing more of this stream is applied (OnMessage),
  // and the agent sends this and every later message again, in order, on its next stream.
  void LeaveUnstored(const std::shared_ptr<Session>& session, uint64_t seq, absl::string_view what,
                     const absl::Status& why);
  InventoryPort& inventory_;
  const HubOptions options_;
  Random& random_;
  log::Logger log_;
  RealClock real_clock_;
  const Clock& clock_;
  std::unique_ptr<LivenessTracker> own_liveness_;
  LivenessTracker& liveness_;
  std::unique_ptr<EventSink> own_events_;
  EventSink& events_;
  std::unique_ptr<InstructionSource> own_instructions_;
  InstructionSource& instructions_;
  std::unique_ptr<ProgressSink> own_progress_;
  ProgressSink& progress_;
  std::unique_ptr<prometheus::Registry> own_metrics_registry_;
  HubMetrics metrics_;
  StreamAdmission admission_;
  Registrar registrar_;
  std::unique_ptr<Refresher> own_refresher_;
  Refresher& refresher_;
  ReplicaPresence presence_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<const Session*, Agent> agents_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::weak_ptr<Session>> by_host_ ABSL_GUARDED_BY(mu_);
  // Streams held per cluster, to tell which Watch events concern this replica.
  absl::flat_hash_map<std::string, int> per_cluster_ ABSL_GUARDED_BY(mu_);
  // Hosts whose stream closed here, by host key: refreshed once their deadline in deadlines_
  // ("closed/<host key>": the disconnection timeout since last heard) passed.
  absl::flat_hash_map<std::string, Target> closed_ ABSL_GUARDED_BY(mu_);
  absl::Time next_orphan_sweep_ ABSL_GUARDED_BY(mu_);

  Deadlines deadlines_;
  RefreshScheduler scheduler_;  // its threads stop before the state above goes away
  std::unique_ptr<WatchSubscription> watch_;
  std::thread monitor_;
};

// AgentService.Connect: one reactor per stream, all driven by `hub`.
class AgentServiceImpl final : public agent::v1::AgentService::CallbackService {
 public:
  explicit AgentServiceImpl(AgentHub& hub) : hub_(hub) {}
  grpc::ServerBidiReactor<agent::v1::AgentMessage, agent::v1::ServiceMessage>* Connect(
      grpc::CallbackServerContext* context) override;

 private:
  AgentHub& hub_;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_AGENT_HUB_H_
