#include "services/inventory/server.h"

#include "absl/strings/str_cat.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "lib/pg/connection.h"
#include "lib/service/grpc_host.h"
#include "lib/status/status_macros.h"

namespace assisted::inventory {
namespace {

constexpr int kMinServerVersion = 150000;

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
                "how long to wait for PostgreSQL to accept a connection")
      .Range(absl::Seconds(1), absl::Minutes(10));
}

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context) {
  ASSIGN_OR_RETURN(std::shared_ptr<pg::Connection> database,
                   pg::Connection::Open(config.postgres_dsn, config.postgres_connect_timeout));
  if (database->server_version() < kMinServerVersion) {
    return absl::FailedPreconditionError(absl::StrCat("PostgreSQL ", database->server_version(),
                                                      " is too old; 15 or newer is needed"));
  }
  context.log.Info("connected to PostgreSQL", {{"server_version", database->server_version()}});

  auto host = std::make_unique<service::GrpcServiceHost>();
  host->Keep(database);
  host->Add(std::make_unique<v1::InventoryService::CallbackService>(),
            v1::InventoryService::service_full_name());
  RETURN_IF_ERROR(host->Start(config.grpc, context));
  return host;
}

}  // namespace assisted::inventory
