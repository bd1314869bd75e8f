#include "services/inventory/side_stores.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/time_util.h"
#include "lib/status/status_macros.h"
#include "services/inventory/secret_columns.h"
#include "services/inventory/transaction.h"

namespace assisted::inventory {
namespace {

int64_t ToInt64(absl::string_view text) {
  int64_t value = 0;
  (void)absl::SimpleAtoi(text, &value);
  return value;
}

// Makes sure the cluster exists and the caller may see it; locks it against deletion.
absl::Status RequireCluster(pg::Transaction& tx, const Caller& caller,
                            const std::string& cluster_id) {
  if (cluster_id.empty()) return absl::InvalidArgumentError("cluster_id: required");
  Query q;
  const std::string sql = absl::StrCat("SELECT 1 FROM clusters WHERE id = ", q.Add(cluster_id),
                                       "::uuid AND deleted_at IS NULL",
                                       TenancyPredicate(caller, {}, q.params()), " FOR SHARE");
  ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(sql, q.params()));
  if (rows.rows() == 0) {
    return absl::NotFoundError(absl::StrCat("cluster ", cluster_id, " not found"));
  }
  return absl::OkStatus();
}

// " AND column = ANY($n::text[])" over enum names.
template <typename Enum, typename Repeated>
std::string AnyEnum(Query& q, absl::string_view column, const Repeated& values,
                    const std::string& (*name)(Enum)) {
  std::vector<std::string> names;
  for (int value : values) names.push_back(name(static_cast<Enum>(value)));
  return absl::StrCat(" AND ", column, " = ANY(",
                      q.Add(absl::StrCat("{", absl::StrJoin(names, ","), "}")), "::text[])");
}

// A sealed artifact's size and hash are its plaintext's, kept beside it (secret_columns.h).
constexpr char kArtifactInfoColumns[] =
    "cluster_id::text, name, kind, content_type, coalesce(sealed_size, octet_length(content)), "
    "coalesce(sealed_sha256, encode(sha256(content), 'hex')), "
    "(extract(epoch from updated_at) * 1000000)::bigint, partial";
// The same without hashing the content: for reads of a later chunk, where hashing the whole
// artifact each time would cost more than the read.
constexpr char kArtifactInfoColumnsUnhashed[] =
    "cluster_id::text, name, kind, content_type, coalesce(sealed_size, octet_length(content)), "
    "'', (extract(epoch from updated_at) * 1000000)::bigint, partial";
constexpr int64_t kMaxInt32 = 0x7fffffff;

// Bytes selected as encode(..., 'base64'), which PostgreSQL breaks into lines.
absl::StatusOr<std::string> Base64Content(absl::string_view selected) {
  std::string encoded(selected);
  encoded.erase(std::remove(encoded.begin(), encoded.end(), '\n'), encoded.end());
  std::string content;
  if (!absl::Base64Unescape(encoded, &content)) {
    return absl::DataLossError("stored artifact content is unreadable");
  }
  return content;
}

v1::ArtifactInfo DecodeInfo(const pg::Result& rows, int row) {
  v1::ArtifactInfo info;
  info.set_cluster_id(std::string(rows.Get(row, 0)));
  info.set_name(std::string(rows.Get(row, 1)));
  v1::ArtifactKind kind;
  if (v1::ArtifactKind_Parse(std::string(rows.Get(row, 2)), &kind)) info.set_kind(kind);
  info.set_content_type(std::string(rows.Get(row, 3)));
  info.set_size_bytes(ToInt64(rows.Get(row, 4)));
  info.set_sha256(std::string(rows.Get(row, 5)));
  SetTimestamp(rows.Get(row, 6), *info.mutable_updated_at());
  info.set_partial(rows.Get(row, 7) == "t");
  return info;
}

std::string ArtifactFilter(Query& q, const std::string& name_prefix,
                           const google::protobuf::RepeatedField<int>& kinds) {
  std::string sql;
  if (!name_prefix.empty()) {
    // starts_with avoids LIKE's wildcard characters in names.
    absl::StrAppend(&sql, " AND starts_with(name, ", q.Add(name_prefix), ")");
  }
  if (!kinds.empty()) sql += AnyEnum<v1::ArtifactKind>(q, "kind", kinds, v1::ArtifactKind_Name);
  return sql;
}

absl::Status ValidateArtifactName(const std::string& name) {
  if (name.empty() || name.size() > 255) {
    return absl::InvalidArgumentError("name: required, at most 255 bytes");
  }
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20) {
      return absl::InvalidArgumentError("name: control characters are not allowed");
    }
  }
  return absl::OkStatus();
}

}  // namespace

