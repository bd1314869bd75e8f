// bench/inventory: durable writes through the real inventory service. Starts a throwaway
// PostgreSQL (synchronous commit and fsync on) and the assisted-inventory binary, then drives it
// over gRPC from N concurrent clients:
//   1. host registrations (CreateHost, each a new row + change-log entry, one transaction);
//   2. host status compare-and-set (UpdateHostStatus flipping known <-> insufficient).
// First, their floor on the same server: `pgbench -N` (per transaction an UPDATE, a SELECT and an
// INSERT, one durable commit) from as many clients for as long (pgbench_tps, pgbench_p99_ms),
// and each phase's rate as a ratio to it (register_ratio, cas_ratio).
//
//   ./dev bench inventory [--clients=16] [--duration=10s]
// Last line: {"bench":"inventory","clients":16,"register_per_s":…,"register_p99_ms":…,
//             "cas_per_s":…,"cas_p99_ms":…,"errors":…,"pgbench_tps":…,"pgbench_p50_ms":…,
//             "pgbench_p99_ms":…,"register_ratio":…,"cas_ratio":…,"cores":2}

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "lib/config/config.h"
#include "lib/grpc/channel.h"
#include "lib/process/subprocess.h"
#include "lib/service/runner.h"
#include "lib/status/status_macros.h"
#include "tests/harness/postgres_server.h"
#include "tests/harness/service_launcher.h"

