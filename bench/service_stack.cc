#include "bench/service_stack.h"

#include "bench/download_harness.h"
#include "lib/status/status_macros.h"

namespace assisted::bench {

absl::StatusOr<std::unique_ptr<ServiceStack>> ServiceStack::Start(Options options) {
  std::unique_ptr<ServiceStack> stack(new ServiceStack());
  stack->options_ = std::move(options);
  ASSIGN_OR_RETURN(stack->postgres_, testing::PostgresServer::Start());
  ASSIGN_OR_RETURN(std::string dsn, stack->postgres_->CreateDatabase());
  ASSIGN_OR_RETURN(stack->db_, pg::Connection::Open(dsn));
  ASSIGN_OR_RETURN(
      stack->inventory_,
      testing::LaunchedService::Launch({.binary = "services/inventory/assisted-inventory",
                                        .args = {"--postgres-dsn=" + dsn, "--log-level=warning"}}));
  RETURN_IF_ERROR(stack->LaunchOrchestrator(0));
  return stack;
}

absl::Status ServiceStack::LaunchOrchestrator(int port) {
  std::vector<std::string> args = {"--inventory-address=" + inventory_->grpc_target(),
                                   "--log-level=warning"};
  args.insert(args.end(), options_.orchestrator_args.begin(), options_.orchestrator_args.end());
  ASSIGN_OR_RETURN(orchestrator_, testing::LaunchedService::Launch(
                                      {.binary = "services/orchestrator/assisted-orchestrator",
                                       .args = args,
                                       // After a kill -9 every agent reconnects at once: on a small
                                       // machine the health check can wait minutes behind them.
                                       .ready_timeout = absl::Minutes(15),
                                       .grpc_port = port}));
  return absl::OkStatus();
}

absl::Status ServiceStack::RestartOrchestratorHard() {
  const int port = orchestrator_->grpc_port();
  orchestrator_->Kill();
  return LaunchOrchestrator(port);
}

DbWrites ServiceStack::DbWritesNow() {
  DbWrites writes;
  auto result = db_->Exec(
      "SELECT xact_commit, tup_inserted + tup_updated + tup_deleted FROM pg_stat_database "
      "WHERE datname = current_database()");
  if (result.ok() && result->rows() == 1) {
    writes.commits = std::stoll(std::string(result->Get(0, 0)));
    writes.rows = std::stoll(std::string(result->Get(0, 1)));
  }
  return writes;
}

double ServiceStack::ServiceCpuSeconds() const {
  return CpuSeconds(inventory_->pid()) + CpuSeconds(orchestrator_->pid());
}

}  // namespace assisted::bench