// ---- Events ----

absl::StatusOr<int64_t> PruneEvents(pg::Pool& pool, const EventPruning& pruning) {
  if (pruning.older_than <= absl::ZeroDuration() || pruning.batch < 1 || pruning.max_batches < 1) {
    return absl::InvalidArgumentError("event pruning: age, batch and batches must be positive");
  }
  const std::vector<pg::Param> params = {absl::StrCat(absl::ToInt64Seconds(pruning.older_than)),
                                         absl::StrCat(pruning.batch)};
  int64_t deleted = 0;
  for (int pass = 0; pass < pruning.max_batches; ++pass) {
    ASSIGN_OR_RETURN(
        const int64_t gone,
        InTransaction(pool, [&](pg::Transaction& tx) -> absl::StatusOr<int64_t> {
          ASSIGN_OR_RETURN(
              pg::Result rows,
              tx.Exec("DELETE FROM events WHERE id IN (SELECT id FROM events WHERE event_time < "
                      "now() - $1::bigint * interval '1 second' ORDER BY event_time "
                      "LIMIT $2::int FOR UPDATE SKIP LOCKED)",
                      params));
          return rows.affected_rows();
        }));
    deleted += gone;
    if (gone < pruning.batch) break;
  }
  return deleted;
}

EventRetention::EventRetention(pg::Pool& pool, EventPruning pruning, absl::Duration interval,
                               log::Logger log)
    : pool_(pool), pruning_(pruning), interval_(interval), log_(std::move(log)), thread_([this] {
        Run();
      }) {}

EventRetention::~EventRetention() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

void EventRetention::Run() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (mu_.AwaitWithTimeout(absl::Condition(&stop_), interval_)) return;
    }
    absl::StatusOr<int64_t> pruned = PruneEvents(pool_, pruning_);
    if (!pruned.ok()) {
      log_.Warning("cannot prune old events", {{"error", pruned.status().message()}});
    } else if (*pruned > 0) {
      log_.Info("pruned old events", {{"rows", *pruned}});
    }
  }
}

