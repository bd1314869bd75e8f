// bench/inventory: durable writes through the real inventory service. Starts a throwaway
// PostgreSQL (synchronous commit and fsync on) and the assisted-inventory binary, then drives it
// over gRPC from N concurrent clients:
//   1. host registrations (CreateHost, each a new row + change-log entry, one transaction);
//   2. host status compare-and-set (UpdateHostStatus flipping known <-> insufficient).
// First, their floor on the same server: `pgbench -N` (per transaction an UPDATE, a SELECT and an
// INSERT, one durable commit) from as many clients for as long (pgbench_tps, pgbench_p99_ms),
// and each phase's rate as a ratio to it (register_ratio, cas_ratio). Each phase also counts the
// server's write transactions (transaction ids it handed out) per operation, the change-log
// sequencer's included: with group commit (--group-commit-max-batch > 1) many registrations share
// one; and the CPU time per operation of PostgreSQL, the inventory and the clients (pgbench, or
// this program's gRPC clients). Counts and CPU per operation mean about the same on a loaded
// machine; the rates do not. register_cpu_ratio is pgbench's CPU per transaction over a
// registration's: the rate ratio to expect where CPU is the bound.
//
//   ./dev bench inventory [--clients=16] [--duration=10s] [--group-commit-max-batch=64]
// Last line: {"bench":"inventory","clients":16,"register_per_s":…,"register_p99_ms":…,
//             "cas_per_s":…,"cas_p99_ms":…,"errors":…,"pgbench_tps":…,"pgbench_p50_ms":…,
//             "pgbench_p99_ms":…,"register_ratio":…,"cas_ratio":…,
//             "register_write_xacts_per_op":…,"cas_write_xacts_per_op":…,"pgbench_cpu_ms":…,
//             "register_cpu_ms":…,"register_pg_cpu_ms":…,"register_inventory_cpu_ms":…,
//             "register_client_cpu_ms":…,"cas_cpu_ms":…,"register_cpu_ratio":…,"cores":2}

#include <sys/resource.h>
#include <unistd.h>

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
#include "lib/pg/connection.h"
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
  int group_commit_max_batch = 64;
  int group_commit_batches_in_flight = 2;
};

// CPU time (user + system) of the processes a phase keeps busy. Unlike a rate, CPU time per
// operation stays near its quiet-machine value on a loaded machine: it tells what the rate
// would be where CPU is the bound.
struct CpuTimes {
  double postgres = 0;   // the server: postmaster, its live processes and those it reaped
  double inventory = 0;  // assisted-inventory (0 in the pgbench phase)
  double client = 0;     // the load's clients: this process's threads, reaped children (pgbench)

  double total() const { return postgres + inventory + client; }
};

struct Figures {
  double per_second = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  int64_t errors = 0;
  CpuTimes cpu_ms;  // per operation
};

// Seconds of CPU `pid` used, from /proc/<pid>/stat; with its reaped children's when asked.
double ProcessCpuSeconds(pid_t pid, bool with_reaped_children, pid_t* parent = nullptr) {
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  std::getline(stat, line);
  const size_t name_end = line.rfind(')');
  if (name_end == std::string::npos) return 0;
  // After the command name: state (field 3), ppid (4), ..., utime (14), stime (15), cutime (16),
  // cstime (17).
  const std::vector<std::string> fields = absl::StrSplit(line.substr(name_end + 2), ' ');
  if (fields.size() < 15) return 0;
  auto field = [&](int number) {
    int64_t value = 0;
    (void)absl::SimpleAtoi(fields[number - 3], &value);
    return value;
  };
  if (parent != nullptr) *parent = static_cast<pid_t>(field(4));
  int64_t ticks = field(14) + field(15);
  if (with_reaped_children) ticks += field(16) + field(17);
  return static_cast<double>(ticks) / sysconf(_SC_CLK_TCK);
}

