// File: services/inventory/resource_rows.h
//
// INTERNAL to the resource stores (cluster_store, infra_env_store, host_store,
// signing_key_store): how a cluster, infra-env or host is one row. Traits<M> names each kind's
// table, key and columns; the templates below read, insert, rewrite, compare-and-set and delete
// such rows, each write with its change-log append in the same statement or transaction. Their
// SQL is resource_queries.h.

#ifndef ASSISTED_SERVICES_INVENTORY_RESOURCE_ROWS_H_
#define ASSISTED_SERVICES_INVENTORY_RESOURCE_ROWS_H_

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "google/protobuf/field_mask.pb.h"
#include "google/protobuf/util/field_mask_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "lib/crypto/sealed.h"
#include "lib/pg/pool.h"
#include "lib/status/status_macros.h"
#include "lib/step_reports/reference_json.h"
#include "lib/time/proto_time.h"
#include "services/inventory/change_log.h"
#include "services/inventory/resource_common.h"
#include "services/inventory/resource_queries.h"
#include "services/inventory/secret_columns.h"
#include "services/inventory/store_common.h"
#include "services/inventory/transaction.h"

namespace assisted::inventory::resource_rows {

using google::protobuf::FieldMask;
using google::protobuf::util::FieldMaskUtil;
using types::v1::Cluster;
using types::v1::Host;
using types::v1::InfraEnv;
namespace sql = resource_sql;

// A resource's primary key; infra_env_id is used by hosts only.
struct Key {
  std::string infra_env_id;
  std::string id;
};

// A column written from the resource, beyond those every resource table has. `expr` is the SQL
// for the value with "?" standing for its parameter.
struct Column {
  const char* name;
  pg::Param value;
  const char* expr = sql::kTextValue;
};

// Output-only paths no Update may name: they are set by the store or by UpdateXStatus.
inline const std::vector<std::string>& ReservedPaths() {
  static const std::vector<std::string> kPaths = {
      "id",         "owner",      "status",     "status_info",      "status_updated_at",
      "created_at", "updated_at", "deleted_at", "resource_version", "pull_secret_set"};
  return kPaths;
}

// Moves status_info and status_updated_at of a cluster or host from `from` to `to`.
template <typename M>
void MoveStatusFields(M& from, M& to) {
  to.set_status_info(std::move(*from.mutable_status_info()));
  from.clear_status_info();
  if (from.has_status_updated_at()) {
    to.mutable_status_updated_at()->Swap(from.mutable_status_updated_at());
    from.clear_status_updated_at();
  }
}

template <typename M>
struct Traits;

template <>
struct Traits<Cluster> {
  static constexpr v1::ResourceKind kKind = v1::RESOURCE_KIND_CLUSTER;
  static constexpr const char* kTable = sql::kClusterTable;
  static constexpr char kNoun[] = "cluster";
  static constexpr bool kHasSecret = true;
  static constexpr const char* kKeyPredicate = sql::kIdKey;
  static constexpr const char* kClusterIdExpr = sql::kOwnIdText;
  static constexpr const char* kInfraEnvIdExpr = sql::kNoIdText;

  static Key KeyOf(const Cluster& c) { return {"", c.id()}; }
  static std::string ClusterIdOf(const Cluster& c) { return c.id(); }
  static std::string InfraEnvIdOf(const Cluster&) { return ""; }
  static std::vector<pg::Param> KeyParams(const Key& key) { return {key.id}; }
  static std::string Describe(const Key& key) { return absl::StrCat("cluster ", key.id); }
  static std::string StatusName(const Cluster& c) {
    return types::v1::ClusterStatus_Name(c.status());
  }
  static void SetStatus(absl::string_view name, Cluster& c) {
    types::v1::ClusterStatus status;
    if (types::v1::ClusterStatus_Parse(std::string(name), &status)) c.set_status(status);
  }
  static std::vector<Column> Extra(const Cluster& c) {
    return {{"cluster_id", c.id(), sql::kUuidValue},
            {"kind", types::v1::ClusterKind_Name(c.kind())}};
  }
  static std::vector<std::string> ExtraReservedPaths() { return {"hosts"}; }
  static void SetKeyColumns(absl::string_view, absl::string_view, bool secret_set, Cluster& c) {
    c.set_pull_secret_set(secret_set);
  }
  static bool IsDeleted(const Cluster& c) { return c.has_deleted_at(); }
  static void ClearKeyColumns(Cluster& c) {
    c.clear_status();
    c.clear_pull_secret_set();
    c.clear_deleted_at();
    c.clear_hosts();
    c.clear_ready_host_count();
    c.clear_enabled_host_count();
    c.clear_total_host_count();
  }
  static void MoveSqlFields(Cluster& from, Cluster& to) {
    MoveStatusFields(from, to);
    to.set_openshift_cluster_id(std::move(*from.mutable_openshift_cluster_id()));
    from.clear_openshift_cluster_id();
  }
  static void SetStatusTime(const google::protobuf::Timestamp& at, Cluster& c) {
    *c.mutable_status_updated_at() = at;
  }
  static void UpgradeStored(Cluster&) {}
  static void SetDeletedAt(const google::protobuf::Timestamp& at, Cluster& c) {
    *c.mutable_deleted_at() = at;
  }
  static absl::Status Validate(const Validators& v, const Cluster& c) {
    return v.cluster ? v.cluster(c) : absl::OkStatus();
  }
};

template <>
struct Traits<InfraEnv> {
  static constexpr v1::ResourceKind kKind = v1::RESOURCE_KIND_INFRA_ENV;
  static constexpr const char* kTable = sql::kInfraEnvTable;
  static constexpr char kNoun[] = "infra-env";
  static constexpr bool kHasSecret = true;
  static constexpr const char* kKeyPredicate = sql::kIdKey;
  static constexpr const char* kClusterIdExpr = sql::kClusterIdText;
  static constexpr const char* kInfraEnvIdExpr = sql::kOwnIdText;