absl::StatusOr<types::v1::Event> EventStore::Append(const Caller& caller,
                                                    const v1::AppendEventRequest& request) {
  types::v1::Event event = request.event();
  if (event.message().empty()) return absl::InvalidArgumentError("event.message: required");
  if (event.severity() == types::v1::EVENT_SEVERITY_UNSPECIFIED) {
    return absl::InvalidArgumentError("event.severity: required");
  }
  if (event.message().size() > 4096) event.mutable_message()->resize(4096);
  *event.mutable_owner() = OwnerFor(caller, event.owner());
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<types::v1::Event> {
    Query q;
    const std::string event_time =
        event.has_event_time()
            ? absl::StrCat("(timestamptz 'epoch' + ", q.Add(MicrosText(event.event_time())),
                           "::bigint * interval '1 microsecond')")
            : "now()";
    types::v1::Event document = event;
    document.clear_id();
    // The services record events without an owner: such an event belongs to the owner of its
    // cluster (else its infra-env), so that tenant sees it.
    const bool inherit = event.owner().user_name().empty() && event.owner().org_id().empty();
    auto owner_column = [&](const char* column, const std::string& given) {
      if (!inherit) return q.Add(given);
      return absl::StrCat("COALESCE((SELECT ", column, " FROM clusters WHERE id = NULLIF(",
                          q.Add(event.cluster_id()), ", '')::uuid), (SELECT ", column,
                          " FROM infra_envs WHERE id = NULLIF(", q.Add(event.infra_env_id()),
                          ", '')::uuid), '')");
    };
    const std::string sql = absl::StrCat(
        "INSERT INTO events (cluster_id, host_id, infra_env_id, owner_user, owner_org, severity, "
        "category, name, message, event_time, doc) VALUES (NULLIF(",
        q.Add(event.cluster_id()), ", '')::uuid, NULLIF(", q.Add(event.host_id()),
        ", '')::uuid, NULLIF(", q.Add(event.infra_env_id()), ", '')::uuid, ",
        owner_column("owner_user", event.owner().user_name()), ", ",
        owner_column("owner_org", event.owner().org_id()), ", ",
        q.Add(types::v1::EventSeverity_Name(event.severity())), ", ",
        q.Add(types::v1::EventCategory_Name(event.category())), ", ", q.Add(event.name()), ", ",
        q.Add(event.message()), ", ", event_time, ", ", q.Add(ToJson(document)),
        "::jsonb) RETURNING id, (extract(epoch from event_time) * 1000000)::bigint, owner_user, "
        "owner_org");
    ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(sql, q.params()));
    event.set_id(ToInt64(rows.Get(0, 0)));
    SetTimestamp(rows.Get(0, 1), *event.mutable_event_time());
    event.mutable_owner()->set_user_name(std::string(rows.Get(0, 2)));
    event.mutable_owner()->set_org_id(std::string(rows.Get(0, 3)));
    RETURN_IF_ERROR(
        AppendChange(tx, {v1::RESOURCE_KIND_EVENT, absl::StrCat(event.id()), event.infra_env_id(),
                          event.cluster_id(), 1, v1::CHANGE_TYPE_CREATED, ""}));
    return event;
  });
}

absl::StatusOr<v1::ListEventsResponse> EventStore::List(const Caller& caller,
                                                        const v1::ListEventsRequest& request) {
  if (request.limit() < -1) return absl::InvalidArgumentError("limit: must be -1 or more");
  if (request.offset() < 0) return absl::InvalidArgumentError("offset: must not be negative");
  Query q;
  std::string where =
      absl::StrCat(" WHERE true", TenancyPredicate(caller, request.owner_scope(), q.params()));
  auto uuid_filter = [&](absl::string_view column, const std::string& value) {
    if (!value.empty()) absl::StrAppend(&where, " AND ", column, " = ", q.Add(value), "::uuid");
  };
  uuid_filter("cluster_id", request.cluster_id());
  uuid_filter("host_id", request.host_id());
  uuid_filter("infra_env_id", request.infra_env_id());
  if (request.host_ids_size() > 0) {
    absl::StrAppend(&where, " AND host_id = ANY(",
                    q.Add(absl::StrCat("{", absl::StrJoin(request.host_ids(), ","), "}")),
                    "::uuid[])");
  }
  if (request.cluster_level()) where += " AND host_id IS NULL";
  if (request.severities_size() > 0) {
    where += AnyEnum<types::v1::EventSeverity>(q, "severity", request.severities(),
                                               types::v1::EventSeverity_Name);
  }
  if (request.categories_size() > 0) {
    where += AnyEnum<types::v1::EventCategory>(q, "category", request.categories(),
                                               types::v1::EventCategory_Name);
  }
  if (!request.message().empty()) {
    absl::StrAppend(&where, " AND strpos(lower(message), lower(", q.Add(request.message()),
                    ")) > 0");
  }
  // No caller gets more than a page, whatever it asks: the rest is reached with offset.
  const int limit = request.limit() <= 0 || request.limit() > kMaxEventsPerPage ? kMaxEventsPerPage
                                                                                : request.limit();
  const std::string order = request.order() == v1::SORT_ORDER_DESC ? "DESC" : "ASC";
  const std::string select = absl::StrCat(
      "SELECT id, doc::text, (extract(epoch from event_time) * 1000000)::bigint, owner_user, "
      "owner_org FROM events",
      where, " ORDER BY event_time ", order, ", id ", order, " LIMIT ", limit, " OFFSET ",
      request.offset());
  const std::string counts =
      absl::StrCat("SELECT severity, count(*) FROM events", where, " GROUP BY severity");
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<v1::ListEventsResponse> {
    v1::ListEventsResponse response;
    ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(select, q.params()));
    for (int row = 0; row < rows.rows(); ++row) {
      types::v1::Event* event = response.add_events();
      RETURN_IF_ERROR(FromJson(rows.Get(row, 1), *event));
      event->set_id(ToInt64(rows.Get(row, 0)));
      SetTimestamp(rows.Get(row, 2), *event->mutable_event_time());
      event->mutable_owner()->set_user_name(std::string(rows.Get(row, 3)));
      event->mutable_owner()->set_org_id(std::string(rows.Get(row, 4)));
    }
    ASSIGN_OR_RETURN(pg::Result totals, tx.Exec(counts, q.params()));
    for (int row = 0; row < totals.rows(); ++row) {
      v1::SeverityCount* count = response.add_severity_counts();
      types::v1::EventSeverity severity;
      if (types::v1::EventSeverity_Parse(std::string(totals.Get(row, 0)), &severity)) {
        count->set_severity(severity);
      }
      count->set_count(ToInt64(totals.Get(row, 1)));
      response.set_total_count(response.total_count() + count->count());
    }
    return response;
  });
}

