#include "services/inventory/change_log.h"

#include "absl/strings/str_cat.h"

namespace assisted::inventory {

std::string ChangeLogAppend(Query& q, v1::ResourceKind kind, v1::ChangeType type,
                            absl::string_view rows) {
  return absl::StrCat(
      "appended AS (INSERT INTO changes (kind, resource_id, infra_env_id, cluster_id, "
      "resource_version, change_type, status) SELECT ",
      q.Add(v1::ResourceKind_Name(kind)),
      ", id, infra_env_id_text, cluster_id_text, resource_version, ",
      q.Add(v1::ChangeType_Name(type)), ", status FROM ", rows, " RETURNING 1)");
}

absl::Status AppendChange(pg::Transaction& tx, const Change& change) {
  Query q;
  const std::string sql = absl::StrCat(
      "WITH one AS (SELECT ", q.Add(change.id), "::text AS id, ", q.Add(change.infra_env_id),
      "::text AS infra_env_id_text, ", q.Add(change.cluster_id), "::text AS cluster_id_text, ",
      q.Add(absl::StrCat(change.resource_version)), "::bigint AS resource_version, ",
      q.Add(change.status), "::text AS status), ",
      ChangeLogAppend(q, change.kind, change.type, "one"), " SELECT ", kWakeSequencers);
  return tx.Exec(sql, q.params()).status();
}

}  // namespace assisted::inventory
