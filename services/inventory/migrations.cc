#include "services/inventory/migrations.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/pg/pool.h"
#include "lib/status/status_macros.h"

namespace assisted::inventory {
namespace {

// Arbitrary but fixed: the advisory lock key that serialises migrations across replicas.
constexpr char kMigrationLock[] = "SELECT pg_advisory_lock(7301000001)";
constexpr char kMigrationUnlock[] = "SELECT pg_advisory_unlock(7301000001)";

// Resources (clusters, infra_envs, hosts) share one column layout: the key and everything the
// service filters, orders or compare-and-sets on are columns; the rest of the resource is the
// `doc` (the proto as JSON; since version 2 mostly the binary `pb`, see kV2Sql). Secrets live in
// `secret`, never in doc.
constexpr char kV1Sql[] = R"sql(
CREATE TABLE clusters (
  id               uuid PRIMARY KEY,
  cluster_id       uuid NOT NULL,
  owner_user       text NOT NULL DEFAULT '',
  owner_org        text NOT NULL DEFAULT '',
  status           text NOT NULL,
  kind             text NOT NULL DEFAULT '',
  resource_version bigint NOT NULL,
  doc              jsonb NOT NULL,
  secret           text,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  deleted_at       timestamptz
);
CREATE INDEX clusters_page ON clusters (created_at, id);
CREATE INDEX clusters_owner_org ON clusters (owner_org) WHERE owner_org <> '';
CREATE INDEX clusters_owner_user ON clusters (owner_user);
CREATE INDEX clusters_deleted ON clusters (deleted_at) WHERE deleted_at IS NOT NULL;

CREATE TABLE infra_envs (
  id               uuid PRIMARY KEY,
  cluster_id       uuid,
  owner_user       text NOT NULL DEFAULT '',
  owner_org        text NOT NULL DEFAULT '',
  status           text NOT NULL DEFAULT '',
  resource_version bigint NOT NULL,
  doc              jsonb NOT NULL,
  secret           text,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  deleted_at       timestamptz
);
CREATE INDEX infra_envs_page ON infra_envs (created_at, id);
CREATE INDEX infra_envs_cluster ON infra_envs (cluster_id);
CREATE INDEX infra_envs_owner_org ON infra_envs (owner_org) WHERE owner_org <> '';
CREATE INDEX infra_envs_owner_user ON infra_envs (owner_user);

CREATE TABLE hosts (
  infra_env_id     uuid NOT NULL,
  id               uuid NOT NULL,
  cluster_id       uuid,
  owner_user       text NOT NULL DEFAULT '',
  owner_org        text NOT NULL DEFAULT '',
  status           text NOT NULL,
  role             text NOT NULL DEFAULT '',
  resource_version bigint NOT NULL,
  doc              jsonb NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  deleted_at       timestamptz,
  PRIMARY KEY (infra_env_id, id)
);
CREATE INDEX hosts_page ON hosts (created_at, infra_env_id, id);
CREATE INDEX hosts_cluster ON hosts (cluster_id);
CREATE INDEX hosts_owner_org ON hosts (owner_org) WHERE owner_org <> '';
CREATE INDEX hosts_owner_user ON hosts (owner_user);

CREATE TABLE events (
  id           bigserial PRIMARY KEY,
  cluster_id   uuid,
  host_id      uuid,
  infra_env_id uuid,
  owner_user   text NOT NULL DEFAULT '',
  owner_org    text NOT NULL DEFAULT '',
  severity     text NOT NULL,
  category     text NOT NULL,
  name         text NOT NULL DEFAULT '',
  message      text NOT NULL,
  event_time   timestamptz NOT NULL,
  doc          jsonb NOT NULL
);
CREATE INDEX events_cluster ON events (cluster_id, event_time);
CREATE INDEX events_host ON events (host_id, event_time);
CREATE INDEX events_infra_env ON events (infra_env_id, event_time);
-- Events churn: vacuum them eagerly.
ALTER TABLE events SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01);

CREATE TABLE artifacts (
  cluster_id   uuid NOT NULL,
  name         text NOT NULL,
  kind         text NOT NULL,
  content_type text NOT NULL DEFAULT '',
  content      bytea NOT NULL,
  partial      boolean NOT NULL DEFAULT false,
  updated_at   timestamptz NOT NULL,
  PRIMARY KEY (cluster_id, name)
);

-- The change log. Writers append rows with seq NULL in their own transaction; the sequencer
-- (one at a time, under an advisory lock) numbers committed rows in id order. Numbering only
-- committed rows is what lets a watcher resume from a seq without ever missing a change that
-- committed late.
CREATE TABLE changes (
  id               bigserial PRIMARY KEY,
  seq              bigint UNIQUE,
  kind             text NOT NULL,
  resource_id      text NOT NULL,
  infra_env_id     text NOT NULL DEFAULT '',
  cluster_id       text NOT NULL DEFAULT '',
  resource_version bigint NOT NULL,
  change_type      text NOT NULL,
  status           text NOT NULL DEFAULT '',
  changed_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX changes_unsequenced ON changes (id) WHERE seq IS NULL;
-- Everything at or below purged_through has been deleted by retention; resuming from there is
-- OUT_OF_RANGE.
CREATE TABLE change_log_state (
  id              int PRIMARY KEY CHECK (id = 1),
  purged_through  bigint NOT NULL
);
INSERT INTO change_log_state VALUES (1, 0);

CREATE TABLE leases (
  name       text PRIMARY KEY,
  holder     text NOT NULL,
  epoch      bigint NOT NULL,
  expires_at timestamptz NOT NULL
);
)sql";

// The resource beyond its columns moves from JSON to the binary proto (`pb`): parsing a host's
// JSON document was most of the cost of every read and write. `doc` keeps only the fields SQL
// edits or filters in place (resource_store.cc: Document). Existing rows keep their whole JSON
// `doc` until their next write (reads merge both). EXTERNAL storage: out of line when large,
// never compressed (a host's proto is a few KB; compressing it cost more than it saved).
constexpr char kV2Sql[] = R"sql(
ALTER TABLE clusters ADD COLUMN pb bytea;
ALTER TABLE clusters ALTER COLUMN pb SET STORAGE EXTERNAL;
ALTER TABLE infra_envs ADD COLUMN pb bytea;
ALTER TABLE infra_envs ALTER COLUMN pb SET STORAGE EXTERNAL;
ALTER TABLE hosts ADD COLUMN pb bytea;
ALTER TABLE hosts ALTER COLUMN pb SET STORAGE EXTERNAL;
)sql";