namespace {

namespace inv = assisted::inventory::v1;
namespace types = assisted::types::v1;

struct Options {
  int clients = 16;
  absl::Duration duration = absl::Seconds(10);
  int pool = 8;
};

struct Figures {
  double per_second = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  int64_t errors = 0;
};

// Latencies sorted: p50 and p99 into `figures`.
void SetPercentiles(std::vector<double> all, Figures& figures) {
  std::sort(all.begin(), all.end());
  if (all.empty()) return;
  figures.p50_ms = all[all.size() / 2];
  figures.p99_ms = all[std::min(all.size() - 1, all.size() * 99 / 100)];
}

// Runs `call(client, i)` from every client until the time is up; each client has its own
// channel and connection, as separate orchestrator replicas and gateways would.
template <typename Call>
Figures Drive(const std::string& target, const Options& options, Call call) {
  std::vector<std::vector<double>> latencies(options.clients);
  std::atomic<int64_t> errors{0};
  std::vector<std::thread> threads;
  const absl::Time end = absl::Now() + options.duration;
  for (int c = 0; c < options.clients; ++c) {
    threads.emplace_back([&, c] {
      auto channel = assisted::grpcutil::MakeChannel(target, {.dedicated_connection = true});
      auto stub = inv::InventoryService::NewStub(*channel);
      for (int i = 0; absl::Now() < end; ++i) {
        const absl::Time start = absl::Now();
        if (call(*stub, c, i)) {
          latencies[c].push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
        } else {
          ++errors;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  Figures figures;
  figures.errors = errors;
  figures.per_second = all.size() / absl::ToDoubleSeconds(options.duration);
  SetPercentiles(std::move(all), figures);
  return figures;
}

// pgbench -N against a database of its own on `postgres`, `options.clients` clients for
// `options.duration`: transactions per second and their latencies (from pgbench's
// per-transaction log, whose third field is the latency in microseconds).
absl::StatusOr<Figures> PgbenchFloor(assisted::testing::PostgresServer& postgres,
                                     const Options& options) {
  ASSIGN_OR_RETURN(const std::string bindir, assisted::testing::PostgresBinDir());
  ASSIGN_OR_RETURN(const std::string dsn, postgres.CreateDatabase());
  const std::string logs = postgres.folder() + "/pgbench-logs";
  std::filesystem::create_directories(logs);
  assisted::process::LocalProcessRunner runner;
  const std::string pgbench = bindir + "/pgbench";
  ASSIGN_OR_RETURN(assisted::process::CommandResult init,
                   runner.Run({.argv = {pgbench, "-i", "-q", "-s", "1", dsn}}));
  if (!init.ok()) return absl::InternalError("pgbench -i failed: " + init.stderr_data);
  const int seconds = static_cast<int>(absl::ToInt64Seconds(options.duration));
  const int threads =
      std::max(1, std::min<int>(options.clients, std::thread::hardware_concurrency()));
  ASSIGN_OR_RETURN(
      assisted::process::CommandResult run,
      runner.Run({.argv = {pgbench, "-N", "-n", "-c", std::to_string(options.clients), "-j",
                           std::to_string(threads), "-T", std::to_string(seconds), "-l",
                           "--log-prefix=" + logs + "/tx", dsn},
                  .timeout = options.duration + absl::Minutes(1)}));
  if (!run.ok()) return absl::InternalError("pgbench -N failed: " + run.stderr_data);
  Figures figures;
  std::vector<double> latencies;
  for (const auto& entry : std::filesystem::directory_iterator(logs)) {
    std::ifstream log(entry.path());
    std::string line;
    while (std::getline(log, line)) {
      const std::vector<std::string> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
      double micros = 0;
      if (fields.size() >= 3 && absl::SimpleAtod(fields[2], &micros)) {
        latencies.push_back(micros / 1000);
      }
    }
  }
  figures.per_second = latencies.size() / absl::ToDoubleSeconds(options.duration);
  SetPercentiles(std::move(latencies), figures);
  return figures;
}

std::string HostId(int client, int i) {
  return absl::StrFormat("%08x-0000-4000-8000-%012x", client + 1, i);
}

grpc::ClientContext* Deadline(grpc::ClientContext& context) {
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  return &context;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  assisted::config::Parser parser("inventory",
                                  "Durable host registrations and status compare-and-set "
                                  "through assisted-inventory on a throwaway PostgreSQL.");
  parser.Int("clients", &options.clients, "concurrent clients").Range(1, 256);
  parser.Int("pool", &options.pool, "the inventory's PostgreSQL connections").Range(1, 200);
  parser.Duration("duration", &options.duration, "length of each phase")
      .Range(absl::Seconds(1), absl::Minutes(10));
  if (std::optional<int> exit_code = assisted::service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }

  std::cout << "starting PostgreSQL and assisted-inventory\n" << std::flush;
  auto postgres = assisted::testing::PostgresServer::Start();
  if (!postgres.ok()) {
    std::cerr << "inventory: " << postgres.status() << "\n";
    return 1;
  }
  std::cout << "floor: pgbench -N from " << options.clients << " clients for "
            << absl::FormatDuration(options.duration) << "\n"
            << std::flush;
  const absl::StatusOr<Figures> floor = PgbenchFloor(**postgres, options);
  if (!floor.ok()) {
    std::cerr << "inventory: " << floor.status() << "\n";
    return 1;
  }
  std::cout << absl::StrFormat("  %.0f transactions/s, p50 %.1f ms, p99 %.1f ms\n",
                               floor->per_second, floor->p50_ms, floor->p99_ms);
  auto dsn = (*postgres)->CreateDatabase();
  auto inventory = assisted::testing::LaunchedService::Launch(
      {.binary = "services/inventory/assisted-inventory",
       .args = {"--postgres-dsn=" + *dsn,
                "--postgres-max-connections=" + std::to_string(options.pool),
                "--log-level=warning"}});
  if (!inventory.ok()) {
    std::cerr << "inventory: " << inventory.status() << "\n";
    return 1;
  }
  const std::string target = (*inventory)->grpc_target();

  auto setup = inv::InventoryService::NewStub(*assisted::grpcutil::MakeChannel(target, {}));
  inv::CreateInfraEnvRequest create_infra_env;
  create_infra_env.mutable_infra_env()->set_name("bench");
  types::InfraEnv infra_env;
  grpc::ClientContext setup_context;
  if (!setup->CreateInfraEnv(Deadline(setup_context), create_infra_env, &infra_env).ok()) {
    std::cerr << "inventory: cannot create the infra-env\n";
    return 1;
  }

  std::cout << "phase 1: host registrations from " << options.clients << " clients for "
            << absl::FormatDuration(options.duration) << "\n"
            << std::flush;
  std::vector<int> registered(options.clients, 0);
  const Figures registration = Drive(target, options, [&](auto& stub, int c, int i) {
    inv::CreateHostRequest request;
    request.mutable_host()->set_id(HostId(c, i));
    request.mutable_host()->set_infra_env_id(infra_env.id());
    request.mutable_host()->set_requested_hostname(absl::StrFormat("host-%d-%d", c, i));
    types::Host host;
    grpc::ClientContext context;
    const bool ok = stub.CreateHost(Deadline(context), request, &host).ok();
    if (ok) registered[c] = i + 1;
    return ok;
  });
  std::cout << absl::StrFormat("  %.0f registrations/s, p50 %.1f ms, p99 %.1f ms, %d errors\n",
                               registration.per_second, registration.p50_ms, registration.p99_ms,
                               registration.errors);

  std::cout << "phase 2: host status compare-and-set\n" << std::flush;
  const Figures cas = Drive(target, options, [&](auto& stub, int c, int i) {
    if (registered[c] == 0) return false;
    // Each client cycles through its own hosts; every host alternates between two states.
    const int host = i % registered[c];
    const int round = i / registered[c];
    inv::UpdateHostStatusRequest request;
    request.set_infra_env_id(infra_env.id());
    request.set_id(HostId(c, host));
    request.set_expected_status(round == 0       ? types::HOST_STATUS_DISCOVERING_UNBOUND
                                : round % 2 == 1 ? types::HOST_STATUS_KNOWN_UNBOUND
                                                 : types::HOST_STATUS_INSUFFICIENT_UNBOUND);
    request.set_new_status(round % 2 == 0 ? types::HOST_STATUS_KNOWN_UNBOUND
                                          : types::HOST_STATUS_INSUFFICIENT_UNBOUND);
    types::Host out;
    grpc::ClientContext context;
    const grpc::Status status = stub.UpdateHostStatus(Deadline(context), request, &out);
    if (!status.ok() && c == 0 && i < 3)
      std::cerr << "  CAS failed: " << status.error_message() << "\n";
    return status.ok();
  });
  std::cout << absl::StrFormat("  %.0f transitions/s, p50 %.1f ms, p99 %.1f ms, %d errors\n",
                               cas.per_second, cas.p50_ms, cas.p99_ms, cas.errors);
  (*inventory)->Stop();
  std::cout << absl::StrFormat("against pgbench -N: registrations %.2fx, compare-and-set %.2fx\n",
                               registration.per_second / floor->per_second,
                               cas.per_second / floor->per_second);
  std::cout << absl::StrFormat(
      "{\"bench\":\"inventory\",\"clients\":%d,\"register_per_s\":%.0f,\"register_p99_ms\":%.1f,"
      "\"cas_per_s\":%.0f,\"cas_p99_ms\":%.1f,\"errors\":%d,\"pgbench_tps\":%.0f,"
      "\"pgbench_p50_ms\":%.1f,\"pgbench_p99_ms\":%.1f,\"register_ratio\":%.2f,"
      "\"cas_ratio\":%.2f,\"cores\":%d}\n",
      options.clients, registration.per_second, registration.p99_ms, cas.per_second, cas.p99_ms,
      registration.errors + cas.errors, floor->per_second, floor->p50_ms, floor->p99_ms,
      registration.per_second / floor->per_second, cas.per_second / floor->per_second,
      std::thread::hardware_concurrency());
  return 0;
}
