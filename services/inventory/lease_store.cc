#include "services/inventory/lease_store.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "services/inventory/lease_queries.h"
#include "services/inventory/store_common.h"
#include "services/inventory/transaction.h"

namespace assisted::inventory {

absl::StatusOr<v1::LeaseResponse> LeaseStore::Lease(v1::LeaseAction action, const std::string& name,
                                                    const std::string& holder, absl::Duration ttl) {
  if (name.empty()) return absl::InvalidArgumentError("name: required");
  if (holder.empty()) return absl::InvalidArgumentError("holder: required");
  const int64_t ttl_ms = absl::ToInt64Milliseconds(ttl);
  const bool takes = action == v1::LEASE_ACTION_ACQUIRE || action == v1::LEASE_ACTION_RENEW;
  if (action == v1::LEASE_ACTION_UNSPECIFIED) {
    return absl::InvalidArgumentError("action: required");
  }
  if (takes && (ttl_ms <= 0 || ttl_ms > 3600 * 1000)) {
    return absl::InvalidArgumentError("ttl: must be between 1 ms and 1 hour");
  }
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<v1::LeaseResponse> {
    RETURN_IF_ERROR(tx.Exec(lease_sql::kEnsure, {name}).status());
    ASSIGN_OR_RETURN(pg::Result current, tx.Exec(lease_sql::kLock, {name}));
    const std::string current_holder(current.Get(0, 0));
    const bool live = current.Get(0, 2) == "t" && !current_holder.empty();
    const bool mine = live && current_holder == holder;
    std::optional<absl::Status> written;  // set when the action writes
    auto run = [&](const char* sql, const std::vector<pg::Param>& params) {
      written = tx.Exec(sql, params).status();
    };
    switch (action) {
      case v1::LEASE_ACTION_ACQUIRE:
        if (mine) {
          run(lease_sql::kExtend, {name, absl::StrCat(ttl_ms)});
        } else if (!live) {
          run(lease_sql::kTake, {name, absl::StrCat(ttl_ms), holder});
        }
        break;
      case v1::LEASE_ACTION_RENEW:
        if (mine) run(lease_sql::kExtend, {name, absl::StrCat(ttl_ms)});
        break;
      case v1::LEASE_ACTION_RELEASE:
        if (mine) run(lease_sql::kFree, {name});
        break;
      default:
        break;
    }
    if (written.has_value()) RETURN_IF_ERROR(*written);
    ASSIGN_OR_RETURN(pg::Result after, tx.Exec(lease_sql::kRead, {name}));
    v1::LeaseResponse response;
    const bool held = after.Get(0, 3) == "t" && !after.Get(0, 0).empty();
    response.set_holder(held ? std::string(after.Get(0, 0)) : "");
    response.set_epoch(ToInt64(after.Get(0, 1)));
    response.set_granted(action != v1::LEASE_ACTION_RELEASE && held && response.holder() == holder);
    if (action == v1::LEASE_ACTION_RELEASE) response.set_granted(written.has_value());
    if (held) SetTimestamp(after.Get(0, 2), *response.mutable_expires_at());
    return response;
  });
}

}  // namespace assisted::inventory