// Each infra-env's signing key, mixed into its agent tokens' signatures (lib/auth/token.h) so
// that replacing it revokes them. NULL until first used (resource_store.cc makes it then, from
// the service's CSPRNG); never part of the resource as read.
constexpr char kV3Sql[] = R"sql(
ALTER TABLE infra_envs ADD COLUMN signing_key bytea;
)sql";

// Event retention (side_stores.h: PruneEvents) deletes the oldest events in small batches; without
// an index on event_time alone each batch would scan the whole table. Artifacts are read in
// chunks (GetArtifactRequest.offset): stored out of line and uncompressed, a chunk is read by
// fetching only its slice, where a compressed value must be decompressed whole for every chunk.
// (Rows written before keep their storage until rewritten.)
constexpr char kV4Sql[] = R"sql(
CREATE INDEX events_time ON events (event_time);
ALTER TABLE artifacts ALTER COLUMN content SET STORAGE EXTERNAL;
)sql";

// Secret artifacts are stored sealed (secret_columns.h); ArtifactInfo reports the size and
// SHA-256 of the plaintext, kept here so that listing artifacts never opens them. NULL for plain
// artifacts, including secret ones written before, which stay readable until re-sealed.
constexpr char kV5Sql[] = R"sql(
ALTER TABLE artifacts ADD COLUMN sealed_size bigint;
ALTER TABLE artifacts ADD COLUMN sealed_sha256 text;
)sql";

}  // namespace

const std::vector<Migration>& Migrations() {
  static const std::vector<Migration> kMigrations = {
      {1, "resources, events, artifacts, change log, leases", kV1Sql},
      {2, "resources stored as binary protos (pb) beside a small jsonb doc", kV2Sql},
      {3, "infra-env signing keys for agent tokens", kV3Sql},
      {4, "events indexed by time for retention; artifacts stored for chunked reads", kV4Sql},
      {5, "sealed artifacts: plaintext size and hash", kV5Sql},
  };
  return kMigrations;
}

absl::StatusOr<int> ApplyMigrations(pg::Connection& connection) {
  RETURN_IF_ERROR(connection.Exec(kMigrationLock).status());
  auto apply = [&connection]() -> absl::StatusOr<int> {
    RETURN_IF_ERROR(connection
                        .Exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
                              "version int PRIMARY KEY, description text NOT NULL, "
                              "applied_at timestamptz NOT NULL DEFAULT now())")
                        .status());
    ASSIGN_OR_RETURN(pg::Result current,
                     connection.Exec("SELECT coalesce(max(version), 0) FROM schema_migrations"));
    int version = 0;
    if (!absl::SimpleAtoi(current.Get(0, 0), &version)) {
      return absl::InternalError("unreadable schema_migrations version");
    }
    const int newest = Migrations().empty() ? 0 : Migrations().back().version;
    if (version > newest) {
      return absl::FailedPreconditionError(
          absl::StrCat("the database schema is at version ", version,
                       " but this inventory knows only up to ", newest, "; upgrade the binary"));
    }
    int applied = 0;
    for (const Migration& migration : Migrations()) {
      if (migration.version <= version) continue;
      ASSIGN_OR_RETURN(pg::Transaction tx, pg::Transaction::Begin(connection));
      RETURN_IF_ERROR(tx.ExecScript(migration.sql).status());
      RETURN_IF_ERROR(tx.Exec("INSERT INTO schema_migrations (version, description) "
                              "VALUES ($1, $2)",
                              {absl::StrCat(migration.version), migration.description})
                          .status());
      RETURN_IF_ERROR(tx.Commit());
      ++applied;
    }
    return applied;
  };
  absl::StatusOr<int> applied = apply();
  // Session-level lock: release it whatever happened (a broken connection releases it too).
  (void)connection.Exec(kMigrationUnlock);
  return applied;
}

}  // namespace assisted::inventory