  static Key KeyOf(const InfraEnv& e) { return {"", e.id()}; }
  static std::string ClusterIdOf(const InfraEnv& e) { return e.cluster_id(); }
  static std::string InfraEnvIdOf(const InfraEnv& e) { return e.id(); }
  static std::vector<pg::Param> KeyParams(const Key& key) { return {key.id}; }
  static std::string Describe(const Key& key) { return absl::StrCat("infra-env ", key.id); }
  static std::string StatusName(const InfraEnv&) { return ""; }
  static void SetStatus(absl::string_view, InfraEnv&) {}
  static std::vector<Column> Extra(const InfraEnv& e) {
    return {{"cluster_id", e.cluster_id(), sql::kUuidOrNullValue}};
  }
  static std::vector<std::string> ExtraReservedPaths() { return {}; }
  static void SetKeyColumns(absl::string_view cluster_id, absl::string_view, bool secret_set,
                            InfraEnv& e) {
    e.set_cluster_id(std::string(cluster_id));
    e.set_pull_secret_set(secret_set);
  }
  static bool IsDeleted(const InfraEnv&) { return false; }
  static void ClearKeyColumns(InfraEnv& e) {
    e.clear_pull_secret_set();
    e.clear_cluster_id();
  }
  static void MoveSqlFields(InfraEnv&, InfraEnv&) {}
  static void SetStatusTime(const google::protobuf::Timestamp&, InfraEnv&) {}
  static void SetDeletedAt(const google::protobuf::Timestamp&, InfraEnv&) {}
  static void UpgradeStored(InfraEnv&) {}
  static absl::Status Validate(const Validators& v, const InfraEnv& e) {
    return v.infra_env ? v.infra_env(e) : absl::OkStatus();
  }
};

template <>
struct Traits<Host> {
  static constexpr v1::ResourceKind kKind = v1::RESOURCE_KIND_HOST;
  static constexpr const char* kTable = sql::kHostTable;
  static constexpr char kNoun[] = "host";
  static constexpr bool kHasSecret = false;
  static constexpr const char* kKeyPredicate = sql::kHostKey;
  static constexpr const char* kClusterIdExpr = sql::kClusterIdText;
  static constexpr const char* kInfraEnvIdExpr = sql::kInfraEnvIdText;

