// File: services/inventory/signing_key_store.h
//
// Infra-env signing keys: the secret mixed into the signatures of an infra-env's agent tokens,
// kept sealed in its row (infra_envs.signing_key). SQL: resource_queries.h.

#ifndef ASSISTED_SERVICES_INVENTORY_SIGNING_KEY_STORE_H_
#define ASSISTED_SERVICES_INVENTORY_SIGNING_KEY_STORE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "google/protobuf/field_mask.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "lib/pg/pool.h"
#include "services/inventory/resource_common.h"
#include "services/inventory/store_common.h"

namespace assisted::inventory {

class SigningKeyStore {
 public:
  explicit SigningKeyStore(pg::Pool& pool, ResourceStoreOptions options = {})
      : pool_(pool), options_(std::move(options)) {}

  // The key, made from SecureRandomBytes on first use. System callers only: PERMISSION_DENIED
  // for tenants (a tenant holding it, and elsewhere the service key, could mint tokens).
  absl::StatusOr<std::string> Get(const Caller& caller, const std::string& infra_env_id);
  // Replaces the key with a new random one, bumping the infra-env's resource_version and
  // logging the change (so caches keyed by the version, like the image service's, let go).
  absl::StatusOr<types::v1::InfraEnv> Regenerate(const Caller& caller,
                                                 const std::string& infra_env_id);

 private:
  pg::Pool& pool_;
  const ResourceStoreOptions options_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_SIGNING_KEY_STORE_H_
