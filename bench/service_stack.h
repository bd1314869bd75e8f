// File: bench/service_stack.h
//
// The real back end the fleet benches drive: a throwaway PostgreSQL, assisted-inventory and
// assisted-orchestrator as child processes (tests/harness launchers), one replica of each or
// several on the one database (orchestrator replica i reaches inventory replica i, or the next
// when that one is down),
// plus the figures those benches report about them: CPU seconds and memory of the services,
// and the database's committed transactions and row writes (pg_stat_database).
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
  std::map<std::string, double> cpu_;
  std::map<std::string, double> calls_;
};

class ServiceStack {
 public:
  struct Options {
    std::vector<std::string> orchestrator_args;  // beyond --inventory-address
    int replicas = 1;                            // of the inventory and of the orchestrator
  };

  // Starts PostgreSQL, the inventories and the orchestrators (all at --log-level=warning).
  static absl::StatusOr<std::unique_ptr<ServiceStack>> Start(Options options);

  int replicas() const { return options_.replicas; }
  testing::LaunchedService& inventory(int replica = 0) { return *inventories_[replica]; }
  testing::LaunchedService& orchestrator(int replica = 0) { return *orchestrators_[replica]; }
  // What an agent dials: the orchestrators' agent ports from replica `first` on
  // (testing::ReplicasTarget).
  std::string orchestrators_target(int first) const;
  // Whether orchestrator replica `replica` runs (not killed by KillOrchestrator).
  bool running(int replica) const { return orchestrators_[replica] != nullptr; }

  // kill -9 of orchestrator replica 0, then the same binary and arguments again on its port.
  absl::Status RestartOrchestratorHard();
  // kill -9 of orchestrator replica `replica`, for good (its agents go to the others).
  void KillOrchestrator(int replica);

  DbWrites DbWritesNow();
  // utime + stime of the inventories and the orchestrators together.
  double ServiceCpuSeconds() const;
  // CPU seconds so far of each part: "orchestrator" and "inventory" (every replica, killed ones
  // until they died), "postgres" (the postmaster and its live backends) and "bench" (this
  // process, with the simulated fleets).
  std::map<std::string, double> CpuSecondsByPart() const;
  // VmRSS of the running orchestrators together, MiB.
  double OrchestratorRssMib() const;
  // The highest VmRSS each running service reached so far (VmHWM), MiB: "orchestrator" and
  // "inventory", every replica together.
  std::map<std::string, double> PeakRssMibByService() const;
  // RPCs the inventories have completed so far, by method (their grpc_server_handled_total).
  std::map<std::string, double> InventoryCallsNow() const;

 private:
  ServiceStack() = default;
  absl::Status LaunchOrchestrator(int replica, int port);

  Options options_;
  std::unique_ptr<testing::PostgresServer> postgres_;
  std::unique_ptr<pg::Connection> db_;
  std::vector<std::unique_ptr<testing::LaunchedService>> inventories_;
  std::vector<std::unique_ptr<testing::LaunchedService>> orchestrators_;  // null: killed
  // Orchestrator replica i's address of the inventories (testing::ReplicasAddress).
  std::vector<std::unique_ptr<testing::TcpFront>> fronts_;
  // CPU seconds of orchestrator processes killed so far, up to their death.
  double killed_orchestrator_cpu_ = 0;
};

}  // namespace assisted::bench

#endif  // ASSISTED_BENCH_SERVICE_STACK_H_