  static Key KeyOf(const Host& h) { return {h.infra_env_id(), h.id()}; }
  static std::string ClusterIdOf(const Host& h) { return h.cluster_id(); }
  static std::string InfraEnvIdOf(const Host& h) { return h.infra_env_id(); }
  static std::vector<pg::Param> KeyParams(const Key& key) { return {key.infra_env_id, key.id}; }
  static std::string Describe(const Key& key) {
    return absl::StrCat("host ", key.id, " of infra-env ", key.infra_env_id);
  }
  static std::string StatusName(const Host& h) { return types::v1::HostStatus_Name(h.status()); }
  static void SetStatus(absl::string_view name, Host& h) {
    types::v1::HostStatus status;
    if (types::v1::HostStatus_Parse(std::string(name), &status)) h.set_status(status);
  }
  static std::vector<Column> Extra(const Host& h) {
    return {{"infra_env_id", h.infra_env_id(), sql::kUuidValue},
            {"cluster_id", h.cluster_id(), sql::kUuidOrNullValue},
            {"role", types::v1::HostRole_Name(h.role())}};
  }
  static std::vector<std::string> ExtraReservedPaths() { return {"infra_env_id"}; }
  static void SetKeyColumns(absl::string_view cluster_id, absl::string_view infra_env_id, bool,
                            Host& h) {
    h.set_cluster_id(std::string(cluster_id));
    h.set_infra_env_id(std::string(infra_env_id));
  }
  static bool IsDeleted(const Host& h) { return h.has_deleted_at(); }
  static void ClearKeyColumns(Host& h) {
    h.clear_status();
    h.clear_cluster_id();
    h.clear_infra_env_id();
    h.clear_deleted_at();
  }
  static void MoveSqlFields(Host& from, Host& to) {
    MoveStatusFields(from, to);
    to.set_agent_stream_holder(std::move(*from.mutable_agent_stream_holder()));
    from.clear_agent_stream_holder();
  }
  static void SetStatusTime(const google::protobuf::Timestamp& at, Host& h) {
    *h.mutable_status_updated_at() = at;
  }
  static void SetDeletedAt(const google::protobuf::Timestamp& at, Host& h) {
    *h.mutable_deleted_at() = at;
  }
  // Rows written before the typed report fields keep the reports as JSON text; the typed
  // fields are what every reader uses.
  static void UpgradeStored(Host& h) { step_reports::UpgradeLegacyReports(h); }
  static absl::Status Validate(const Validators& v, const Host& h) {
    return v.host ? v.host(h) : absl::OkStatus();
  }
};

// Replaces each "?" in `pattern` with the next parameter of `q` taken from `values`.
inline std::string Bind(Query& q, absl::string_view pattern, const std::vector<pg::Param>& values) {
  std::string bound;
  size_t next = 0;
  for (char c : pattern) {
    if (c == '?') {
      bound += q.Add(values.at(next++));
    } else {
      bound += c;
    }
  }
  return bound;
}

// Columns read for every resource, in Decode's order (sql::kColumns), computed once per kind.
template <typename M>
const std::string& SelectList() {
  using T = Traits<M>;
  static const std::string kList =
      absl::StrFormat(sql::kColumns, T::kHasSecret ? sql::kSecretSet : sql::kNoSecret,
                      T::kClusterIdExpr, T::kInfraEnvIdExpr);
  return kList;
}
using sql::kNowColumn;
using sql::kPbColumn;

// `written`, when given, is the document the row was just written with: it saves parsing the
// JSON back (the hot path of creates).
template <typename M>
absl::StatusOr<M> Decode(const pg::Result& rows, int row, const M* written = nullptr) {
  using T = Traits<M>;
  M message;
  if (written != nullptr) {
    message = *written;
    T::ClearKeyColumns(message);  // as Document() stored it; the columns below fill them in
  } else {
    RETURN_IF_ERROR(FromJson(rows.Get(row, 5), message));
    if (!rows.IsNull(row, kPbColumn)) {
      const std::string binary = absl::HexStringToBytes(rows.Get(row, kPbColumn));
      if (!message.MergeFromString(binary)) {
        return absl::DataLossError(absl::StrCat("stored ", T::kNoun, " is unreadable"));
      }
    }
  }
  T::UpgradeStored(message);
  message.set_id(std::string(rows.Get(row, 0)));
  message.mutable_owner()->set_user_name(std::string(rows.Get(row, 1)));
  message.mutable_owner()->set_org_id(std::string(rows.Get(row, 2)));
  T::SetStatus(rows.Get(row, 3), message);
  int64_t version = 0;
  (void)absl::SimpleAtoi(rows.Get(row, 4), &version);
  message.set_resource_version(version);
  SetTimestamp(rows.Get(row, 7), *message.mutable_created_at());
  SetTimestamp(rows.Get(row, 8), *message.mutable_updated_at());
  if (!rows.IsNull(row, 9)) {
    google::protobuf::Timestamp deleted;
    SetTimestamp(rows.Get(row, 9), deleted);
    T::SetDeletedAt(deleted, message);
  }
  T::SetKeyColumns(rows.Get(row, 10), rows.Get(row, 11), rows.Get(row, 6) == "t", message);
  return message;
}

// How a resource is stored beyond its columns. `doc` (jsonb) holds the few fields that SQL edits
// or filters in place (Traits::MoveSqlFields: the status-only compare-and-set sets status_info
// and status_updated_at inside its statement; clusters are listed by openshift_cluster_id,
// hosts by agent_stream_holder);
// `pb` holds the rest as the binary proto, which costs a fraction of JSON to write and to read
// back (a host with its inventory is several KB). Rows written before `pb` existed keep
// everything in `doc` until their next write; Decode reads both forms.
struct Stored {
  std::string doc;     // JSON
  std::string pb_hex;  // the binary proto, hex-encoded for a text parameter
};

template <typename M>
Stored Document(M message) {
  message.clear_id();
  message.mutable_owner()->clear_user_name();
  message.mutable_owner()->clear_org_id();
  message.clear_resource_version();
  message.clear_created_at();
  message.clear_updated_at();
  Traits<M>::ClearKeyColumns(message);
  M sql_fields;
  Traits<M>::MoveSqlFields(message, sql_fields);
  return {ToJson(sql_fields), absl::BytesToHexString(message.SerializeAsString())};
}

template <typename M>
absl::Status NotFound(const Key& key) {
  return absl::NotFoundError(absl::StrCat(Traits<M>::Describe(key), " not found"));
}

// The SELECT of one row visible to `caller` (deleted rows only when asked).
template <typename M>
std::string SelectRow(Query& q, const Caller& caller, const Key& key, bool include_deleted) {
  using T = Traits<M>;
  std::string select =
      Bind(q, absl::StrFormat(sql::kSelectRow, SelectList<M>(), T::kTable, T::kKeyPredicate),
           T::KeyParams(key));
  select += TenancyPredicate(caller, {}, q.params());
  if (!include_deleted) select += sql::kLive;
  return select;
}

// Reads one row visible to `caller`, optionally locking it. Deleted rows only when asked.
template <typename M, typename Db>
absl::StatusOr<M> ReadRow(Db& tx, const Caller& caller, const Key& key, bool include_deleted,
                          bool lock, google::protobuf::Timestamp* now) {
  Query q;
  std::string select = SelectRow<M>(q, caller, key, include_deleted);
  if (lock) select += sql::kLock;
  ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(select, q.params()));
  if (rows.rows() == 0) return NotFound<M>(key);
  if (now != nullptr) SetTimestamp(rows.Get(0, kNowColumn), *now);
  return Decode<M>(rows, 0);
}

template <typename M>
Change ChangeOf(const M& message, v1::ChangeType type) {
  using T = Traits<M>;
  return {T::kKind,
          message.id(),
          T::KeyOf(message).infra_env_id,
          T::ClusterIdOf(message),
          message.resource_version(),
          type,
          T::StatusName(message)};
}

// Tells `hook` of a committed create or update of one resource and passes the result on.
template <typename M>
absl::StatusOr<M> Announce(const CommitHook& hook, v1::ChangeType type, absl::StatusOr<M> written) {
  if (written.ok() && hook) hook(ChangeOf(*written, type));
  return written;
}

// What a create or update did: the row as it stands, and whether this call wrote it (a create
// retried, an update to the same values, find the row as wanted and write nothing).
template <typename M>
struct Written {
  M row;
  bool written = false;
};

// Announce for a write that may have found nothing to write: only a write is told to `hook`.
template <typename M>
absl::StatusOr<M> AnnounceWritten(const CommitHook& hook, v1::ChangeType type,
                                  absl::StatusOr<Written<M>> result) {
  if (!result.ok()) return result.status();
  if (!result->written) return std::move(result->row);
  return Announce(hook, type, absl::StatusOr<M>(std::move(result->row)));
}

// The tail of a statement `WITH <cte> AS (<write>`: returns the written rows, appends a change
// per written row to the log, wakes the sequencer, and selects the written rows (Decode-able).
// Writing and logging in one statement keeps single-row writes to one round trip.
template <typename M>
std::string LogChangesOf(Query& q, absl::string_view cte, v1::ChangeType type) {
  return absl::StrCat(absl::StrFormat(sql::kReturning, SelectList<M>()), ", ",
                      ChangeLogAppend(q, Traits<M>::kKind, type, cte),
                      absl::StrFormat(sql::kSelectLogged, cte, kWakeSequencers));
}

