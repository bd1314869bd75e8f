// File: services/inventory/resource_queries.h
//
// Every SQL statement of the resource store (resource_store.cc: clusters, infra-envs, hosts,
// their pull secrets and the infra-envs' signing keys), named. The three resource tables share
// statement shapes; each shape is a format string whose %s take the kind's parts (its table,
// key predicate and column expressions, kCluster*/kInfraEnv*/kHost* below). In the formatted
// text "?" is a parameter, bound in order (resource_store.cc: Bind); "$n" are parameters
// already numbered (tenancy predicates, owner sources). Filters (kFilter*) are appended after a
// WHERE, the change-log append (change_log.h) after a write's RETURNING.

#ifndef ASSISTED_SERVICES_INVENTORY_RESOURCE_QUERIES_H_
#define ASSISTED_SERVICES_INVENTORY_RESOURCE_QUERIES_H_

namespace assisted::inventory::resource_sql {

// ---- The kinds' parts.

inline constexpr char kClusterTable[] = "clusters";
inline constexpr char kInfraEnvTable[] = "infra_envs";
inline constexpr char kHostTable[] = "hosts";
// Key predicates: clusters and infra-envs by id, hosts by infra-env and id.
inline constexpr char kIdKey[] = "id = ?::uuid";
inline constexpr char kHostKey[] = "infra_env_id = ?::uuid AND id = ?::uuid";
// Whether a pull secret is set (clusters, infra-envs; hosts have none).
inline constexpr char kSecretSet[] = "secret IS NOT NULL";
inline constexpr char kNoSecret[] = "false";
// The cluster and infra-env a row belongs to, as text ('' for none).
inline constexpr char kOwnIdText[] = "id::text";
inline constexpr char kClusterIdText[] = "coalesce(cluster_id::text, '')";
inline constexpr char kInfraEnvIdText[] = "infra_env_id::text";
inline constexpr char kNoIdText[] = "''";
// Values of the columns a kind has beyond the common ones.
inline constexpr char kUuidValue[] = "?::uuid";
inline constexpr char kUuidOrNullValue[] = "NULLIF(?, '')::uuid";
inline constexpr char kTextValue[] = "?";

// ---- Reading rows.

// The columns read for every resource, in Decode's order, named so that a CTE can refer to
// them. %1$s: kSecretSet or kNoSecret; %2$s, %3$s: the cluster and infra-env id texts.
inline constexpr char kColumns[] =
    "id::text AS id, owner_user, owner_org, status, resource_version, doc::text AS doc, "
    "%1$s AS secret_set, (extract(epoch from created_at) * 1000000)::bigint AS created_us, "
    "(extract(epoch from updated_at) * 1000000)::bigint AS updated_us, "
    "(extract(epoch from deleted_at) * 1000000)::bigint AS deleted_us, "
    "%2$s AS cluster_id_text, %3$s AS infra_env_id_text, "
    "(extract(epoch from now()) * 1000000)::bigint AS now_us, encode(pb, 'hex') AS pb_hex";
inline constexpr int kNowColumn = 12;
inline constexpr int kPbColumn = 13;

// One row: %1$s columns, %2$s table, %3$s key. Then the tenancy predicate, kLive unless
// deleted rows are wanted, kLock to lock it.
inline constexpr char kSelectRow[] = "SELECT %1$s FROM %2$s WHERE %3$s";
inline constexpr char kLive[] = " AND deleted_at IS NULL";
inline constexpr char kLock[] = " FOR UPDATE";

// Lists (%s: columns), then the tenancy predicate, the page position, the filters, an order.
inline constexpr char kListClusters[] = "SELECT %s FROM clusters WHERE true";
inline constexpr char kListInfraEnvs[] = "SELECT %s FROM infra_envs WHERE deleted_at IS NULL";
inline constexpr char kListHosts[] = "SELECT %s FROM hosts WHERE true";
inline constexpr char kByCreation[] = " ORDER BY created_at, id";
inline constexpr char kHostsByCreation[] = " ORDER BY created_at, infra_env_id, id";
// Rows after the page token's: %1$s the order columns, %2$s their values (kPageTime first,
// then kPageUuid for each further column).
inline constexpr char kAfterPage[] = " AND (%1$s) > (%2$s)";
inline constexpr char kPageTime[] = "(timestamptz 'epoch' + ?::bigint * interval '1 microsecond')";
inline constexpr char kPageUuid[] = "?::uuid";
// Last: one row more than a page, which tells whether there is a next one.
inline constexpr char kLimit[] = " LIMIT %d";

// A cluster (%1$s kSelectRow of it) and its live hosts (%2$s host columns) in one statement, so
// they come from one snapshot; `part` tells the rows apart.
inline constexpr char kClusterWithHosts[] =
    "WITH found AS (%1$s) SELECT *, 0 AS part FROM found UNION ALL SELECT %2$s, 1 FROM hosts "
    "WHERE cluster_id = ?::uuid AND deleted_at IS NULL AND EXISTS (SELECT 1 FROM found) "
    "ORDER BY part, created_us, id";
// The live hosts of listed clusters (%s: host columns), then kFilterIn on cluster_id.
inline constexpr char kHostsOfClusters[] = "SELECT %s FROM hosts WHERE deleted_at IS NULL";
// Live hosts per cluster, and how many of them are in status %s (a parameter), for reads that
// do not attach the hosts themselves; close with a cluster filter and kGroupByCluster.
inline constexpr char kHostCountsOfClusters[] =
    "SELECT cluster_id::text, count(*), count(*) FILTER (WHERE status = %s) FROM hosts "
    "WHERE deleted_at IS NULL";
inline constexpr char kGroupByCluster[] = " GROUP BY cluster_id";

// Filters. kFilterIn: %1$s column, %2$s the array parameter, %3$s its element type.
inline constexpr char kFilterIn[] = " AND %1$s = ANY(%2$s::%3$s[])";
inline constexpr char kFilterClusterIs[] = " AND cluster_id = ?::uuid";
inline constexpr char kFilterInfraEnvIs[] = " AND infra_env_id = ?::uuid";
inline constexpr char kFilterUnbound[] = " AND cluster_id IS NULL";
inline constexpr char kFilterHeldByOtherThan[] =
    " AND coalesce(doc->>'agent_stream_holder', '') NOT IN ('', ?)";
inline constexpr char kFilterOpenshiftClusterId[] = " AND doc->>'openshift_cluster_id' = ?";
inline constexpr char kFilterUpdatedBefore[] =
    " AND updated_at < (timestamptz 'epoch' + ?::bigint * interval '1 microsecond')";

// ---- Writing rows. Each write of resource rows returns them (kReturning) into the change-log
// append of its own statement, then selects them with kSelectLogged.

inline constexpr char kReturning[] = " RETURNING %s)";
// %1$s the write's CTE, %2$s kWakeSequencers.
inline constexpr char kSelectLogged[] = " SELECT %1$s.*, %2$s FROM %1$s";

// Inserts a resource at version 1 unless its key exists. %1$s table; %2$s the kind's further
// columns (", secret, cluster_id, …"); %3$s, %4$s the owner_user and owner_org values; %5$s the
// further values; %6$s where the owner comes from (kNoSource for the caller, kOwnerInfraEnv
// for a host). Parameters in order: id, status, doc, pb, the further values'.
inline constexpr char kInsert[] =
    "WITH inserted AS (INSERT INTO %1$s (id, owner_user, owner_org, status, resource_version, "
    "doc, pb, created_at, updated_at%2$s) SELECT ?::uuid, %3$s, %4$s, ?, 1, ?::jsonb, "
    "decode(?, 'hex'), now(), now()%5$s FROM %6$s ON CONFLICT DO NOTHING";
inline constexpr char kNoSource[] = "(VALUES (1)) AS one";
// A host's owner: its live infra-env's (then the caller's tenancy predicate).
inline constexpr char kOwnerInfraEnv[] = "infra_envs WHERE id = ?::uuid AND deleted_at IS NULL";
inline constexpr char kOwnerUserColumn[] = "owner_user";
inline constexpr char kOwnerOrgColumn[] = "owner_org";

// Rewrites a row whole with a version bump: %1$s table, %2$s further ", column = value" sets,
// %3$s key. Parameters: doc, pb, status, the further values', the key's. Then kAtVersion to
// write only over the version read (its parameter the version).
inline constexpr char kRewrite[] =
    "WITH updated AS (UPDATE %1$s SET doc = ?::jsonb, pb = decode(?, 'hex'), status = ?, "
    "resource_version = resource_version + 1, updated_at = now()%2$s WHERE %3$s";
inline constexpr char kSetColumn[] = ", %s = %s";
inline constexpr char kAtVersion[] = " AND resource_version = ?::bigint";

// Status compare-and-set writing only status, status_info and status_updated_at, in place:
// %1$s table, %2$s key. Parameters: new status, status_info, the key's, expected status. Then
// the tenancy predicate.
inline constexpr char kSetStatusOnly[] =
    "WITH updated AS (UPDATE %1$s SET status = ?, resource_version = resource_version + 1, "
    "updated_at = now(), doc = doc || jsonb_build_object('status_info', ?::text, "
    "'status_updated_at', to_char(now() AT TIME ZONE 'UTC', "
    "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')) WHERE %2$s AND status = ? AND deleted_at IS NULL";

// Soft delete (deleted_at, version bump) or purge of one row: %1$s table, %2$s key.
inline constexpr char kSoftDelete[] =
    "UPDATE %1$s SET deleted_at = now(), updated_at = now(), resource_version = "
    "resource_version + 1 WHERE %2$s";
inline constexpr char kPurge[] = "DELETE FROM %1$s WHERE %2$s";

// Soft delete or purge of every live host with %1$s (cluster_id or infra_env_id) = ?, returning
// into `removed` what the change-log append needs (the version: the one the log records).
#define ASSISTED_REMOVED_HOST                                            \
  " RETURNING id::text AS id, infra_env_id::text AS infra_env_id_text, " \
  "coalesce(cluster_id::text, '') AS cluster_id_text, status, "
inline constexpr char kSoftDeleteHosts[] =
    "WITH removed AS (UPDATE hosts SET deleted_at = now(), updated_at = now(), resource_version = "
    "resource_version + 1 WHERE %1$s = ?::uuid AND deleted_at IS NULL" ASSISTED_REMOVED_HOST
    "resource_version), ";
inline constexpr char kPurgeHosts[] =
    "WITH removed AS (DELETE FROM hosts WHERE %1$s = ?::uuid" ASSISTED_REMOVED_HOST
    "resource_version + 1 AS resource_version), ";
#undef ASSISTED_REMOVED_HOST
inline constexpr char kPurgeArtifactsOfCluster[] =
    "DELETE FROM artifacts WHERE cluster_id = $1::uuid";
inline constexpr char kCountLiveHostsOfInfraEnv[] =
    "SELECT count(*) FROM hosts WHERE infra_env_id = $1::uuid AND deleted_at IS NULL";

// ---- Secrets.

// The stored pull secret ('' for none) of a live row of %s (clusters or infra_envs); then the
// tenancy predicate.
inline constexpr char kSelectPullSecret[] =
    "SELECT coalesce(secret, '') FROM %s WHERE id = ?::uuid AND deleted_at IS NULL";
// An infra-env's ($1) signing key, hex; NULL before first use.
inline constexpr char kSelectSigningKey[] =
    "SELECT encode(signing_key, 'hex') FROM infra_envs WHERE id = $1::uuid AND deleted_at IS NULL";
// Sets it to $2 (hex) unless set meanwhile; returns the key that stands.
inline constexpr char kSetSigningKeyOnce[] =
    "UPDATE infra_envs SET signing_key = coalesce(signing_key, decode($2, 'hex')) WHERE id = "
    "$1::uuid AND deleted_at IS NULL RETURNING encode(signing_key, 'hex')";
// Replaces it (parameters: the key, hex; the id) with a version bump; then the tenancy
// predicate and kReturning.
inline constexpr char kReplaceSigningKey[] =
    "WITH updated AS (UPDATE infra_envs SET signing_key = decode(?, 'hex'), resource_version = "
    "resource_version + 1, updated_at = now() WHERE id = ?::uuid AND deleted_at IS NULL";

}  // namespace assisted::inventory::resource_sql

#endif  // ASSISTED_SERVICES_INVENTORY_RESOURCE_QUERIES_H_
