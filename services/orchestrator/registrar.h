// File: services/orchestrator/registrar.h
//
// Admission and registration of an agent's stream, apart from the stream itself:
//   * Check: who may register. Lower-case UUIDs for the host and infra-env, an agent token of
//     that infra-env signed with its current signing key (when a service key is configured;
//     keys read from the inventory are kept `signing_key_ttl`), an inventory within the size and
//     depth limits (step_results.h). Refused with what the agent should do: give up (the same
//     request will never pass) or retry (the inventory could not be asked now).
//   * Record: what a registration writes. One update for a known host (the common case: a whole
//     fleet reconnecting after a restart costs a single inventory call each: the connection
//     facts and the inventory, whatever they were before); a create, in its infra-env's cluster,
//     for a new one; and for a new agent process on a known host, its sequence numbers start
//     over and the RegistrationSink fires the host's register event.
// The hub (agent_hub.h) admits the stream under its caps between the two, and does the rest:
// the agent table, the Registered reply, the refresh. Thread-safe.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_REGISTRAR_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_REGISTRAR_H_

#include <optional>
#include <string>
#include <variant>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "assisted/agent/v1/agent_service.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "grpcpp/support/status.h"
#include "lib/inventory_client/signing_keys.h"
#include "lib/log/log.h"
#include "lib/time/clock.h"
#include "services/orchestrator/agent_session.h"
#include "services/orchestrator/instructions.h"
#include "services/orchestrator/inventory_port.h"

namespace assisted::orchestrator {

struct RegistrarOptions {
  // The service key checking the agents' tokens ("authorization: Bearer" metadata), with each
  // infra-env's own signing key (lib/auth/token.h); empty: no check.
  std::string agent_token_key;
  // How long an infra-env's signing key read from the inventory is used.
  absl::Duration signing_key_ttl = absl::Seconds(5);
};

// A registration refused: why, what the agent should do, and the status its stream ends with.
struct Refusal {
  std::string reason;
  agent::v1::RegistrationAction action;
  grpc::StatusCode code;
};

// A registration recorded.
struct Registration {
  types::v1::Host host;     // as stored now
  bool created = false;     // a host the inventory did not know
  bool same_agent = false;  // the agent process that registered it before, reconnecting
};

class Registrar {
 public:
  // `inventory` and `clock` must outlive the registrar; `registrations` may be null (the
  // registration is only recorded) or must outlive it too.
  Registrar(InventoryPort& inventory, RegistrarOptions options, std::string replica_id,
            RegistrationSink* registrations, const Clock& clock, log::Logger log);

  // Whether `session` may register as `request` says; nullopt when it may.
  std::optional<Refusal> Check(const Session& session, const agent::v1::Register& request);

  // Writes the registration (see the file comment), the host held by this replica.
  std::variant<Registration, Refusal> Record(const agent::v1::Register& request);

 private:
  // OK when the stream's token is an agent token of `infra_env_id` signed with its current
  // signing key, or when no key is configured; UNAUTHENTICATED naming the problem otherwise,
  // or the inventory's error when the key could not be read.
  absl::Status CheckToken(const Session& session, const std::string& infra_env_id);

  InventoryPort& inventory_;
  const RegistrarOptions options_;
  const std::string replica_id_;
  RegistrationSink* const registrations_;
  const Clock& clock_;
  log::Logger log_;
  InfraEnvSigningKeys signing_keys_;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_REGISTRAR_H_