// Writes `message`'s document and columns over the existing row, bumps its version and logs the
// change, in one statement. With `at_version`, only if the row is still at that version (and not
// deleted, which bumps it too): std::nullopt when it is not.
template <typename M, typename Db>
absl::StatusOr<std::optional<M>> RewriteIf(Db& db, const M& message, const pg::Param* secret,
                                           v1::ChangeType change,
                                           std::optional<int64_t> at_version) {
  using T = Traits<M>;
  const Stored stored = Document(message);
  std::vector<pg::Param> values = {stored.doc, stored.pb_hex, T::StatusName(message)};
  std::string further;
  for (const Column& column : T::Extra(message)) {
    further += absl::StrFormat(sql::kSetColumn, column.name, column.expr);
    values.push_back(column.value);
  }
  if (secret != nullptr) {
    further += absl::StrFormat(sql::kSetColumn, "secret", sql::kTextValue);
    values.push_back(*secret);
  }
  for (pg::Param& key : T::KeyParams(T::KeyOf(message))) values.push_back(std::move(key));
  std::string shape = absl::StrFormat(sql::kRewrite, T::kTable, further, T::kKeyPredicate);
  if (at_version.has_value()) {
    shape += sql::kAtVersion;
    values.push_back(absl::StrCat(*at_version));
  }
  Query q;
  const std::string statement = Bind(q, shape, values) + LogChangesOf<M>(q, "updated", change);
  ASSIGN_OR_RETURN(pg::Result rows, db.Exec(statement, q.params()));
  if (rows.rows() == 0) return std::nullopt;
  return Decode<M>(rows, 0, &message);  // the stored form is `message`'s: no need to parse it
}

// RewriteIf of a row locked in `tx` (so it is there, unless deleted meanwhile by this `tx`).
template <typename M>
absl::StatusOr<M> Rewrite(pg::Transaction& tx, const M& message, const pg::Param* secret,
                          v1::ChangeType change) {
  ASSIGN_OR_RETURN(std::optional<M> written, RewriteIf(tx, message, secret, change, std::nullopt));
  if (!written.has_value()) return NotFound<M>(Traits<M>::KeyOf(message));
  return *std::move(written);
}

template <typename M>
M WithoutColumns(M message) {
  message.clear_id();
  message.clear_resource_version();
  message.clear_created_at();
  message.clear_updated_at();
  Traits<M>::ClearKeyColumns(message);
  return message;
}

// Where a new row's owner comes from: the caller (a constant source), or, for hosts, the
// infra-env they register into, which must exist and be visible to the caller.
struct OwnerSource {
  std::string from = sql::kNoSource;  // FROM clause (may carry a WHERE)
  std::string user;                   // SQL for owner_user
  std::string org;                    // SQL for owner_org
};

// Inserts a new row (version 1) and its change-log entry in ONE statement, so a create costs a
// single round trip. An existing row with the same key and content is returned as is, so a
// client may retry a create whose answer it lost. NOT_FOUND when `owner_from` selects nothing.
template <typename M, typename Db>
absl::StatusOr<Written<M>> Insert(Db& db, const Caller& caller, M message, const pg::Param& secret,
                                  const std::function<OwnerSource(Query&)>& owner_from = nullptr) {
  using T = Traits<M>;
  if (message.id().empty()) message.set_id(NewUuid());
  if (!owner_from) *message.mutable_owner() = OwnerFor(caller, message.owner());
  Query q;
  OwnerSource owner;
  if (owner_from) {
    owner = owner_from(q);
  } else {
    owner.user = q.Add(message.owner().user_name());
    owner.org = q.Add(message.owner().org_id());
  }
  const Stored stored = Document(message);
  std::vector<pg::Param> values = {message.id(), T::StatusName(message), stored.doc, stored.pb_hex};
  std::string further_columns;
  std::vector<std::string> further_values;
  if (T::kHasSecret) {
    further_columns += ", secret";
    further_values.push_back(sql::kTextValue);
    values.push_back(secret);
  }
  for (const Column& column : T::Extra(message)) {
    absl::StrAppend(&further_columns, ", ", column.name);
    further_values.push_back(column.expr);
    values.push_back(column.value);
  }
  const std::string shape = absl::StrFormat(
      sql::kInsert, T::kTable, further_columns, owner.user, owner.org,
      further_values.empty() ? "" : absl::StrCat(", ", absl::StrJoin(further_values, ", ")),
      owner.from);
  const std::string statement =
      Bind(q, shape, values) + LogChangesOf<M>(q, "inserted", v1::CHANGE_TYPE_CREATED);
  ASSIGN_OR_RETURN(pg::Result inserted, db.Exec(statement, q.params()));
  if (inserted.rows() == 1) {
    ASSIGN_OR_RETURN(M row, Decode<M>(inserted, 0, &message));
    return Written<M>{std::move(row), true};
  }
  const Key key = T::KeyOf(message);
  absl::StatusOr<M> existing = ReadRow<M>(db, Caller::System(), key, true, false, nullptr);
  if (owner_from) {
    // Nothing inserted: either the owner source was not visible, or the row exists.
    if (existing.status().code() == absl::StatusCode::kNotFound ||
        !ReadRow<M>(db, caller, key, true, false, nullptr).ok()) {
      return absl::NotFoundError(
          absl::StrCat("infra-env ", T::InfraEnvIdOf(message), " not found"));
    }
    message.mutable_owner()->set_user_name(existing->owner().user_name());
    message.mutable_owner()->set_org_id(existing->owner().org_id());
  }
  if (existing.ok() && existing->owner().user_name() == message.owner().user_name() &&
      existing->owner().org_id() == message.owner().org_id() && !T::IsDeleted(*existing) &&
      google::protobuf::util::MessageDifferencer::Equivalent(WithoutColumns(*existing),
                                                             WithoutColumns(message))) {
    return Written<M>{*std::move(existing), false};
  }
  return absl::AlreadyExistsError(absl::StrCat(T::Describe(key), " already exists"));
}

