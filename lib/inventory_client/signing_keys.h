// File: lib/inventory_client/signing_keys.h
//
// Infra-envs' signing keys (the secret mixed into their agent tokens' signatures, see
// lib/auth/token.h), read from the inventory as a system caller and remembered for a short
// while, for the services that verify agent tokens (the orchestrator on AgentService.Connect,
// the gateway on X-Secret-Key). Remembering is what makes a whole fleet of one infra-env
// reconnecting at once cost one inventory read; forgetting after `ttl` is what bounds how long
// a regenerated key takes to be in force: a token signed with the previous key is refused by
// every replica at most `ttl` (5 s by default) after RegenerateInfraEnvSigningKey returned.
// Failures (unknown infra-env, inventory down) are never remembered.
//
//   std::unique_ptr<InfraEnvSigningKeys> keys =
//       InfraEnvSigningKeys::FromInventory(*stub, clock, {}, absl::Seconds(5));
//   auth::VerifyAgentToken(service_key, keys->Lookup(), token, clock.Now());

#ifndef ASSISTED_LIB_INVENTORY_CLIENT_SIGNING_KEYS_H_
#define ASSISTED_LIB_INVENTORY_CLIENT_SIGNING_KEYS_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "lib/auth/token.h"
#include "lib/time/clock.h"

namespace assisted {

class InfraEnvSigningKeys {
 public:
  // Reads one infra-env's key (NOT_FOUND for an unknown one).
  using Fetch = std::function<absl::StatusOr<std::string>(const std::string& infra_env_id)>;

  struct Options {
    absl::Duration ttl = absl::Seconds(5);  // how long a key read is used
    size_t max_entries = 10'000;            // past it, expired keys go, then all of them
  };

  InfraEnvSigningKeys(Fetch fetch, const Clock& clock, Options options)
      : fetch_(std::move(fetch)), clock_(clock), options_(options) {}
  InfraEnvSigningKeys(Fetch fetch, const Clock& clock)
      : InfraEnvSigningKeys(std::move(fetch), clock, Options()) {}

  // Keys read with InventoryService.GetInfraEnvSigningKey through `inventory` (which must
  // outlive the result), as a system caller, each call within `timeout`.
  static std::unique_ptr<InfraEnvSigningKeys> FromInventory(
      inventory::v1::InventoryService::StubInterface& inventory, const Clock& clock,
      Options options, absl::Duration timeout);

  // The key of `infra_env_id`, remembered or read now. Thread-safe; the read happens outside
  // the lock (two callers may both read a key that is not remembered yet).
  absl::StatusOr<std::string> Get(const std::string& infra_env_id);

  // Get, as auth::VerifyAgentToken takes it. This object must outlive the result.
  auth::InfraEnvKeyLookup Lookup();

 private:
  struct Entry {
    std::string key;
    absl::Time read_at;
  };

  const Fetch fetch_;
  const Clock& clock_;
  const Options options_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace assisted

#endif  // ASSISTED_LIB_INVENTORY_CLIENT_SIGNING_KEYS_H_
