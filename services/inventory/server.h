// File: services/inventory/server.h
//
// Composition root of assisted-inventory, the system of record: the only service that talks to
// PostgreSQL. It serves assisted.inventory.v1.InventoryService on gRPC (port 9091 by default).

#ifndef ASSISTED_SERVICES_INVENTORY_SERVER_H_
#define ASSISTED_SERVICES_INVENTORY_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/config/config.h"
#include "lib/grpc/server.h"
#include "lib/service/runner.h"

namespace assisted::inventory {

struct Config {
  // An internal listener: loopback unless client certificates are checked. Messages are as
  // large as grpcutil::kMaxMessageBytes (an artifact and its envelope). gRPC's pollers count
  // against max_threads too: at 64, a gateway with 64 busy handlers already got "Server
  // Threadpool Exhausted" (429 to users); waiting threads cost little, the PostgreSQL pool
  // bounds the real work.
  grpcutil::GrpcServerOptions grpc{
      .listen = "127.0.0.1:9091", .max_threads = 256, .internal = true};
  // libpq connection string or URI; may hold a password, so it is never printed.
  std::string postgres_dsn;
  absl::Duration postgres_connect_timeout = absl::Seconds(10);
  int postgres_max_connections = 16;
  absl::Duration postgres_statement_timeout = absl::Seconds(10);
  // Group commit of host registrations and status compare-and-sets (group_commit.h): most
  // writes per transaction (1: each commits alone), and transactions open at once.
  int group_commit_max_batch = 64;
  int group_commit_batches_in_flight = 2;
  int64_t max_artifact_bytes = grpcutil::kMaxArtifactBytes;
  int64_t change_log_keep = 1'000'000;
  absl::Duration watch_bookmark_interval = absl::Seconds(10);
  // Events older than this are deleted (in small batches, every event_prune_interval); zero keeps
  // them until their cluster is purged.
  absl::Duration event_retention = absl::Hours(24 * 30);
  absl::Duration event_prune_interval = absl::Minutes(1);
  // Secrets at rest (README "Secrets at rest"): the key that seals pull secrets, signing keys and
  // secret artifacts, and older keys still accepted for reading during a rotation. Without a key
  // the inventory refuses to start unless secrets_plaintext_for_development says otherwise.
  std::string secrets_key_file;
  std::vector<std::string> secrets_old_key_files;
  bool secrets_plaintext_for_development = false;

  void Register(config::Parser& parser);
};

// Connects to PostgreSQL (15 or newer) and starts serving.
// UNAVAILABLE when the database or the listen address cannot be reached.
absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context);

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_SERVER_H_