// Runs a write of one row of kind M that is one statement, or one statement and a read when it
// refuses (`fn`, callable as absl::StatusOr<T>(Db&) on a pg::Connection and a pg::Transaction):
// through `group` when there is one, sharing its commit with the writes that arrive with it
// (group_commit.h), else on a connection of its own, the statement committing by itself. The
// batch's lock order is the row's table, then its key: clusters before hosts, as everywhere.
template <typename M, typename Fn>
auto WriteOne(pg::Pool& pool, GroupCommitter* group, const Key& key, Fn&& fn)
    -> std::invoke_result_t<Fn&, pg::Connection&> {
  using Result = std::invoke_result_t<Fn&, pg::Connection&>;
  if (group == nullptr) return OnConnection(pool, [&](pg::Connection& db) { return fn(db); });
  return group->Commit<typename Result::value_type>(
      absl::StrCat(Traits<M>::kTable, "/", key.infra_env_id, "/", key.id),
      [&](pg::Connection& db) { return fn(db); });
}

inline absl::Status CheckVersion(absl::string_view what, int64_t expected, int64_t actual) {
  if (expected == 0 || expected == actual) return absl::OkStatus();
  return absl::AbortedError(absl::StrCat(what, " was modified: resource_version is ", actual,
                                         ", expected ", expected, "; re-read and retry"));
}

// Checks `mask` names real, writable fields of M. `extra_allowed` are accepted as is (like
// "pull_secret") and removed from the returned mask.
template <typename M>
absl::StatusOr<google::protobuf::FieldMask> WritableMask(const google::protobuf::FieldMask& mask,
                                                         absl::string_view mask_name,
                                                         bool allow_empty) {
  using T = Traits<M>;
  if (mask.paths().empty() && !allow_empty) {
    return absl::InvalidArgumentError(absl::StrCat(mask_name, ": empty; name the fields to write"));
  }
  std::vector<std::string> reserved = ReservedPaths();
  for (std::string& path : T::ExtraReservedPaths()) reserved.push_back(std::move(path));
  google::protobuf::FieldMask writable;
  for (const std::string& path : mask.paths()) {
    if (path == "pull_secret" && T::kHasSecret) continue;
    const std::string top = path.substr(0, path.find('.'));
    if (std::find(reserved.begin(), reserved.end(), top) != reserved.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(mask_name, ": \"", path, "\" cannot be written here",
                       top.rfind("status", 0) == 0 ? " (status changes use compare-and-set)" : ""));
    }
    if (!FieldMaskUtil::GetFieldDescriptors(M::descriptor(), path, nullptr)) {
      return absl::InvalidArgumentError(
          absl::StrCat(mask_name, ": \"", path, "\" is not a field of ", M::descriptor()->name()));
    }
    writable.add_paths(path);
  }
  return writable;
}

inline bool MaskHas(const google::protobuf::FieldMask& mask, absl::string_view path) {
  return std::find(mask.paths().begin(), mask.paths().end(), path) != mask.paths().end();
}

inline void Merge(const google::protobuf::Message& patch, const google::protobuf::FieldMask& mask,
                  google::protobuf::Message& target) {
  FieldMaskUtil::MergeOptions options;
  options.set_replace_message_fields(true);
  options.set_replace_repeated_fields(true);
  FieldMaskUtil::MergeMessageTo(patch, mask, options, &target);
}

// Field-mask update with optimistic concurrency, input checks and (optionally) a new secret.
// A fenced write runs in a transaction, under the row lock, after the fence check. An unfenced
// one (nearly all) is a read and then a write conditional on the version read, with no
// transaction: two round trips instead of five. A writer that got in
// between makes the write miss, and the update re-reads and merges again; after a few misses
// it takes the row lock like a fenced write, so a busy row still makes progress.
template <typename M>
absl::StatusOr<Written<M>> UpdateFields(pg::Pool& pool, const Caller& caller,
                                        const Validators& validators, const M& patch,
                                        const google::protobuf::FieldMask& mask,
                                        int64_t expected_version, const Fence& fence,
                                        const std::string& secret, const crypto::Sealer* sealer) {
  using T = Traits<M>;
  const Key key = T::KeyOf(patch);
  if (key.id.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(T::kNoun, ".id: required"));
  }
  ASSIGN_OR_RETURN(google::protobuf::FieldMask writable,
                   WritableMask<M>(mask, "update_mask", /*allow_empty=*/false));
  const bool writes_secret = T::kHasSecret && MaskHas(mask, "pull_secret");
  pg::Param new_secret;
  if (writes_secret) {
    ASSIGN_OR_RETURN(new_secret,
                     SealText(sealer, secret, SecretPlace(T::kTable, "secret", key.id)));
  }
  const pg::Param* secret_to_write = writes_secret ? &new_secret : nullptr;
  auto merge = [&](const M& current) -> absl::StatusOr<M> {
    RETURN_IF_ERROR(CheckVersion(T::Describe(key), expected_version, current.resource_version()));
    M merged = current;
    Merge(patch, writable, merged);
    RETURN_IF_ERROR(T::Validate(validators, merged));
    if (writes_secret && validators.pull_secret) RETURN_IF_ERROR(validators.pull_secret(secret));
    return merged;
  };
  // An update that leaves the row as it is (an agent re-registering with the same facts) writes
  // nothing: no version bump, no change-log entry, no WAL. A new secret always counts as a
  // change, since its sealed form cannot be compared.
  auto unchanged = [&](const M& current, const M& merged) {
    return !writes_secret && google::protobuf::util::MessageDifferencer::Equals(current, merged);
  };
  auto locked = [&] {
    return InTransaction(pool, [&](pg::Transaction& tx) -> absl::StatusOr<Written<M>> {
      RETURN_IF_ERROR(CheckFence(tx, fence));
      ASSIGN_OR_RETURN(M current, ReadRow<M>(tx, caller, key, false, /*lock=*/true, nullptr));
      ASSIGN_OR_RETURN(M merged, merge(current));
      if (unchanged(current, merged)) return Written<M>{std::move(current), false};
      ASSIGN_OR_RETURN(M written, Rewrite(tx, merged, secret_to_write, v1::CHANGE_TYPE_UPDATED));
      return Written<M>{std::move(written), true};
    });
  };
  if (!fence.lease.empty()) return locked();
  constexpr int kOptimisticAttempts = 3;
  for (int attempt = 0; attempt < kOptimisticAttempts; ++attempt) {
    ASSIGN_OR_RETURN(M current, ReadOnConnection(pool, [&](pg::Connection& db) {
                       return ReadRow<M>(db, caller, key, false, false, nullptr);
                     }));
    ASSIGN_OR_RETURN(M merged, merge(current));
    if (unchanged(current, merged)) return Written<M>{std::move(current), false};
    ASSIGN_OR_RETURN(std::optional<M> written, OnConnection(pool, [&](pg::Connection& db) {
                       return RewriteIf(db, merged, secret_to_write, v1::CHANGE_TYPE_UPDATED,
                                        current.resource_version());
                     }));
    if (written.has_value()) return Written<M>{*std::move(written), true};
  }
  return locked();  // a busy row: wait for its lock instead of racing again
}

