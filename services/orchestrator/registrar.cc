#include "services/orchestrator/registrar.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/auth/token.h"
#include "lib/time/proto_time.h"
#include "services/orchestrator/step_results.h"

namespace assisted::orchestrator {
namespace {

bool IsLowerUuid(const std::string& id) {
  if (id.size() != 36) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? id[i] != '-' : !(absl::ascii_isdigit(id[i]) || (id[i] >= 'a' && id[i] <= 'f'))) {
      return false;
    }
  }
  return true;
}

// `result`'s value into `out` when it has one; its status either way.
template <typename T>
absl::Status StatusInto(absl::StatusOr<T> result, T& out) {
  if (!result.ok()) return result.status();
  out = *std::move(result);
  return absl::OkStatus();
}

}  // namespace

Registrar::Registrar(InventoryPort& inventory, RegistrarOptions options, std::string replica_id,
                     RegistrationSink* registrations, const Clock& clock, log::Logger log)
    : inventory_(inventory),
      options_(std::move(options)),
      replica_id_(std::move(replica_id)),
      registrations_(registrations),
      clock_(clock),
      log_(std::move(log)),
      signing_keys_(
          [this](const std::string& infra_env_id) {
            return inventory_.GetInfraEnvSigningKey(infra_env_id);
          },
          clock_, InfraEnvSigningKeys::Options{.ttl = options_.signing_key_ttl}) {}

std::optional<Refusal> Registrar::Check(const Session& session,
                                        const agent::v1::Register& request) {
  if (!IsLowerUuid(request.host_id()) || !IsLowerUuid(request.infra_env_id())) {
    return Refusal{"host_id and infra_env_id must be lower-case UUIDs",
                   agent::v1::REGISTRATION_ACTION_GIVE_UP, grpc::StatusCode::INVALID_ARGUMENT};
  }
  if (absl::Status token = CheckToken(session, request.infra_env_id()); !token.ok()) {
    log_.Warning("agent refused", {{"host_id", request.host_id()},
                                   {"infra_env_id", request.infra_env_id()},
                                   {"peer", session.peer()},
                                   {"error", token.message()}});
    // A bad token stays bad; a key that could not be read (inventory down) may be read later.
    if (absl::IsUnauthenticated(token)) {
      return Refusal{std::string(token.message()), agent::v1::REGISTRATION_ACTION_GIVE_UP,
                     grpc::StatusCode::UNAUTHENTICATED};
    }
    return Refusal{absl::StrCat("cannot check the agent token now: ", token.message()),
                   agent::v1::REGISTRATION_ACTION_RETRY, grpc::StatusCode::UNAVAILABLE};
  }
  if (absl::Status sized = CheckInventorySize(request.inventory(), "register.inventory");
      !sized.ok()) {
    return Refusal{std::string(sized.message()), agent::v1::REGISTRATION_ACTION_GIVE_UP,
                   grpc::StatusCode::INVALID_ARGUMENT};
  }
  return std::nullopt;
}

absl::Status Registrar::CheckToken(const Session& session, const std::string& infra_env_id) {
  if (options_.agent_token_key.empty()) return absl::OkStatus();
  if (session.token().empty()) {
    return absl::UnauthenticatedError("missing agent token (authorization: Bearer metadata)");
  }
  absl::StatusOr<auth::TokenClaims> claims = auth::VerifyAgentToken(
      options_.agent_token_key, signing_keys_.Lookup(), session.token(), clock_.Now());
  if (absl::IsPermissionDenied(claims.status())) {
    return absl::UnauthenticatedError(
        absl::StrCat("invalid agent token: ", claims.status().message()));
  }
  if (!claims.ok()) return claims.status();
  if (claims->resource_id != infra_env_id) {
    return absl::UnauthenticatedError(absl::StrCat("the agent token is for infra-env ",
                                                   claims->resource_id, ", not ", infra_env_id));
  }
  return absl::OkStatus();
}

