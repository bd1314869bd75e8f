// File: services/inventory/change_log.h
//
// The one way anything enters the change log (the `changes` table, numbered later by the
// sequencer in change_feed.h). Every writer appends in the same transaction as its write, so a
// change is logged exactly when it commits:
// - a write of resource rows appends with ChangeLogAppend, a CTE in the write's own statement
//   (one round trip however many rows it touches);
// - a writer that describes its change itself (an event, an artifact) calls AppendChange, which
//   runs ChangeLogAppend over that one row.
// Either way the statement selects kWakeSequencers, so every replica's sequencer hears of the
// append at commit (NOTIFY).

#ifndef ASSISTED_SERVICES_INVENTORY_CHANGE_LOG_H_
#define ASSISTED_SERVICES_INVENTORY_CHANGE_LOG_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "lib/pg/pool.h"
#include "services/inventory/store_common.h"

namespace assisted::inventory {

// One change-log entry, as written and as hinted to watchers (change_hints.h).
struct Change {
  v1::ResourceKind kind;
  std::string id;
  std::string infra_env_id;
  std::string cluster_id;
  int64_t resource_version = 0;
  v1::ChangeType type;
  std::string status;  // enum value name, or ""
};

// The CTE `appended AS (INSERT INTO changes …)` appending one entry of `kind` and `type` per row
// of `rows`: the name of an earlier CTE (typically a write's RETURNING) whose columns include
// id, infra_env_id_text, cluster_id_text, resource_version (bigint) and status, all text but
// the version. Its parameters are added to `q`. The statement must select kWakeSequencers.
std::string ChangeLogAppend(Query& q, v1::ResourceKind kind, v1::ChangeType type,
                            absl::string_view rows);

// An SQL expression (one bigint: the entries appended) to select in every statement holding
// ChangeLogAppend: NOTIFY at commit, folded by PostgreSQL into one per transaction.
inline constexpr char kWakeSequencers[] =
    "(SELECT count(*) FROM (SELECT pg_notify('assisted_change', '') FROM appended) AS notified)";

// Appends `change` within `tx` (ChangeLogAppend over that one row).
absl::Status AppendChange(pg::Transaction& tx, const Change& change);

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_CHANGE_LOG_H_
