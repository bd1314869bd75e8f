// File: services/inventory/event_queries.h
//
// Every SQL statement of the event store (event_store.cc), named. `$n` are parameters; the
// list filters are fragments whose %s the store fills with a parameter it adds ("$n").

#ifndef ASSISTED_SERVICES_INVENTORY_EVENT_QUERIES_H_
#define ASSISTED_SERVICES_INVENTORY_EVENT_QUERIES_H_

namespace assisted::inventory::event_sql {

// One retention batch: $1 age in seconds, $2 rows at most. Rows another replica is deleting
// are skipped, not waited for.
inline constexpr char kPruneBatch[] =
    "DELETE FROM events WHERE id IN (SELECT id FROM events WHERE event_time < "
    "now() - $1::bigint * interval '1 second' ORDER BY event_time "
    "LIMIT $2::int FOR UPDATE SKIP LOCKED)";

// Appends one event: $1 cluster_id, $2 host_id, $3 infra_env_id ('' for none); $4 whether the
// event inherits its owner (the services record events without one: such an event belongs to
// the owner of its cluster, else of its infra-env, so that tenant sees it), else $5 owner_user
// and $6 owner_org; $7 severity, $8 category, $9 name, $10 message; $11 event_time in
// microseconds since the epoch ('' for now); $12 the document (JSON).
inline constexpr char kInsert[] =
    "INSERT INTO events (cluster_id, host_id, infra_env_id, owner_user, owner_org, severity, "
    "category, name, message, event_time, doc) VALUES (NULLIF($1, '')::uuid, "
    "NULLIF($2, '')::uuid, NULLIF($3, '')::uuid, "
    "CASE WHEN $4::boolean THEN COALESCE("
    "(SELECT owner_user FROM clusters WHERE id = NULLIF($1, '')::uuid), "
    "(SELECT owner_user FROM infra_envs WHERE id = NULLIF($3, '')::uuid), '') ELSE $5 END, "
    "CASE WHEN $4::boolean THEN COALESCE("
    "(SELECT owner_org FROM clusters WHERE id = NULLIF($1, '')::uuid), "
    "(SELECT owner_org FROM infra_envs WHERE id = NULLIF($3, '')::uuid), '') ELSE $6 END, "
    "$7, $8, $9, $10, coalesce(timestamptz 'epoch' + NULLIF($11, '')::bigint * "
    "interval '1 microsecond', now()), $12::jsonb) "
    "RETURNING id, (extract(epoch from event_time) * 1000000)::bigint, owner_user, owner_org";

// Whether each resource an event of a user names is one of that user's: $1 cluster_id,
// $2 infra_env_id, $3 host_id ('' for none: true); %s is the caller's tenancy predicate
// (" AND owner_… = $4"), the same for all three. Deleted resources do not count.
inline constexpr char kNamedResourcesVisible[] =
    "SELECT $1 = '' OR EXISTS (SELECT 1 FROM clusters WHERE id = NULLIF($1, '')::uuid "
    "AND deleted_at IS NULL %1$s), "
    "$2 = '' OR EXISTS (SELECT 1 FROM infra_envs WHERE id = NULLIF($2, '')::uuid "
    "AND deleted_at IS NULL %1$s), "
    "$3 = '' OR EXISTS (SELECT 1 FROM hosts WHERE id = NULLIF($3, '')::uuid "
    "AND deleted_at IS NULL %1$s)";

// ListEvents: a page, then the counts by severity, both under the same filters: the tenancy
// predicate and the kFilter* fragments, appended to " WHERE true".
inline constexpr char kSelectPage[] =
    "SELECT id, doc::text, (extract(epoch from event_time) * 1000000)::bigint, owner_user, "
    "owner_org FROM events WHERE true";
// After the filters: ASC or DESC (twice), limit, offset.
inline constexpr char kPageOrder[] = " ORDER BY event_time %s, id %s LIMIT %d OFFSET %d";
inline constexpr char kCountBySeverity[] = "SELECT severity, count(*) FROM events WHERE true";
inline constexpr char kCountGroup[] = " GROUP BY severity";

inline constexpr char kFilterClusterIs[] = " AND cluster_id = %s::uuid";
inline constexpr char kFilterHostIs[] = " AND host_id = %s::uuid";
inline constexpr char kFilterInfraEnvIs[] = " AND infra_env_id = %s::uuid";
inline constexpr char kFilterHostIn[] = " AND host_id = ANY(%s::uuid[])";
inline constexpr char kFilterClusterLevel[] = " AND host_id IS NULL";
inline constexpr char kFilterSeverityIn[] = " AND severity = ANY(%s::text[])";
inline constexpr char kFilterCategoryIn[] = " AND category = ANY(%s::text[])";
inline constexpr char kFilterMessageHas[] = " AND strpos(lower(message), lower(%s)) > 0";

}  // namespace assisted::inventory::event_sql

#endif  // ASSISTED_SERVICES_INVENTORY_EVENT_QUERIES_H_
