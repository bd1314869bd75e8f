#include "services/inventory/signing_key_store.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/random/random.h"
#include "lib/status/status_macros.h"
#include "services/inventory/resource_queries.h"
#include "services/inventory/resource_rows.h"
#include "services/inventory/secret_columns.h"
#include "services/inventory/transaction.h"

namespace assisted::inventory {
namespace {

using resource_rows::Announce;
using resource_rows::Bind;
using resource_rows::Decode;
using resource_rows::Key;
using resource_rows::LogChangesOf;
using resource_rows::NotFound;
using types::v1::InfraEnv;
namespace sql = resource_sql;

}  // namespace

absl::StatusOr<std::string> SigningKeyStore::Get(const Caller& caller,
                                                 const std::string& infra_env_id) {
  // Agent tokens are signed with it: a tenant holding it (and, elsewhere, the service key) could
  // mint them. Only the services ever need it.
  if (!caller.system) {
    return absl::PermissionDeniedError("infra-env signing keys are for the services only");
  }
  const Key key{"", infra_env_id};
  ASSIGN_OR_RETURN(pg::Result stored, ReadOnConnection(pool_, [&](pg::Connection& db) {
                     return db.Exec(sql::kSelectSigningKey, {infra_env_id});
                   }));
  if (stored.rows() == 0) return NotFound<InfraEnv>(key);
  const std::string place = SecretPlace("infra_envs", "signing_key", infra_env_id);
  if (!stored.IsNull(0, 0)) {
    return OpenSigningKey(options_.sealer, absl::HexStringToBytes(stored.Get(0, 0)), place);
  }
  // First use (infra-envs are created without one, and those of before migration 3 have none).
  // Concurrent first uses agree: the first write wins and every caller reads it back.
  ASSIGN_OR_RETURN(std::string fresh, SecureRandomBytes(kSigningKeySize));
  ASSIGN_OR_RETURN(std::string sealed, SealBytes(options_.sealer, fresh, place));
  ASSIGN_OR_RETURN(
      pg::Result made, OnConnection(pool_, [&](pg::Connection& db) {
        return db.Exec(sql::kSetSigningKeyOnce, {infra_env_id, absl::BytesToHexString(sealed)});
      }));
  if (made.rows() == 0) return NotFound<InfraEnv>(key);
  return OpenSigningKey(options_.sealer, absl::HexStringToBytes(made.Get(0, 0)), place);
}

absl::StatusOr<InfraEnv> SigningKeyStore::Regenerate(const Caller& caller,
                                                     const std::string& infra_env_id) {
  ASSIGN_OR_RETURN(std::string fresh, SecureRandomBytes(kSigningKeySize));
  ASSIGN_OR_RETURN(
      std::string sealed,
      SealBytes(options_.sealer, fresh, SecretPlace("infra_envs", "signing_key", infra_env_id)));
  const Key key{"", infra_env_id};
  Query q;
  std::string statement =
      Bind(q, sql::kReplaceSigningKey, {absl::BytesToHexString(sealed), infra_env_id});
  statement += TenancyPredicate(caller, {}, q.params());
  statement += LogChangesOf<InfraEnv>(q, "updated", v1::CHANGE_TYPE_UPDATED);
  return Announce(options_.committed, v1::CHANGE_TYPE_UPDATED,
                  OnConnection(pool_, [&](pg::Connection& db) -> absl::StatusOr<InfraEnv> {
                    ASSIGN_OR_RETURN(pg::Result rows, db.Exec(statement, q.params()));
                    if (rows.rows() == 0) return NotFound<InfraEnv>(key);
                    return Decode<InfraEnv>(rows, 0);
                  }));
}

}  // namespace assisted::inventory