std::variant<Registration, Refusal> Registrar::Record(const agent::v1::Register& request) {
  // One write for a known host (the common case: a whole fleet reconnecting after a restart
  // costs a single inventory call each): the connection facts and the inventory, whatever they
  // were before. NOT_FOUND means a new host.
  const google::protobuf::Timestamp now = ToTimestamp(clock_.Now());
  HostFieldsUpdate update;
  *update.fields.mutable_checked_in_at() = now;
  update.fields.set_agent_stream_holder(replica_id_);
  *update.fields.mutable_inventory() = request.inventory();
  update.fields.set_discovery_agent_version(request.agent_version());
  for (const char* path :
       {"checked_in_at", "agent_stream_holder", "inventory", "discovery_agent_version"}) {
    update.Mark(path);
  }
  if (request.has_agent_time()) {
    // The host's clock, compared with ours by time-synced-between-host-and-service.
    *update.fields.mutable_timestamp() = request.agent_time();
    update.Mark("timestamp");
  }
  types::v1::Host host;
  absl::Status status =
      StatusInto(inventory_.UpdateHost(request.infra_env_id(), request.host_id(), update, 0), host);
  const bool created = absl::IsNotFound(status);
  bool same_agent = false;  // the same agent process as before, reconnecting
  if (created) {
    absl::StatusOr<types::v1::InfraEnv> infra_env = inventory_.GetInfraEnv(request.infra_env_id());
    if (absl::IsNotFound(infra_env.status())) {
      return Refusal{"infra-env " + request.infra_env_id() + " not found",
                     agent::v1::REGISTRATION_ACTION_GIVE_UP, grpc::StatusCode::NOT_FOUND};
    }
    if (!infra_env.ok()) {
      return Refusal{absl::StrCat("inventory unavailable: ", infra_env.status().message()),
                     agent::v1::REGISTRATION_ACTION_RETRY, grpc::StatusCode::UNAVAILABLE};
    }
    types::v1::Host fresh;
    fresh.set_id(request.host_id());
    fresh.set_infra_env_id(request.infra_env_id());
    fresh.set_cluster_id(infra_env->cluster_id());
    *fresh.mutable_inventory() = request.inventory();
    fresh.set_discovery_agent_version(request.agent_version());
    fresh.set_agent_instance_id(request.agent_instance_id());
    *fresh.mutable_registered_at() = now;
    *fresh.mutable_checked_in_at() = now;
    fresh.set_agent_stream_holder(replica_id_);
    if (request.has_agent_time()) *fresh.mutable_timestamp() = request.agent_time();
    status = StatusInto(inventory_.CreateHost(fresh), host);
  } else if (status.ok()) {
    same_agent = host.agent_instance_id() == request.agent_instance_id();
    if (!same_agent) {
      // A new agent process numbers its messages from 1 again.
      HostFieldsUpdate renumber;
      renumber.fields.set_agent_instance_id(request.agent_instance_id());
      renumber.fields.set_agent_applied_seq(0);
      renumber.Mark("agent_instance_id");
      renumber.Mark("agent_applied_seq");
      status = StatusInto(inventory_.UpdateHost(host.infra_env_id(), host.id(), renumber, 0), host);
    }
    if (status.ok() && !same_agent && registrations_ != nullptr) {
      // The machine booted the discovery image again: its state machine decides what that means.
      absl::StatusOr<types::v1::Host> registered = registrations_->OnNewAgent(host);
      if (registered.ok()) {
        host = *std::move(registered);
      } else {
        log_.Warning("registration left the host's status as it was",
                     {{"host_id", host.id()}, {"error", registered.status().message()}});
      }
    }
  }
  if (!status.ok()) {
    return Refusal{absl::StrCat("cannot record the host: ", status.message()),
                   absl::IsInvalidArgument(status) ? agent::v1::REGISTRATION_ACTION_GIVE_UP
                                                   : agent::v1::REGISTRATION_ACTION_RETRY,
                   static_cast<grpc::StatusCode>(status.code())};
  }
  return Registration{std::move(host), created, same_agent};
}

}  // namespace assisted::orchestrator