// UpdateFields with a store's options; a success is told to its commit hook.
template <typename M>
absl::StatusOr<M> UpdateAndAnnounce(pg::Pool& pool, const Caller& caller,
                                    const ResourceStoreOptions& options, const M& patch,
                                    const google::protobuf::FieldMask& mask,
                                    const Precondition& precondition,
                                    const std::string& pull_secret) {
  return AnnounceWritten(
      options.committed, v1::CHANGE_TYPE_UPDATED,
      UpdateFields(pool, caller, options.validators, patch, mask, precondition.resource_version,
                   precondition.fence, pull_secret, options.sealer));
}

// Status compare-and-set without a patch or fence, the orchestrator's most frequent write, in
// one statement. Only the status, status_info and status_updated_at change.
template <typename M, typename Db>
absl::StatusOr<M> CompareAndSetStatusOnly(Db& db, const Caller& caller, const Key& key,
                                          const std::string& expected_status,
                                          const std::string& new_status,
                                          const std::string& status_info) {
  using T = Traits<M>;
  std::vector<pg::Param> values = {new_status, status_info};
  for (pg::Param& part : T::KeyParams(key)) values.push_back(std::move(part));
  values.push_back(expected_status);
  Query q;
  std::string statement =
      Bind(q, absl::StrFormat(sql::kSetStatusOnly, T::kTable, T::kKeyPredicate), values);
  statement += TenancyPredicate(caller, {}, q.params());
  statement += LogChangesOf<M>(q, "updated", v1::CHANGE_TYPE_UPDATED);
  ASSIGN_OR_RETURN(pg::Result updated, db.Exec(statement, q.params()));
  if (updated.rows() == 1) return Decode<M>(updated, 0);
  ASSIGN_OR_RETURN(M current, ReadRow<M>(db, caller, key, false, false, nullptr));
  return absl::AbortedError(absl::StrCat(T::Describe(key), " is ", T::StatusName(current),
                                         ", expected ", expected_status));
}

// Status compare-and-set: `target` carries the new status; patch fields are written with it.
template <typename M>
absl::StatusOr<M> CompareAndSetStatus(pg::Transaction& tx, const Caller& caller,
                                      const Validators& validators, const Key& key,
                                      const std::string& expected_status, M target,
                                      const std::string& status_info, const M& patch,
                                      const google::protobuf::FieldMask& patch_mask,
                                      const Fence& fence) {
  using T = Traits<M>;
  if (key.id.empty()) return absl::InvalidArgumentError("id: required");
  ASSIGN_OR_RETURN(google::protobuf::FieldMask writable,
                   WritableMask<M>(patch_mask, "patch_mask", /*allow_empty=*/true));
  RETURN_IF_ERROR(CheckFence(tx, fence));
  google::protobuf::Timestamp now;
  ASSIGN_OR_RETURN(M current, ReadRow<M>(tx, caller, key, false, /*lock=*/true, &now));
  if (T::StatusName(current) != expected_status) {
    return absl::AbortedError(absl::StrCat(T::Describe(key), " is ", T::StatusName(current),
                                           ", expected ", expected_status));
  }
  M merged = current;
  Merge(patch, writable, merged);
  RETURN_IF_ERROR(T::Validate(validators, merged));
  T::SetStatus(T::StatusName(target), merged);
  merged.set_status_info(status_info);
  T::SetStatusTime(now, merged);
  return Rewrite(tx, merged, nullptr, v1::CHANGE_TYPE_UPDATED);
}

