#include "services/inventory/server.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "lib/crypto/sealed.h"
#include "lib/pg/pool.h"
#include "lib/random/random.h"
#include "lib/service/grpc_host.h"
#include "lib/status/status_macros.h"
#include "lib/time/backoff.h"
#include "services/inventory/artifact_store.h"
#include "services/inventory/change_feed.h"
#include "services/inventory/cluster_store.h"
#include "services/inventory/event_store.h"
#include "services/inventory/group_commit.h"
#include "services/inventory/host_store.h"
#include "services/inventory/infra_env_store.h"
#include "services/inventory/input_checks.h"
#include "services/inventory/inventory_metrics.h"
#include "services/inventory/lease_store.h"
#include "services/inventory/migrations.h"
#include "services/inventory/secret_columns.h"
#include "services/inventory/service.h"
#include "services/inventory/signing_key_store.h"

namespace assisted::inventory {
namespace {

constexpr int kMinServerVersion = 150000;

// The first connection, waited for up to `within` while PostgreSQL cannot take it yet (its
// socket not there, "the database system is starting up"): started together, as on node 0 of
// the agent-based flow or in a pod, the inventory used to exit when it came up first.
absl::StatusOr<pg::Pool::Handle> FirstConnection(pg::Pool& pool, absl::Duration within,
                                                 const log::Logger& log) {
  const absl::Time deadline = absl::Now() + within;
  SystemRandom random;
  Backoff backoff({.initial = absl::Milliseconds(100), .multiplier = 2, .max = absl::Seconds(1)},
                  random);
  for (bool told = false;; told = true) {
    absl::StatusOr<pg::Pool::Handle> connection = pool.Acquire();
    if (connection.ok() || !absl::IsUnavailable(connection.status())) return connection;
    const absl::Duration pause = backoff.Next();
    if (absl::Now() + pause > deadline) return connection;
    if (!told) {
      log.Info("waiting for PostgreSQL", {{"error", connection.status().message()},
                                          {"at_most", absl::FormatDuration(within)}});
    }
    absl::SleepFor(pause);
  }
}

}  // namespace

void Config::Register(config::Parser& parser) {
  grpc.Register(parser);
  parser
      .String("postgres-dsn", &postgres_dsn,
              "PostgreSQL connection string, e.g. \"host=/run/postgresql dbname=assisted\"")
      .Required()
      .Secret();
  parser
      .Duration("postgres-connect-timeout", &postgres_connect_timeout,
                "how long to wait for PostgreSQL to accept a connection (at start, also while "
                "it is not up yet)")
      .Range(absl::Seconds(1), absl::Minutes(10));
  parser
      .Int("postgres-max-connections", &postgres_max_connections,
           "connections the pool may open; keep below the server's max_connections")
      .Range(1, 1000);
  parser
      .Duration("postgres-statement-timeout", &postgres_statement_timeout,
                "longest any one SQL statement may run")
      .Range(absl::Milliseconds(100), absl::Hours(1));
  parser
      .Int("group-commit-max-batch", &group_commit_max_batch,
           "most host registrations and status changes committed in one transaction (1: each "
           "commits alone)")
      .Range(1, 1000);
  parser
      .Int("group-commit-batches-in-flight", &group_commit_batches_in_flight,
           "transactions of grouped writes open at once; writes arriving while all are open "
           "wait and go together in the next")
      .Range(1, 100);
  parser.Int64("max-artifact-bytes", &max_artifact_bytes, "largest artifact stored")
      .Range(1, grpcutil::kMaxArtifactBytes);
  parser
      .Int64("change-log-keep", &change_log_keep,
             "change-log entries kept for watchers to resume from")
      .Range(1000, int64_t{1} << 40);
  parser
      .Duration("watch-bookmark-interval", &watch_bookmark_interval,
                "a quiet Watch stream gets a BOOKMARK this often")
      .Range(absl::Milliseconds(100), absl::Hours(1));
  parser
      .Duration("event-retention", &event_retention,
                "events older than this are deleted; 0 keeps them until their cluster is purged")
      .Range(absl::ZeroDuration(), absl::Hours(24 * 365 * 100));
  parser
      .Duration("event-prune-interval", &event_prune_interval,
                "how often old events are pruned (a bounded batch each time)")
      .Range(absl::Seconds(1), absl::Hours(24));
  parser.Int("grpc-max-threads", &grpc.max_threads, "threads serving requests").Range(2, 10000);
  parser
      .String("secrets-key-file", &secrets_key_file,
              "file holding the 32-byte key (raw or base64) that seals secrets in the database")
      .Check([this](const std::string& file) -> absl::Status {
        if (file.empty()) {
          return secrets_plaintext_for_development
                     ? absl::OkStatus()
                     : absl::InvalidArgumentError(
                           "required (or --secrets-plaintext-for-development to store secrets "
                           "unencrypted)");
        }
        return crypto::Sealer::ReadKeyFile(file).status();
      });
  parser
      .List("secrets-old-key-files", &secrets_old_key_files,
            "comma-separated key files of before a rotation: still opened, re-sealed at start")
      .Check([](const std::vector<std::string>& files) -> absl::Status {
        for (const std::string& file : files) {
          RETURN_IF_ERROR(crypto::Sealer::ReadKeyFile(file).status());
        }
        return absl::OkStatus();
      });
  parser.Bool("secrets-plaintext-for-development", &secrets_plaintext_for_development,
              "without --secrets-key-file, store secrets unencrypted (never in production)");
}

namespace {

// Everything the service implementation uses, destroyed in reverse order of declaration: the
// feed's thread stops before the pool it uses goes away.
struct Parts {
  std::unique_ptr<crypto::Sealer> sealer;  // null: secrets stored in plain (development)
  std::unique_ptr<pg::Pool> pool;
  std::unique_ptr<GroupCommitter> group_commit;
  std::unique_ptr<ClusterStore> clusters;
  std::unique_ptr<InfraEnvStore> infra_envs;
  std::unique_ptr<HostStore> hosts;
  std::unique_ptr<SigningKeyStore> signing_keys;
  std::unique_ptr<EventStore> events;
  std::unique_ptr<ArtifactStore> artifacts;
  std::unique_ptr<LeaseStore> leases;
  std::unique_ptr<ChangeFeed> feed;
  std::unique_ptr<EventRetention> event_retention;  // null when events are kept forever
  std::unique_ptr<InventoryMetrics> metrics;
};

}  // namespace

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context) {
  auto parts = std::make_shared<Parts>();
  if (!config.secrets_key_file.empty()) {
    ASSIGN_OR_RETURN(
        crypto::Sealer sealer,
        crypto::Sealer::FromFiles(config.secrets_key_file, config.secrets_old_key_files));
    parts->sealer = std::make_unique<crypto::Sealer>(std::move(sealer));
  } else {
    context.log.Warning("secrets are stored unencrypted (--secrets-plaintext-for-development)");
  }
  parts->pool = std::make_unique<pg::Pool>(
      pg::PoolOptions{.dsn = config.postgres_dsn,
                      .max_connections = config.postgres_max_connections,
                      .connect = {.connect_timeout = config.postgres_connect_timeout,
                                  .statement_timeout = config.postgres_statement_timeout,
                                  .application_name = "assisted-inventory"}});
  {
    ASSIGN_OR_RETURN(pg::Pool::Handle connection,
                     FirstConnection(*parts->pool, config.postgres_connect_timeout, context.log));
    if (connection->server_version() < kMinServerVersion) {
      return absl::FailedPreconditionError(absl::StrCat("PostgreSQL ", connection->server_version(),
                                                        " is too old; 15 or newer is needed"));
    }
    ASSIGN_OR_RETURN(int applied, ApplyMigrations(*connection));
    context.log.Info("connected to PostgreSQL", {{"server_version", connection->server_version()},
                                                 {"migrations_applied", applied}});
  }
  if (parts->sealer != nullptr) {
    // Seals what an inventory of before sealing wrote, and re-seals what an old key sealed, so
    // that after one start with a new key the old ones can be dropped. A value under a key no
    // longer configured is left alone (reading it fails) rather than stopping the service.
    absl::StatusOr<ResealCounts> resealed = ResealSecrets(*parts->pool, *parts->sealer);
    if (resealed.ok()) {
      context.log.Info("secrets sealed under the current key",
                       {{"pull_secrets", resealed->pull_secrets},
                        {"signing_keys", resealed->signing_keys},
                        {"artifacts", resealed->artifacts}});
      if (resealed->unreadable > 0) {
        context.log.Error(
            "secrets that do not open with the configured keys (give the key that sealed them "
            "in --secrets-old-key-files)",
            {{"count", resealed->unreadable}});
      }
    } else {
      context.log.Error("cannot re-seal secrets", {{"error", resealed.status().message()}});
    }
  }
  ASSIGN_OR_RETURN(parts->feed, ChangeFeed::Start({.dsn = config.postgres_dsn,
                                                   .keep_changes = config.change_log_keep},
                                                  *parts->pool, context.log.Child("feed")));
  parts->group_commit = std::make_unique<GroupCommitter>(
      *parts->pool,
      GroupCommitOptions{.max_batch = config.group_commit_max_batch,
                         .max_batches_in_flight = config.group_commit_batches_in_flight});
  const ResourceStoreOptions resource_options{
      .validators = {.cluster = ValidateCluster,
                     .infra_env = ValidateInfraEnv,
                     .host = ValidateHost,
                     .pull_secret = ValidatePullSecret},
      .committed = [feed = parts->feed.get()](const Change& change) { feed->Hint(change); },
      .sealer = parts->sealer.get(),
      .group_commit = parts->group_commit.get()};
  parts->clusters = std::make_unique<ClusterStore>(*parts->pool, resource_options);
  parts->infra_envs = std::make_unique<InfraEnvStore>(*parts->pool, resource_options);
  parts->hosts = std::make_unique<HostStore>(*parts->pool, resource_options);
  parts->signing_keys = std::make_unique<SigningKeyStore>(*parts->pool, resource_options);
  parts->events = std::make_unique<EventStore>(*parts->pool);
  parts->artifacts =
      std::make_unique<ArtifactStore>(*parts->pool, config.max_artifact_bytes, parts->sealer.get());
  parts->leases = std::make_unique<LeaseStore>(*parts->pool);
  if (config.event_retention > absl::ZeroDuration()) {
    parts->event_retention = std::make_unique<EventRetention>(
        *parts->pool, EventPruning{.older_than = config.event_retention},
        config.event_prune_interval, context.log.Child("events"));
  }

  parts->metrics = std::make_unique<InventoryMetrics>(*context.metrics);
  auto host = std::make_unique<service::GrpcServiceHost>();
  host->Keep(parts);
  host->Add(
      std::make_unique<InventoryServiceImpl>(
          Stores{*parts->clusters, *parts->infra_envs, *parts->hosts, *parts->signing_keys,
                 *parts->events, *parts->artifacts, *parts->leases, *parts->pool, *parts->feed},
          config.watch_bookmark_interval, parts->metrics.get()),
      v1::InventoryService::service_full_name());
  RETURN_IF_ERROR(host->Start(config.grpc, context));
  return host;
}

}  // namespace assisted::inventory