// ---- Artifacts ----

absl::StatusOr<v1::ArtifactInfo> ArtifactStore::Put(const Caller& caller,
                                                    const v1::PutArtifactRequest& request) {
  RETURN_IF_ERROR(ValidateArtifactName(request.name()));
  if (request.kind() == v1::ARTIFACT_KIND_UNSPECIFIED) {
    return absl::InvalidArgumentError("kind: required");
  }
  if (request.offset() < 0) return absl::InvalidArgumentError("offset: must not be negative");
  if (request.offset() + static_cast<int64_t>(request.content().size()) > max_bytes_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "artifact ", request.name(), " would exceed the limit of ", max_bytes_, " bytes"));
  }
  // A secret artifact is sealed whole: later chunks (offset > 0) open it, append and seal again
  // (ExtendSealed). Secret artifacts are small; the others keep their in-place appends.
  const bool seal = sealer_ != nullptr && IsSecretArtifact(request.kind(), request.name());
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<v1::ArtifactInfo> {
    RETURN_IF_ERROR(CheckFence(tx, request.fence()));
    RETURN_IF_ERROR(RequireCluster(tx, caller, request.cluster_id()));
    Query q;
    const std::string cluster = q.Add(request.cluster_id());
    const std::string name = q.Add(request.name());
    const std::string partial = q.Add(request.partial() ? "true" : "false");
    std::string sql;
    if (request.offset() == 0) {
      SealedArtifact sealed;
      if (seal) {
        ASSIGN_OR_RETURN(sealed, SealArtifact(*sealer_, request.content(), request.cluster_id(),
                                              request.name()));
      }
      // Bytes travel base64-encoded: libpq text parameters cannot carry NUL bytes.
      const std::string content =
          q.Add(absl::Base64Escape(seal ? sealed.content : request.content()));
      const std::string sealed_size =
          q.Add(seal ? pg::Param(absl::StrCat(sealed.size)) : pg::Param());
      const std::string sealed_sha256 = q.Add(seal ? pg::Param(sealed.sha256_hex) : pg::Param());
      const std::string kind = q.Add(v1::ArtifactKind_Name(request.kind()));
      const std::string type = q.Add(request.content_type());
      sql = absl::StrCat(
          "INSERT INTO artifacts (cluster_id, name, kind, content_type, content, partial, "
          "updated_at, sealed_size, sealed_sha256) VALUES (",
          cluster, "::uuid, ", name, ", ", kind, ", ", type, ", decode(", content, ", 'base64'), ",
          partial, "::boolean, now(), ", sealed_size, "::bigint, ", sealed_sha256,
          ") ON CONFLICT (cluster_id, name) ",
          request.if_absent() ? "DO NOTHING"
                              : "DO UPDATE SET kind = excluded.kind, content_type = "
                                "excluded.content_type, content = excluded.content, partial = "
                                "excluded.partial, updated_at = now(), sealed_size = "
                                "excluded.sealed_size, sealed_sha256 = excluded.sealed_sha256",
          " RETURNING ", kArtifactInfoColumns);
    } else {
      const std::string content = q.Add(absl::Base64Escape(request.content()));
      const std::string offset = q.Add(absl::StrCat(request.offset()));
      sql = absl::StrCat("UPDATE artifacts SET content = substring(content from 1 for ", offset,
                         "::int) || decode(", content, ", 'base64'), partial = ", partial,
                         "::boolean, updated_at = now() WHERE cluster_id = ", cluster,
                         "::uuid AND name = ", name, " AND octet_length(content) >= ", offset,
                         "::int AND sealed_size IS NULL RETURNING ", kArtifactInfoColumns);
    }
    ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(sql, q.params()));
    if (rows.rows() == 0) {
      if (request.offset() == 0) {
        return absl::AlreadyExistsError(absl::StrCat("artifact ", request.name(), " of cluster ",
                                                     request.cluster_id(), " already exists"));
      }
      ASSIGN_OR_RETURN(pg::Result stored,
                       tx.Exec("SELECT coalesce(sealed_size, octet_length(content)), "
                               "sealed_size IS NOT NULL, encode(content, 'base64') FROM artifacts "
                               "WHERE cluster_id = $1::uuid AND name = $2 FOR UPDATE",
                               {request.cluster_id(), request.name()}));
      const bool fits = stored.rows() > 0 && ToInt64(stored.Get(0, 0)) >= request.offset();
      if (!fits) {
        return absl::FailedPreconditionError(absl::StrCat(
            "offset: artifact ", request.name(), " holds ",
            stored.rows() == 0 ? std::string("nothing") : absl::StrCat(stored.Get(0, 0), " bytes"),
            ", cannot write at ", request.offset()));
      }
      if (stored.Get(0, 1) != "t") {
        return absl::InternalError("artifact changed while being extended; retry");
      }
      ASSIGN_OR_RETURN(rows, ExtendSealed(tx, request, stored.Get(0, 2)));
    }
    RETURN_IF_ERROR(AppendChange(tx, {v1::RESOURCE_KIND_ARTIFACT, request.name(), "",
                                      request.cluster_id(), 1, v1::CHANGE_TYPE_UPDATED, ""}));
    return DecodeInfo(rows, 0);
  });
}