// Soft delete (deleted_at, version bump) or purge of one row; returns the row as it was.
template <typename M>
absl::StatusOr<M> Remove(pg::Transaction& tx, const Caller& caller, const Key& key,
                         int64_t expected_version, bool purge, const Fence& fence) {
  using T = Traits<M>;
  RETURN_IF_ERROR(CheckFence(tx, fence));
  ASSIGN_OR_RETURN(M current, ReadRow<M>(tx, caller, key, purge, /*lock=*/true, nullptr));
  RETURN_IF_ERROR(CheckVersion(T::Describe(key), expected_version, current.resource_version()));
  Query q;
  const std::string statement =
      Bind(q, absl::StrFormat(purge ? sql::kPurge : sql::kSoftDelete, T::kTable, T::kKeyPredicate),
           T::KeyParams(key));
  RETURN_IF_ERROR(tx.Exec(statement, q.params()).status());
  current.set_resource_version(current.resource_version() + 1);
  RETURN_IF_ERROR(AppendChange(tx, ChangeOf(current, v1::CHANGE_TYPE_DELETED)));
  return current;
}

// Soft-deletes (or purges) every live host matching `column` = `value`, logging each change, in
// one statement.
inline absl::Status RemoveHostsWhere(pg::Transaction& tx, absl::string_view column,
                                     const std::string& value, bool purge) {
  Query q;
  const std::string statement = absl::StrCat(
      Bind(q, absl::StrFormat(purge ? sql::kPurgeHosts : sql::kSoftDeleteHosts, column), {value}),
      ChangeLogAppend(q, v1::RESOURCE_KIND_HOST, v1::CHANGE_TYPE_DELETED, "removed"), " SELECT ",
      kWakeSequencers);
  return tx.Exec(statement, q.params()).status();
}

// Keyset paging: rows come ordered by `order_columns` (created_at first); the token holds the
// last row's values of those columns.
struct Page {
  std::string where;  // " AND (…) > (…)" or ""
  int size = 0;       // rows wanted (one more is fetched to detect a next page)
};

inline absl::StatusOr<Page> PageFrom(Query& q, const PageRequest& requested,
                                     const PageLimits& limits,
                                     const std::vector<std::string>& order_columns) {
  Page page;
  ASSIGN_OR_RETURN(page.size, PageSize(requested.size, limits.default_size, limits.max_size));
  if (requested.token.empty()) return page;
  ASSIGN_OR_RETURN(std::vector<std::string> keys,
                   DecodePageToken(requested.token, order_columns.size()));
  std::vector<std::string> values = {Bind(q, sql::kPageTime, {keys[0]})};
  for (size_t i = 1; i < keys.size(); ++i) values.push_back(Bind(q, sql::kPageUuid, {keys[i]}));
  page.where = absl::StrFormat(sql::kAfterPage, absl::StrJoin(order_columns, ", "),
                               absl::StrJoin(values, ", "));
  return page;
}

// Runs a page query and decodes up to page.size rows; returns the next token ("" at the end).
template <typename M>
absl::StatusOr<std::string> FetchPage(pg::Transaction& tx, const std::string& select, Query& q,
                                      const Page& page,
                                      const std::function<std::vector<std::string>(const M&)>& keys,
                                      google::protobuf::RepeatedPtrField<M>& out) {
  ASSIGN_OR_RETURN(pg::Result rows,
                   tx.Exec(select + absl::StrFormat(sql::kLimit, page.size + 1), q.params()));
  const int count = std::min(rows.rows(), page.size);
  for (int row = 0; row < count; ++row) {
    ASSIGN_OR_RETURN(*out.Add(), Decode<M>(rows, row));
  }
  if (rows.rows() <= page.size || count == 0) return std::string();
  return EncodePageToken(keys(out[count - 1]));
}

// " AND `column` = ANY(<values as a `type`[] parameter>)". The values must need no quoting in
// an array literal (enum names, UUIDs).
inline std::string AnyOf(Query& q, absl::string_view column, const std::vector<std::string>& values,
                         absl::string_view type = "text") {
  return absl::StrFormat(sql::kFilterIn, column, q.Add(ArrayLiteral(values)), type);
}

// A host that counts toward Cluster.ready_host_count.
inline constexpr types::v1::HostStatus kReadyHostStatus = types::v1::HOST_STATUS_KNOWN;

// The host counts of a cluster whose hosts are all in `cluster.hosts()`.
inline void CountHosts(Cluster& cluster) {
  cluster.set_total_host_count(cluster.hosts_size());
  cluster.set_enabled_host_count(cluster.hosts_size());
  cluster.set_ready_host_count(static_cast<int>(
      std::count_if(cluster.hosts().begin(), cluster.hosts().end(),
                    [](const Host& h) { return h.status() == kReadyHostStatus; })));
}

// Gives each of `clusters` its host counts (as CountHosts would from its hosts) without reading
// the hosts, in one statement through `db`: the caller's own transaction or connection (a
// second one taken while holding it is how a busy pool deadlocks, lib/pg/pool.h).
template <typename Db>
absl::Status CountHostsOf(Db& db, const std::vector<Cluster*>& clusters) {
  if (clusters.empty()) return absl::OkStatus();
  absl::flat_hash_map<std::string, Cluster*> by_id;
  std::vector<std::string> ids;
  for (Cluster* cluster : clusters) {
    cluster->set_total_host_count(0);
    cluster->set_enabled_host_count(0);
    cluster->set_ready_host_count(0);
    by_id[cluster->id()] = cluster;
    ids.push_back(cluster->id());
  }
  Query q;
  const std::string ready = q.Add(types::v1::HostStatus_Name(kReadyHostStatus));
  const std::string select =
      absl::StrCat(absl::StrFormat(sql::kHostCountsOfClusters, ready),
                   AnyOf(q, "cluster_id", ids, "uuid"), sql::kGroupByCluster);
  ASSIGN_OR_RETURN(pg::Result rows, db.Exec(select, q.params()));
  for (int row = 0; row < rows.rows(); ++row) {
    auto owner = by_id.find(rows.Get(row, 0));
    int total = 0, known = 0;
    if (owner == by_id.end() || !absl::SimpleAtoi(rows.Get(row, 1), &total) ||
        !absl::SimpleAtoi(rows.Get(row, 2), &known)) {
      return absl::InternalError(absl::StrCat("unexpected host count row ", row));
    }
    owner->second->set_total_host_count(total);
    owner->second->set_enabled_host_count(total);
    owner->second->set_ready_host_count(known);
  }
  return absl::OkStatus();
}

