// File: services/orchestrator/agent_hub.h
//
// The orchestrator's side of every agent stream: admits sessions within caps, registers hosts
// in the inventory, keeps one live session per host (a newer connection from the same host
// replaces the older one), pushes the host's instructions, and applies the agent's results
// exactly once: every result carries the agent's sequence number, and the highest applied one is
// stored on the host (with the agent instance it belongs to) in the same inventory write as the
// result itself. A result seen again after a reconnect is acknowledged, not re-applied.
//
// All blocking work (inventory calls) runs on the hub's WorkQueue, one message at a time per
// session and in order; gRPC threads only queue.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_AGENT_HUB_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_AGENT_HUB_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "grpcpp/channel.h"
#include "lib/log/log.h"
#include "lib/random/random.h"
#include "services/orchestrator/agent_session.h"
#include "services/orchestrator/work_queue.h"

namespace assisted::orchestrator {

struct HubOptions {
  int max_sessions = 20000;       // streams on this server
  int max_sessions_per_peer = 0;  // streams from one peer address (0: no cap)
  int workers = 8;                // threads doing inventory work
  size_t max_backlog = 100000;    // queued session work before shedding load
  absl::Duration inventory_timeout = absl::Seconds(10);
};

class AgentHub final : public SessionHandler {
 public:
  AgentHub(std::shared_ptr<grpc::Channel> inventory, HubOptions options, Random& random,
           log::Logger log);

  void OnOpen(const std::shared_ptr<Session>& session) override;
  void OnMessage(const std::shared_ptr<Session>& session,
                 const agent::v1::AgentMessage& message) override;
  bool Schedule(const std::shared_ptr<Session>& session) override;
  void OnClosed(const std::shared_ptr<Session>& session) override;

  // Sessions open now, and hosts with a registered session.
  int open_sessions() const;
  int registered_hosts() const;

 private:
  // What the hub knows of a registered session's agent.
  struct Agent {
    std::string infra_env_id;
    std::string host_id;
    std::string instance_id;
    uint64_t applied_seq = 0;
  };

  void Register(const std::shared_ptr<Session>& session, const agent::v1::Register& request);
  void ApplyResult(const std::shared_ptr<Session>& session, uint64_t seq,
                   const types::v1::StepResult& result);
  void Refuse(const std::shared_ptr<Session>& session, const std::string& reason,
              agent::v1::RegistrationAction action, grpc::StatusCode code);
  void PushInstructions(const std::shared_ptr<Session>& session, const types::v1::Host& host);
  // Re-runs the host's validations and the state machine's refresh on what the inventory holds,
  // writes a changed status (compare-and-set) with the new validations, and returns the host as
  // it is now. A lost race is left to the next refresh.
  absl::StatusOr<types::v1::Host> RefreshHost(const std::string& infra_env_id,
                                              const std::string& host_id);
  void Acknowledge(const std::shared_ptr<Session>& session, uint64_t seq);
  std::unique_ptr<grpc::ClientContext> Context() const;

  std::unique_ptr<inventory::v1::InventoryService::Stub> inventory_;
  const HubOptions options_;
  Random& random_;
  log::Logger log_;

  mutable absl::Mutex mu_;
  int sessions_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, int> per_peer_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<const Session*, Agent> agents_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::weak_ptr<Session>> by_host_ ABSL_GUARDED_BY(mu_);

  WorkQueue queue_;  // last: its threads stop before the state above goes away
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