absl::StatusOr<pg::Result> ArtifactStore::ExtendSealed(pg::Transaction& tx,
                                                       const v1::PutArtifactRequest& request,
                                                       absl::string_view stored_base64) const {
  ASSIGN_OR_RETURN(std::string stored, Base64Content(stored_base64));
  ASSIGN_OR_RETURN(std::string plain,
                   OpenBytes(sealer_, stored, ArtifactPlace(request.cluster_id(), request.name())));
  plain.resize(request.offset());
  plain += request.content();
  ASSIGN_OR_RETURN(SealedArtifact sealed,
                   SealArtifact(*sealer_, plain, request.cluster_id(), request.name()));
  return tx.Exec(
      absl::StrCat("UPDATE artifacts SET content = decode($3, 'base64'), sealed_size = "
                   "$4::bigint, sealed_sha256 = $5, partial = $6::boolean, updated_at "
                   "= now() WHERE cluster_id = $1::uuid AND name = $2 RETURNING ",
                   kArtifactInfoColumns),
      {request.cluster_id(), request.name(), absl::Base64Escape(sealed.content),
       absl::StrCat(sealed.size), sealed.sha256_hex, request.partial() ? "true" : "false"});
}

absl::StatusOr<v1::Artifact> ArtifactStore::Get(const Caller& caller,
                                                const v1::GetArtifactRequest& request) {
  if (request.offset() < 0) return absl::InvalidArgumentError("offset: must not be negative");
  if (request.length() < 0) return absl::InvalidArgumentError("length: must not be negative");
  std::vector<pg::Param> params = {request.cluster_id(), request.name()};
  std::string content = "''";
  if (!request.metadata_only() && request.offset() == 0 && request.length() == 0) {
    content = "encode(content, 'base64')";
  } else if (!request.metadata_only()) {
    // SQL's substring counts in int4 from 1; artifacts are far smaller, and an offset beyond the
    // content is refused below with the real size.
    const int64_t from = std::min(request.offset(), kMaxInt32 - 1);
    const int64_t count =
        std::min(request.length() > 0 ? request.length() : kMaxInt32, kMaxInt32 - from);
    // A sealed artifact opens only whole: it is read whole and the range taken after.
    content =
        "CASE WHEN sealed_size IS NULL THEN encode(substring(content from $3::int + 1 for "
        "$4::int), 'base64') ELSE encode(content, 'base64') END";
    params.push_back(absl::StrCat(from));
    params.push_back(absl::StrCat(count));
  }
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<v1::Artifact> {
    RETURN_IF_ERROR(RequireCluster(tx, caller, request.cluster_id()));
    ASSIGN_OR_RETURN(
        pg::Result rows,
        tx.Exec(absl::StrCat(
                    "SELECT ",
                    request.offset() == 0 ? kArtifactInfoColumns : kArtifactInfoColumnsUnhashed,
                    ", ", content,
                    ", sealed_size IS NOT NULL FROM artifacts WHERE cluster_id = $1::uuid AND "
                    "name = $2"),
                params));
    if (rows.rows() == 0) {
      return absl::NotFoundError(absl::StrCat("artifact ", request.name(), " of cluster ",
                                              request.cluster_id(), " not found"));
    }
    v1::Artifact artifact;
    *artifact.mutable_info() = DecodeInfo(rows, 0);
    if (request.offset() > artifact.info().size_bytes()) {
      return absl::OutOfRangeError(absl::StrCat("offset: ", request.name(), " holds ",
                                                artifact.info().size_bytes(), " bytes"));
    }
    if (!request.metadata_only()) {
      ASSIGN_OR_RETURN(std::string content, Base64Content(rows.Get(0, 8)));
      if (rows.Get(0, 9) == "t") {
        ASSIGN_OR_RETURN(
            std::string plain,
            OpenBytes(sealer_, content, ArtifactPlace(request.cluster_id(), request.name())));
        content = plain.substr(request.offset(), request.length() > 0
                                                     ? static_cast<size_t>(request.length())
                                                     : std::string::npos);
      }
      artifact.set_content(std::move(content));
    }
    return artifact;
  });
}