// The PostgreSQL server's CPU: its postmaster's (with the backends it reaped) and its live
// processes'.
double PostgresCpuSeconds(pid_t postmaster) {
  double seconds = ProcessCpuSeconds(postmaster, true);
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &pid)) continue;
    pid_t parent = 0;
    const double own = ProcessCpuSeconds(pid, true, &parent);
    if (parent == postmaster) seconds += own;
  }
  return seconds;
}

double ClientCpuSeconds() {
  double seconds = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    getrusage(who, &usage);
    seconds += usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
               usage.ru_stime.tv_usec / 1e6;
  }
  return seconds;
}

// The processes a phase keeps busy (inventory 0: none).
struct Busy {
  pid_t postmaster = 0;
  pid_t inventory = 0;

  CpuTimes Now() const {
    return {PostgresCpuSeconds(postmaster),
            inventory == 0 ? 0 : ProcessCpuSeconds(inventory, false), ClientCpuSeconds()};
  }
  // Milliseconds per operation since `before`, for `operations` operations.
  CpuTimes PerOperationSince(const CpuTimes& before, double operations) const {
    const CpuTimes now = Now();
    if (operations == 0) return {};
    const double scale = 1000 / operations;
    return {(now.postgres - before.postgres) * scale, (now.inventory - before.inventory) * scale,
            (now.client - before.client) * scale};
  }
};

void PrintCpu(const CpuTimes& cpu_ms) {
  std::cout << absl::StrFormat(
      "  CPU per operation: PostgreSQL %.3f ms, inventory %.3f ms, clients %.3f ms\n",
      cpu_ms.postgres, cpu_ms.inventory, cpu_ms.client);
}

// The server's postmaster, from the first line of its data folder's postmaster.pid.
pid_t PostmasterPid(const assisted::testing::PostgresServer& postgres) {
  std::ifstream file(postgres.folder() + "/data/postmaster.pid");
  pid_t pid = 0;
  file >> pid;
  return pid;
}

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
Figures Drive(const std::string& target, const Options& options, const Busy& busy, Call call) {
  std::vector<std::vector<double>> latencies(options.clients);
  std::atomic<int64_t> errors{0};
  std::vector<std::thread> threads;
  const CpuTimes before = busy.Now();
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
  figures.cpu_ms = busy.PerOperationSince(before, static_cast<double>(all.size()));
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
  const Busy busy{.postmaster = PostmasterPid(postgres)};
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
  const CpuTimes before = busy.Now();
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
  figures.cpu_ms = busy.PerOperationSince(before, static_cast<double>(latencies.size()));
  SetPercentiles(std::move(latencies), figures);
  return figures;
}

// The server's next transaction id: every transaction that writes takes one, whoever runs it;
// the difference over a phase counts its write transactions (plus the one this read takes).
absl::StatusOr<int64_t> NextTransactionId(const std::string& dsn) {
  ASSIGN_OR_RETURN(std::unique_ptr<assisted::pg::Connection> db,
                   assisted::pg::Connection::Open(dsn));
  ASSIGN_OR_RETURN(assisted::pg::Result row, db->Exec("SELECT txid_current()"));
  int64_t xid = 0;
  if (!absl::SimpleAtoi(row.Get(0, 0), &xid))
    return absl::InternalError("txid_current: not a number");
  return xid;
}

