// File: services/inventory/artifact_queries.h
//
// Every SQL statement of the artifact store (artifact_store.cc), named. `$n` are parameters;
// the selection filters are fragments whose %s the store fills with a parameter it adds ("$n").
// Content travels base64-encoded: libpq text parameters cannot carry NUL bytes.

#ifndef ASSISTED_SERVICES_INVENTORY_ARTIFACT_QUERIES_H_
#define ASSISTED_SERVICES_INVENTORY_ARTIFACT_QUERIES_H_

namespace assisted::inventory::artifact_sql {

// An artifact's metadata, decoded by DecodeInfo. A sealed artifact's size and hash are its
// plaintext's, kept beside it (secret_columns.h).
#define ASSISTED_ARTIFACT_INFO                                                                 \
  "cluster_id::text, name, kind, content_type, coalesce(sealed_size, octet_length(content)), " \
  "coalesce(sealed_sha256, encode(sha256(content), 'hex')), "                                  \
  "(extract(epoch from updated_at) * 1000000)::bigint, partial"
inline constexpr int kInfoColumnCount = 8;

// The cluster ($1) is live and visible to the caller (the tenancy predicate follows): its
// status; locks it against deletion and status changes. Then " FOR SHARE".
inline constexpr char kLockCluster[] =
    "SELECT status FROM clusters WHERE id = $1::uuid AND deleted_at IS NULL";
inline constexpr char kLockClusterTail[] = " FOR SHARE";

// A whole artifact: $1 cluster_id, $2 name, $3 kind, $4 content_type, $5 content (base64),
// $6 partial, $7 sealed_size and $8 sealed_sha256 (NULL unless sealed). Then kOnConflict*.
inline constexpr char kPut[] =
    "INSERT INTO artifacts (cluster_id, name, kind, content_type, content, partial, updated_at, "
    "sealed_size, sealed_sha256) VALUES ($1::uuid, $2, $3, $4, decode($5, 'base64'), "
    "$6::boolean, now(), $7::bigint, $8) ON CONFLICT (cluster_id, name) ";
inline constexpr char kOnConflictKeep[] = "DO NOTHING RETURNING " ASSISTED_ARTIFACT_INFO;
inline constexpr char kOnConflictReplace[] =
    "DO UPDATE SET kind = excluded.kind, content_type = excluded.content_type, content = "
    "excluded.content, partial = excluded.partial, updated_at = now(), sealed_size = "
    "excluded.sealed_size, sealed_sha256 = excluded.sealed_sha256 "
    "RETURNING " ASSISTED_ARTIFACT_INFO;

// A later chunk of a plain artifact, in place: $1 cluster_id, $2 name, $3 partial, $4 content
// (base64), $5 offset. No row when the artifact is shorter than the offset, or sealed.
inline constexpr char kAppendChunk[] =
    "UPDATE artifacts SET content = substring(content from 1 for $5::int) || decode($4, "
    "'base64'), partial = $3::boolean, updated_at = now() WHERE cluster_id = $1::uuid AND "
    "name = $2 AND octet_length(content) >= $5::int AND sealed_size IS NULL "
    "RETURNING " ASSISTED_ARTIFACT_INFO;

// What a chunk that kAppendChunk did not take is up against: size, sealed, content (base64).
inline constexpr char kLockStored[] =
    "SELECT coalesce(sealed_size, octet_length(content)), sealed_size IS NOT NULL, "
    "encode(content, 'base64') FROM artifacts WHERE cluster_id = $1::uuid AND name = $2 "
    "FOR UPDATE";

// A sealed artifact sealed again with a later chunk: $1 cluster_id, $2 name, $3 content
// (base64), $4 sealed_size, $5 sealed_sha256, $6 partial.
inline constexpr char kRewriteSealed[] =
    "UPDATE artifacts SET content = decode($3, 'base64'), sealed_size = $4::bigint, "
    "sealed_sha256 = $5, partial = $6::boolean, updated_at = now() WHERE cluster_id = $1::uuid "
    "AND name = $2 RETURNING " ASSISTED_ARTIFACT_INFO;

// One artifact ($1 cluster_id, $2 name): its metadata (hashed only for a read from offset 0:
// hashing the whole artifact for each later chunk would cost more than the read), then a
// kContent*, then kGetTail.
inline constexpr char kGetHashed[] = "SELECT " ASSISTED_ARTIFACT_INFO;
inline constexpr char kGetUnhashed[] =
    "SELECT cluster_id::text, name, kind, content_type, "
    "coalesce(sealed_size, octet_length(content)), '', "
    "(extract(epoch from updated_at) * 1000000)::bigint, partial";
inline constexpr char kContentNone[] = ", ''";
inline constexpr char kContentWhole[] = ", encode(content, 'base64')";
// $3 bytes skipped, $4 bytes at most. A sealed artifact opens only whole: it is read whole and
// the range taken after.
inline constexpr char kContentRange[] =
    ", CASE WHEN sealed_size IS NULL THEN encode(substring(content from $3::int + 1 for "
    "$4::int), 'base64') ELSE encode(content, 'base64') END";
inline constexpr char kGetTail[] =
    ", sealed_size IS NOT NULL FROM artifacts WHERE cluster_id = $1::uuid AND name = $2";

// The artifacts of cluster $1 (then the kFilter*, then kListOrder).
inline constexpr char kList[] =
    "SELECT " ASSISTED_ARTIFACT_INFO " FROM artifacts WHERE cluster_id = $1::uuid";
inline constexpr char kListOrder[] = " ORDER BY name";

// Deletes the artifacts of cluster $1 (then the kFilter*, then kDeleteTail and a change-log
// append over `removed`).
inline constexpr char kDelete[] =
    "WITH removed AS (DELETE FROM artifacts WHERE cluster_id = $1::uuid";
inline constexpr char kDeleteTail[] =
    " RETURNING name AS id, '' AS infra_env_id_text, cluster_id::text AS cluster_id_text, "
    "1::bigint AS resource_version, '' AS status), ";

// starts_with avoids LIKE's wildcard characters in names.
inline constexpr char kFilterName[] = " AND name = %s";
inline constexpr char kFilterNamePrefix[] = " AND starts_with(name, %s)";
inline constexpr char kFilterKindIn[] = " AND kind = ANY(%s::text[])";

#undef ASSISTED_ARTIFACT_INFO

}  // namespace assisted::inventory::artifact_sql

#endif  // ASSISTED_SERVICES_INVENTORY_ARTIFACT_QUERIES_H_
