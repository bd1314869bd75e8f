#include "lib/inventory_client/signing_keys.h"

#include <utility>

#include "lib/grpc/channel.h"
#include "lib/status/grpc_status.h"

namespace assisted {

std::unique_ptr<InfraEnvSigningKeys> InfraEnvSigningKeys::FromInventory(
    inventory::v1::InventoryService::StubInterface& inventory, const Clock& clock, Options options,
    absl::Duration timeout) {
  Fetch fetch = [&inventory,
                 timeout](const std::string& infra_env_id) -> absl::StatusOr<std::string> {
    inventory::v1::GetInfraEnvSigningKeyRequest request;
    request.set_infra_env_id(infra_env_id);
    inventory::v1::GetInfraEnvSigningKeyResponse response;
    const grpc::Status status =
        inventory.GetInfraEnvSigningKey(grpcutil::ContextWithin(timeout).get(), request, &response);
    if (!status.ok()) return FromGrpcStatus(status);
    return std::move(*response.mutable_signing_key());
  };
  return std::make_unique<InfraEnvSigningKeys>(std::move(fetch), clock, options);
}

auth::InfraEnvKeyLookup InfraEnvSigningKeys::Lookup() {
  return [this](const std::string& infra_env_id) { return Get(infra_env_id); };
}

absl::StatusOr<std::string> InfraEnvSigningKeys::Get(const std::string& infra_env_id) {
  {
    absl::MutexLock lock(&mu_);
    auto found = entries_.find(infra_env_id);
    if (found != entries_.end() && clock_.Now() - found->second.read_at < options_.ttl) {
      return found->second.key;
    }
  }
  const absl::Time read_at = clock_.Now();
  absl::StatusOr<std::string> key = fetch_(infra_env_id);
  if (!key.ok() || options_.ttl <= absl::ZeroDuration()) return key;
  absl::MutexLock lock(&mu_);
  if (entries_.size() >= options_.max_entries) {
    const absl::Time now = clock_.Now();
    absl::erase_if(entries_,
                   [&](const auto& entry) { return now - entry.second.read_at >= options_.ttl; });
    // Still full of fresh keys (many infra-envs at once): start over rather than grow.
    if (entries_.size() >= options_.max_entries) entries_.clear();
  }
  entries_[infra_env_id] = Entry{*key, read_at};
  return key;
}

}  // namespace assisted