// Gives each of `clusters` its live hosts (in creation order, as GetCluster shows them) and
// their counts, read in one statement through `tx`: the caller's own connection, because
// taking a second one while holding it is how a busy pool deadlocks (lib/pg/pool.h).
inline absl::Status AttachHosts(pg::Transaction& tx,
                                google::protobuf::RepeatedPtrField<Cluster>& clusters) {
  if (clusters.empty()) return absl::OkStatus();
  absl::flat_hash_map<std::string, Cluster*> by_id;
  std::vector<std::string> ids;
  for (Cluster& cluster : clusters) {
    by_id[cluster.id()] = &cluster;
    ids.push_back(cluster.id());
  }
  Query q;
  const std::string select =
      absl::StrCat(absl::StrFormat(sql::kHostsOfClusters, SelectList<Host>()),
                   AnyOf(q, "cluster_id", ids, "uuid"), sql::kByCreation);
  ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(select, q.params()));
  for (int row = 0; row < rows.rows(); ++row) {
    ASSIGN_OR_RETURN(Host host, Decode<Host>(rows, row));
    auto owner = by_id.find(host.cluster_id());
    if (owner != by_id.end()) *owner->second->add_hosts() = std::move(host);
  }
  for (Cluster& cluster : clusters) CountHosts(cluster);
  return absl::OkStatus();
}

// Host fields filled from agent reports: large, and not needed by list views.
inline void OmitReports(Host& host) {
  host.clear_inventory();
  for (const step_reports::HostReportField& report : step_reports::HostReportFields()) {
    host.GetReflection()->ClearField(&host, host.GetDescriptor()->FindFieldByName(report.typed));
  }
  host.clear_connectivity();
  host.clear_api_vip_connectivity();
  host.clear_tang_connectivity();
  host.clear_free_addresses();
  host.clear_ntp_sources();
  host.clear_disks_info();
  host.clear_images_status();
  host.clear_domain_name_resolutions();
}

// Creates a cluster or infra-env (M) after its input checks, with `pull_secret` (if any)
// sealed into its secret column (bound to its id, which is made here when it has none). With
// kValidateOnly it stops before the write: every check ran, and the answer is the resource as
// the create would have returned it (new id, the caller as owner, version 1), never stored.
template <typename M>
absl::StatusOr<M> CreateWithPullSecret(pg::Pool& pool, const Caller& caller,
                                       const ResourceStoreOptions& options, M message,
                                       const std::string& pull_secret, CreateMode mode) {
  RETURN_IF_ERROR(Traits<M>::Validate(options.validators, message));
  if (!pull_secret.empty() && options.validators.pull_secret) {
    RETURN_IF_ERROR(options.validators.pull_secret(pull_secret));
  }
  if (message.id().empty()) message.set_id(NewUuid());
  pg::Param secret;  // NULL without a pull secret
  if (!pull_secret.empty()) {
    ASSIGN_OR_RETURN(secret, SealText(options.sealer, pull_secret,
                                      SecretPlace(Traits<M>::kTable, "secret", message.id())));
  }
  if (mode == CreateMode::kValidateOnly) {
    *message.mutable_owner() = OwnerFor(caller, message.owner());
    message.set_pull_secret_set(!pull_secret.empty());
    message.set_resource_version(1);
    *message.mutable_created_at() = ToTimestamp(absl::Now());
    *message.mutable_updated_at() = message.created_at();
    return message;
  }
  return AnnounceWritten(options.committed, v1::CHANGE_TYPE_CREATED,
                         InTransaction(pool, [&](pg::Transaction& tx) {
                           return Insert(tx, caller, message, secret);
                         }));
}

// A status compare-and-set of `key`, in one statement when it writes nothing but the status
// (the orchestrator's most frequent write), else with its patch under the row lock.
template <typename M, typename Status>
absl::StatusOr<M> ChangeStatus(pg::Pool& pool, const Caller& caller,
                               const ResourceStoreOptions& options, const Key& key,
                               const StatusChange<Status, M>& change,
                               const std::string& (*name)(Status)) {
  if (change.next == Status{}) return absl::InvalidArgumentError("new_status: required");
  if (change.patch_mask.paths().empty() && change.fence.lease.empty()) {
    return WriteOne<M>(pool, options.group_commit, key, [&](auto& db) {
      return CompareAndSetStatusOnly<M>(db, caller, key, name(change.expected), name(change.next),
                                        change.info);
    });
  }
  M target;
  target.set_status(change.next);
  return InTransaction(pool, [&](pg::Transaction& tx) {
    return CompareAndSetStatus(tx, caller, options.validators, key, name(change.expected), target,
                               change.info, change.patch, change.patch_mask, change.fence);
  });
}

// The pull secret of the cluster or infra-env (M) `id`, opened.
template <typename M>
absl::StatusOr<std::string> PullSecretOf(pg::Pool& pool, const crypto::Sealer* sealer,
                                         const Caller& caller, const std::string& id) {
  using T = Traits<M>;
  return InTransaction(pool, [&](pg::Transaction& tx) -> absl::StatusOr<std::string> {
    Query q;
    std::string select = Bind(q, absl::StrFormat(sql::kSelectPullSecret, T::kTable), {id});
    select += TenancyPredicate(caller, {}, q.params());
    ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(select, q.params()));
    if (rows.rows() == 0) return NotFound<M>({"", id});
    return OpenText(sealer, rows.Get(0, 0), SecretPlace(T::kTable, "secret", id));
  });
}

}  // namespace assisted::inventory::resource_rows

#endif  // ASSISTED_SERVICES_INVENTORY_RESOURCE_ROWS_H_