absl::StatusOr<v1::ListArtifactsResponse> ArtifactStore::List(
    const Caller& caller, const v1::ListArtifactsRequest& request) {
  return InTransaction(
      pool_, [&](pg::Transaction& tx) -> absl::StatusOr<v1::ListArtifactsResponse> {
        RETURN_IF_ERROR(RequireCluster(tx, caller, request.cluster_id()));
        Query q;
        const std::string sql = absl::StrCat(
            "SELECT ", kArtifactInfoColumns,
            " FROM artifacts WHERE cluster_id = ", q.Add(request.cluster_id()), "::uuid",
            ArtifactFilter(q, request.name_prefix(), request.kinds()), " ORDER BY name");
        ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(sql, q.params()));
        v1::ListArtifactsResponse response;
        for (int row = 0; row < rows.rows(); ++row)
          *response.add_artifacts() = DecodeInfo(rows, row);
        return response;
      });
}

absl::StatusOr<v1::DeleteArtifactsResponse> ArtifactStore::Delete(
    const Caller& caller, const v1::DeleteArtifactsRequest& request) {
  return InTransaction(
      pool_, [&](pg::Transaction& tx) -> absl::StatusOr<v1::DeleteArtifactsResponse> {
        RETURN_IF_ERROR(CheckFence(tx, request.fence()));
        RETURN_IF_ERROR(RequireCluster(tx, caller, request.cluster_id()));
        Query q;
        const std::string sql = absl::StrCat(
            "DELETE FROM artifacts WHERE cluster_id = ", q.Add(request.cluster_id()), "::uuid",
            ArtifactFilter(q, request.name_prefix(), request.kinds()), " RETURNING name");
        ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(sql, q.params()));
        for (int row = 0; row < rows.rows(); ++row) {
          RETURN_IF_ERROR(
              AppendChange(tx, {v1::RESOURCE_KIND_ARTIFACT, std::string(rows.Get(row, 0)), "",
                                request.cluster_id(), 1, v1::CHANGE_TYPE_DELETED, ""}));
        }
        v1::DeleteArtifactsResponse response;
        response.set_deleted_count(rows.rows());
        return response;
      });
}

