#include "bench/service_stack.h"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include "bench/download_harness.h"
#include "lib/http/test_client.h"
#include "lib/status/status_macros.h"

namespace assisted::bench {

absl::StatusOr<std::unique_ptr<ServiceStack>> ServiceStack::Start(Options options) {
  std::unique_ptr<ServiceStack> stack(new ServiceStack());
  stack->options_ = std::move(options);
  ASSIGN_OR_RETURN(stack->postgres_, testing::PostgresServer::Start());
  ASSIGN_OR_RETURN(std::string dsn, stack->postgres_->CreateDatabase());
  ASSIGN_OR_RETURN(stack->db_, pg::Connection::Open(dsn));
  for (int replica = 0; replica < stack->options_.replicas; ++replica) {
    ASSIGN_OR_RETURN(std::unique_ptr<testing::LaunchedService> inventory,
                     testing::LaunchedService::Launch(
                         {.binary = "services/inventory/assisted-inventory",
                          .args = {"--postgres-dsn=" + dsn, "--log-level=warning"}}));
    stack->inventories_.push_back(std::move(inventory));
  }
  stack->orchestrators_.resize(stack->options_.replicas);
  for (int replica = 0; replica < stack->options_.replicas; ++replica) {
    RETURN_IF_ERROR(stack->LaunchOrchestrator(replica, 0));
  }
  return stack;
}

absl::Status ServiceStack::LaunchOrchestrator(int replica, int port) {
  ASSIGN_OR_RETURN(std::string inventory_address,
                   testing::ReplicasAddress(inventories_, replica, /*internal=*/false, fronts_));
  std::vector<std::string> args = {"--inventory-address=" + inventory_address,
                                   "--log-level=warning"};
  if (options_.replicas > 1) args.push_back(absl::StrCat("--replica-id=orchestrator-", replica));
  args.insert(args.end(), options_.orchestrator_args.begin(), options_.orchestrator_args.end());
  ASSIGN_OR_RETURN(orchestrators_[replica],
                   testing::LaunchedService::Launch(
                       {.binary = "services/orchestrator/assisted-orchestrator",
                        .args = args,
                        // After a kill -9 every agent reconnects at once: on a small
                        // machine the health check can wait minutes behind them.
                        .ready_timeout = absl::Minutes(15),
                        .grpc_port = port,
                        .internal_grpc = true}));
  return absl::OkStatus();
}

std::string ServiceStack::orchestrators_target(int first) const {
  return testing::ReplicasTarget(orchestrators_, first);
}

void ServiceStack::KillOrchestrator(int replica) {
  killed_orchestrator_cpu_ += CpuSeconds(orchestrators_[replica]->pid());
  orchestrators_[replica]->Kill();
  orchestrators_[replica].reset();
}

absl::Status ServiceStack::RestartOrchestratorHard() {
  const int port = orchestrators_[0]->grpc_port();
  KillOrchestrator(0);
  return LaunchOrchestrator(0, port);
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
  const std::map<std::string, double> parts = CpuSecondsByPart();
  return parts.at("orchestrator") + parts.at("inventory");
}

double ServiceStack::OrchestratorRssMib() const {
  double mib = 0;
  for (const auto& orchestrator : orchestrators_) {
    if (orchestrator != nullptr) mib += StatusMib(orchestrator->pid(), "VmRSS:");
  }
  return mib;
}

std::map<std::string, double> ServiceStack::PeakRssMibByService() const {
  std::map<std::string, double> peaks = {{"orchestrator", 0}, {"inventory", 0}};
  for (const auto& orchestrator : orchestrators_) {
    if (orchestrator != nullptr) peaks["orchestrator"] += StatusMib(orchestrator->pid(), "VmHWM:");
  }
  for (const auto& inventory : inventories_) {
    peaks["inventory"] += StatusMib(inventory->pid(), "VmHWM:");
  }
  return peaks;
}

namespace {

// The parent pid of `pid` (field 4 of /proc/<pid>/stat), or -1.
pid_t ParentOf(pid_t pid) {
  const std::vector<std::string> fields = StatFields(pid);
  pid_t parent = -1;
  if (fields.size() < 2 || !absl::SimpleAtoi(fields[1], &parent)) return -1;
  return parent;
}

}  // namespace

std::map<std::string, double> ServiceStack::CpuSecondsByPart() const {
  std::map<std::string, double> parts;
  parts["orchestrator"] = killed_orchestrator_cpu_;
  for (const auto& orchestrator : orchestrators_) {
    if (orchestrator != nullptr) parts["orchestrator"] += CpuSeconds(orchestrator->pid());
  }
  parts["inventory"] = 0;
  for (const auto& inventory : inventories_) parts["inventory"] += CpuSeconds(inventory->pid());
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  parts["bench"] = static_cast<double>(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
                   (self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
  // The postmaster's pid is the first line of postmaster.pid; backends are its children (the
  // inventory keeps its connections, so their time is not lost to exited processes).
  std::ifstream pid_file(postgres_->folder() + "/data/postmaster.pid");
  std::string first_line;
  pid_t postmaster = 0;
  if (std::getline(pid_file, first_line) && absl::SimpleAtoi(first_line, &postmaster)) {
    double postgres = CpuSeconds(postmaster);
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      pid_t pid = 0;
      if (!absl::SimpleAtoi(entry.path().filename().string(), &pid)) continue;
      if (ParentOf(pid) == postmaster) postgres += CpuSeconds(pid);
    }
    parts["postgres"] = postgres;
  }
  return parts;
}

std::map<std::string, double> ServiceStack::InventoryCallsNow() const {
  std::map<std::string, double> calls;
  http::test::CurlClient client;
  for (const auto& inventory : inventories_) {
    absl::StatusOr<http::test::CurlResponse> metrics = client.Fetch(inventory->metrics_url());
    if (!metrics.ok()) continue;
    // grpc_server_handled_total{grpc_code="OK",grpc_method="GetHost",grpc_service="…",…} 42
    std::istringstream lines(metrics->body);
    for (std::string line; std::getline(lines, line);) {
      if (!absl::StartsWith(line, "grpc_server_handled_total{")) continue;
      const size_t method_at = line.find("grpc_method=\"");
      const size_t value_at = line.rfind(' ');
      if (method_at == std::string::npos || value_at == std::string::npos) continue;
      const size_t name_start = method_at + 13;
      const std::string method = line.substr(name_start, line.find('"', name_start) - name_start);
      double value = 0;
      if (absl::SimpleAtod(line.substr(value_at + 1), &value)) calls[method] += value;
    }
  }
  return calls;
}

PhaseCost::PhaseCost(ServiceStack& stack)
    : stack_(stack),
      start_(absl::Now()),
      cpu_(stack.CpuSecondsByPart()),
      calls_(stack.InventoryCallsNow()) {}

std::string PhaseCost::Describe(double count, const std::string& unit) const {
  const absl::Duration wall = absl::Now() - start_;
  std::map<std::string, double> cpu = stack_.CpuSecondsByPart();
  const std::map<std::string, double>& cpu_before = cpu_;
  std::vector<std::string> parts;
  for (const char* name : {"orchestrator", "inventory", "postgres", "bench"}) {
    if (cpu.count(name) == 0 || cpu_before.count(name) == 0) continue;
    parts.push_back(absl::StrFormat(
        "%s %.2f", name, (cpu[name] - cpu_before.at(name)) / absl::ToDoubleSeconds(wall)));
  }
  std::vector<std::pair<double, std::string>> rates;
  for (const auto& [method, total] : stack_.InventoryCallsNow()) {
    auto before = calls_.find(method);
    const double rate = (total - (before == calls_.end() ? 0 : before->second)) / count;
    if (rate >= 0.01) rates.emplace_back(rate, method);
  }
  std::sort(rates.rbegin(), rates.rend());
  std::vector<std::string> calls;
  for (const auto& [rate, method] : rates)
    calls.push_back(absl::StrFormat("%s %.2f", method, rate));
  return absl::StrCat(absl::StrJoin(parts, ", "), " cores; inventory calls per ", unit, ": ",
                      calls.empty() ? "none" : absl::StrJoin(calls, ", "));
}

}  // namespace assisted::bench