// Write transactions per operation of a phase that began at transaction id `before`.
double WriteTransactionsPerOperation(const std::string& dsn, int64_t before, const Figures& phase,
                                     const Options& options) {
  absl::StatusOr<int64_t> after = NextTransactionId(dsn);
  const double operations = phase.per_second * absl::ToDoubleSeconds(options.duration);
  if (!after.ok() || operations == 0) return 0;
  return static_cast<double>(*after - before - 1) / operations;
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
  parser
      .Int("group-commit-max-batch", &options.group_commit_max_batch,
           "the inventory's --group-commit-max-batch (1: every write commits alone)")
      .Range(1, 1000);
  parser
      .Int("group-commit-batches-in-flight", &options.group_commit_batches_in_flight,
           "the inventory's --group-commit-batches-in-flight")
      .Range(1, 100);
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
  PrintCpu(floor->cpu_ms);
  auto dsn = (*postgres)->CreateDatabase();
  auto inventory = assisted::testing::LaunchedService::Launch(
      {.binary = "services/inventory/assisted-inventory",
       .args = {"--postgres-dsn=" + *dsn,
                "--postgres-max-connections=" + std::to_string(options.pool),
                "--group-commit-max-batch=" + std::to_string(options.group_commit_max_batch),
                "--group-commit-batches-in-flight=" +
                    std::to_string(options.group_commit_batches_in_flight),
                "--log-level=warning"}});
  if (!inventory.ok()) {
    std::cerr << "inventory: " << inventory.status() << "\n";
    return 1;
  }
  const std::string target = (*inventory)->grpc_target();
  const Busy busy{.postmaster = PostmasterPid(**postgres), .inventory = (*inventory)->pid()};

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
  const int64_t before_registration = NextTransactionId(*dsn).value_or(0);
  const Figures registration = Drive(target, options, busy, [&](auto& stub, int c, int i) {
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
  const double registration_xacts =
      WriteTransactionsPerOperation(*dsn, before_registration, registration, options);
  std::cout << absl::StrFormat(
      "  %.0f registrations/s, p50 %.1f ms, p99 %.1f ms, %d errors, %.3f write transactions "
      "each\n",
      registration.per_second, registration.p50_ms, registration.p99_ms, registration.errors,
      registration_xacts);
  PrintCpu(registration.cpu_ms);

  std::cout << "phase 2: host status compare-and-set\n" << std::flush;
  const int64_t before_cas = NextTransactionId(*dsn).value_or(0);
  const Figures cas = Drive(target, options, busy, [&](auto& stub, int c, int i) {
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
  const double cas_xacts = WriteTransactionsPerOperation(*dsn, before_cas, cas, options);
  std::cout << absl::StrFormat(
      "  %.0f transitions/s, p50 %.1f ms, p99 %.1f ms, %d errors, %.3f write transactions each\n",
      cas.per_second, cas.p50_ms, cas.p99_ms, cas.errors, cas_xacts);
  PrintCpu(cas.cpu_ms);
  (*inventory)->Stop();
  std::cout << absl::StrFormat("against pgbench -N: registrations %.2fx, compare-and-set %.2fx\n",
                               registration.per_second / floor->per_second,
                               cas.per_second / floor->per_second);
  std::cout << absl::StrFormat(
      "{\"bench\":\"inventory\",\"clients\":%d,\"register_per_s\":%.0f,\"register_p99_ms\":%.1f,"
      "\"cas_per_s\":%.0f,\"cas_p99_ms\":%.1f,\"errors\":%d,\"pgbench_tps\":%.0f,"
      "\"pgbench_p50_ms\":%.1f,\"pgbench_p99_ms\":%.1f,\"register_ratio\":%.2f,"
      "\"cas_ratio\":%.2f,\"register_write_xacts_per_op\":%.3f,\"cas_write_xacts_per_op\":%.3f,"
      "\"pgbench_cpu_ms\":%.3f,\"register_cpu_ms\":%.3f,\"register_pg_cpu_ms\":%.3f,"
      "\"register_inventory_cpu_ms\":%.3f,\"register_client_cpu_ms\":%.3f,\"cas_cpu_ms\":%.3f,"
      "\"register_cpu_ratio\":%.2f,\"cores\":%d}\n",
      options.clients, registration.per_second, registration.p99_ms, cas.per_second, cas.p99_ms,
      registration.errors + cas.errors, floor->per_second, floor->p50_ms, floor->p99_ms,
      registration.per_second / floor->per_second, cas.per_second / floor->per_second,
      registration_xacts, cas_xacts, floor->cpu_ms.total(), registration.cpu_ms.total(),
      registration.cpu_ms.postgres, registration.cpu_ms.inventory, registration.cpu_ms.client,
      cas.cpu_ms.total(),
      registration.cpu_ms.total() == 0 ? 0 : floor->cpu_ms.total() / registration.cpu_ms.total(),
      std::thread::hardware_concurrency());
  return 0;
}