// ---- Leases ----

absl::StatusOr<v1::LeaseResponse> LeaseStore::Lease(const v1::LeaseRequest& request) {
  if (request.name().empty()) return absl::InvalidArgumentError("name: required");
  if (request.holder().empty()) return absl::InvalidArgumentError("holder: required");
  const int64_t ttl_ms = request.ttl().seconds() * 1000 + request.ttl().nanos() / 1000000;
  const bool takes =
      request.action() == v1::LEASE_ACTION_ACQUIRE || request.action() == v1::LEASE_ACTION_RENEW;
  if (request.action() == v1::LEASE_ACTION_UNSPECIFIED) {
    return absl::InvalidArgumentError("action: required");
  }
  if (takes && (ttl_ms <= 0 || ttl_ms > 3600 * 1000)) {
    return absl::InvalidArgumentError("ttl: must be between 1 ms and 1 hour");
  }
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<v1::LeaseResponse> {
    RETURN_IF_ERROR(tx.Exec("INSERT INTO leases (name, holder, epoch, expires_at) "
                            "VALUES ($1, '', 0, now()) ON CONFLICT DO NOTHING",
                            {request.name()})
                        .status());
    ASSIGN_OR_RETURN(pg::Result current,
                     tx.Exec("SELECT holder, epoch, expires_at > now() FROM leases "
                             "WHERE name = $1 FOR UPDATE",
                             {request.name()}));
    const std::string holder(current.Get(0, 0));
    const bool live = current.Get(0, 2) == "t" && !holder.empty();
    const bool mine = live && holder == request.holder();
    std::string sql;
    std::vector<pg::Param> params = {request.name()};
    const std::string expires = "now() + $2::bigint * interval '1 millisecond'";
    switch (request.action()) {
      case v1::LEASE_ACTION_ACQUIRE:
        if (mine) {
          sql = "UPDATE leases SET expires_at = " + expires + " WHERE name = $1";
        } else if (!live) {
          sql = "UPDATE leases SET holder = $3, epoch = epoch + 1, expires_at = " + expires +
                " WHERE name = $1";
        }
        break;
      case v1::LEASE_ACTION_RENEW:
        if (mine) sql = "UPDATE leases SET expires_at = " + expires + " WHERE name = $1";
        break;
      case v1::LEASE_ACTION_RELEASE:
        if (mine) sql = "UPDATE leases SET holder = '', expires_at = now() WHERE name = $1";
        break;
      default:
        break;
    }
    if (!sql.empty()) {
      if (request.action() != v1::LEASE_ACTION_RELEASE) params.push_back(absl::StrCat(ttl_ms));
      if (request.action() == v1::LEASE_ACTION_ACQUIRE && !mine) params.push_back(request.holder());
      RETURN_IF_ERROR(tx.Exec(sql, params).status());
    }
    ASSIGN_OR_RETURN(pg::Result after,
                     tx.Exec("SELECT holder, epoch, (extract(epoch from expires_at) * 1000000)"
                             "::bigint, expires_at > now() FROM leases WHERE name = $1",
                             {request.name()}));
    v1::LeaseResponse response;
    const bool held = after.Get(0, 3) == "t" && !after.Get(0, 0).empty();
    response.set_holder(held ? std::string(after.Get(0, 0)) : "");
    response.set_epoch(ToInt64(after.Get(0, 1)));
    response.set_granted(request.action() != v1::LEASE_ACTION_RELEASE && held &&
                         response.holder() == request.holder());
    if (request.action() == v1::LEASE_ACTION_RELEASE) response.set_granted(!sql.empty());
    if (held) SetTimestamp(after.Get(0, 2), *response.mutable_expires_at());
    return response;
  });
}

}  // namespace assisted::inventory
