// File: bench/service_stack.h
//
// The real back end the fleet benches drive: a throwaway PostgreSQL, assisted-inventory and
// assisted-orchestrator as child processes (tests/harness launchers), plus the figures those
// benches report about them: CPU seconds and memory of the services, and the database's
// committed transactions and row writes (pg_stat_database).
//
//   ASSIGN_OR_RETURN(auto stack, ServiceStack::Start({.orchestrator_args = {...}}));
//   DbWrites before = stack->DbWritesNow();  ... work ...  DbWrites after = stack->DbWritesNow();

#ifndef ASSISTED_BENCH_SERVICE_STACK_H_
#define ASSISTED_BENCH_SERVICE_STACK_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/pg/connection.h"
#include "tests/harness/postgres_server.h"
#include "tests/harness/service_launcher.h"

namespace assisted::bench {

// Database activity so far.
struct DbWrites {
  int64_t commits = 0;  // committed transactions
  int64_t rows = 0;     // rows inserted, updated or deleted
};

class ServiceStack;

// What one phase of a bench costs, from construction on: each part's CPU and the inventory's
// calls. A restarted orchestrator is counted from its start.
class PhaseCost {
 public:
  explicit PhaseCost(ServiceStack& stack);

  // "orchestrator 0.36, inventory 0.74, postgres 0.62, bench 0.12 cores; inventory calls per
  // agent: GetHost 1.96, UpdateHost 1.00" (calls under 0.01 per `unit` left out).
  std::string Describe(double count, const std::string& unit) const;

 private:
  ServiceStack& stack_;
  absl::Time start_;
  pid_t orchestrator_pid_;
  std::map<std::string, double> cpu_;
  std::map<std::string, double> calls_;
};

class ServiceStack {
 public:
  struct Options {
    std::vector<std::string> orchestrator_args;  // beyond --inventory-address
  };

  // Starts PostgreSQL, the inventory and the orchestrator (both at --log-level=warning).
  static absl::StatusOr<std::unique_ptr<ServiceStack>> Start(Options options);

  testing::LaunchedService& inventory() { return *inventory_; }
  testing::LaunchedService& orchestrator() { return *orchestrator_; }

  // kill -9 of the orchestrator, then the same binary and arguments again on the same port.
  absl::Status RestartOrchestratorHard();

  DbWrites DbWritesNow();
  // utime + stime of the inventory and the orchestrator together.
  double ServiceCpuSeconds() const;
  // CPU seconds so far of each part: "orchestrator", "inventory", "postgres" (the postmaster
  // and its live backends) and "bench" (this process, with the simulated fleets).
  std::map<std::string, double> CpuSecondsByPart() const;
  // RPCs the inventory has completed so far, by method (its grpc_server_handled_total).
  std::map<std::string, double> InventoryCallsNow() const;

 private:
  ServiceStack() = default;
  absl::Status LaunchOrchestrator(int port);

  Options options_;
  std::unique_ptr<testing::PostgresServer> postgres_;
  std::unique_ptr<pg::Connection> db_;
  std::unique_ptr<testing::LaunchedService> inventory_;
  std::unique_ptr<testing::LaunchedService> orchestrator_;
};

}  // namespace assisted::bench

#endif  // ASSISTED_BENCH_SERVICE_STACK_H_
