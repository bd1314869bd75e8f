// bench/gateway: what the REST gateway adds on top of the gRPC call it makes. Starts a throwaway
// PostgreSQL, the real assisted-inventory and two real assisted-gateways (one with its read
// cache, as deployed; one with --read-cache-entries=0, so every read is a gRPC call plus what
// the gateway adds), registers a cluster with an infra-env of N hosts, then drives the same
// reads every way from C concurrent keep-alive connections, phase after phase in one run
// (REST through the cached gateway, then through the uncached one):
//   1. get-cluster  : GET /api/assisted-install/v2/clusters/{id}      vs
//   InventoryService.GetCluster
//   2. list-hosts   : GET /api/assisted-install/v2/infra-envs/{id}/hosts vs
//   InventoryService.ListHosts
// Both paths carry the same user identity (the REST side as a bearer JWT the gateway verifies).
//
//   ./dev bench gateway [--connections=64] [--duration=5s] [--hosts=10]
// The unloaded REST phases also count what the gateway spends per call (CPU microseconds and
// voluntary context switches, summed over its threads): counts that hold on a loaded machine.
// Last line: {"bench":"gateway","connections":64,"get_cluster_rest_per_s":…,
//             "get_cluster_p99_overhead_ms":…,"unloaded_miss_gateway_switches":…,…,"cores":2}

#include <algorithm>
#include <atomic>
#include <fstream>
#include <functional>
#include <iostream>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "bench/process_figures.h"
#include "grpcpp/client_context.h"
#include "lib/config/config.h"
#include "lib/grpc/channel.h"
#include "lib/grpc/identity.h"
#include "lib/http/test_client.h"
#include "lib/service/runner.h"
#include "nlohmann/json.hpp"
#include "services/gateway/jwt.h"
#include "tests/harness/postgres_server.h"
#include "tests/harness/probes.h"
#include "tests/harness/service_launcher.h"

namespace {

namespace inv = assisted::inventory::v1;
namespace types = assisted::types::v1;
using assisted::http::test::RawConnection;

constexpr char kSecret[] = "bench-gateway-secret-0123456789abcdef0123456789";

struct Options {
  int connections = 64;
  absl::Duration duration = absl::Seconds(5);
  int hosts = 10;
  int handler_threads = 64;
  int http_threads = 0;  // 0: the gateway's default
};

struct Figures {
  double per_second = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  int64_t errors = 0;
  std::string first_error;  // what the first failed call said
  // What the measured server process spent per successful call: counts, which hold on a loaded
  // machine where timings do not. A voluntary context switch is a thread that slept until
  // another woke it: a hand-off.
  double server_cpu_us_per_call = 0;
  double server_switches_per_call = 0;
};

// Runs `call(worker)` (empty = success, else why not) from every worker until the time is up,
// counting what process `server` (0: none) spends meanwhile.
Figures Drive(const Options& options, const std::function<std::function<std::string()>(int)>& make,
              pid_t server = 0) {
  std::vector<std::vector<double>> latencies(options.connections);
  std::atomic<int64_t> errors{0};
  absl::Mutex first_error_mu;
  std::string first_error;
  std::vector<std::thread> threads;
  const double cpu_before = server > 0 ? assisted::bench::CpuSeconds(server) : 0;
  const int64_t switches_before =
      server > 0 ? assisted::bench::VoluntaryContextSwitches(server) : 0;
  const absl::Time end = absl::Now() + options.duration;
  for (int w = 0; w < options.connections; ++w) {
    threads.emplace_back([&, w] {
      std::function<std::string()> call = make(w);
      while (absl::Now() < end) {
        const absl::Time start = absl::Now();
        const std::string error = call();
        if (error.empty()) {
          latencies[w].push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
        } else {
          ++errors;
          absl::MutexLock lock(&first_error_mu);
          if (first_error.empty()) first_error = error;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const double cpu = server > 0 ? assisted::bench::CpuSeconds(server) - cpu_before : 0;
  const int64_t switches =
      server > 0 ? assisted::bench::VoluntaryContextSwitches(server) - switches_before : 0;
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  Figures figures;
  figures.errors = errors;
  figures.first_error = first_error;
  figures.per_second = all.size() / absl::ToDoubleSeconds(options.duration);
  if (!all.empty()) {
    figures.server_cpu_us_per_call = cpu * 1e6 / static_cast<double>(all.size());
    figures.server_switches_per_call =
        static_cast<double>(switches) / static_cast<double>(all.size());
  }
  if (!all.empty()) {
    figures.p50_ms = all[all.size() / 2];
    figures.p99_ms = all[std::min(all.size() - 1, all.size() * 99 / 100)];
  }
  return figures;
}

// One keep-alive HTTP/1.1 connection sending the same GET over and over (a raw socket: the
// client should cost as little as possible next to the server it measures).
std::function<std::string()> RestCaller(int port, const std::string& path,
                                        const std::string& token) {
  auto connection = std::make_shared<absl::StatusOr<RawConnection>>(RawConnection::Connect(port));
  const std::string request = absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: bench\r\n",
                                           "Authorization: Bearer ", token, "\r\n\r\n");
  return [connection, request] {
    if (!connection->ok()) return std::string(connection->status().message());
    if (absl::Status sent = (*connection)->Send(request); !sent.ok()) {
      return std::string(sent.message());
    }
    absl::StatusOr<std::string> response = (*connection)->ReadResponse(absl::Seconds(10));
    if (!response.ok()) return std::string(response.status().message());
    if (absl::StartsWith(*response, "HTTP/1.1 200")) return std::string();
    return response->substr(0, std::min<size_t>(response->size(), 300));
  };
}

std::string Show(const char* name, const Figures& f) {
  std::string line = absl::StrFormat("  %-40s %7.0f /s   p50 %6.2f ms   p99 %6.2f ms   %d errors\n",
                                     name, f.per_second, f.p50_ms, f.p99_ms, f.errors);
  if (f.server_switches_per_call > 0) {
    absl::StrAppend(&line, absl::StrFormat("    the gateway per call: %.0f us CPU, %.1f voluntary "
                                           "context switches\n",
                                           f.server_cpu_us_per_call, f.server_switches_per_call));
  }
  if (!f.first_error.empty()) absl::StrAppend(&line, "    first error: ", f.first_error, "\n");
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  assisted::config::Parser parser(
      "gateway",
      "REST reads through assisted-gateway next to the same gRPC calls made directly to "
      "assisted-inventory, from many keep-alive connections.");
  parser.Int("connections", &options.connections, "concurrent keep-alive connections")
      .Range(1, 1024);
  parser.Duration("duration", &options.duration, "length of each phase")
      .Range(absl::Seconds(1), absl::Minutes(10));
  parser.Int("hosts", &options.hosts, "hosts in the listed infra-env").Range(0, 1000);
  parser.Int("handler-threads", &options.handler_threads, "the gateway's --handler-threads")
      .Range(1, 1024);
  parser.Int("http-threads", &options.http_threads, "the gateway's --http-threads (0: its default)")
      .Range(0, 1024);
  if (std::optional<int> exit_code = assisted::service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }

  std::cout << "starting PostgreSQL, assisted-inventory and assisted-gateway\n" << std::flush;
  auto postgres = assisted::testing::PostgresServer::Start();
  if (!postgres.ok()) {
    std::cerr << "gateway: " << postgres.status() << "\n";
    return 1;
  }
  auto dsn = (*postgres)->CreateDatabase();
  auto inventory = assisted::testing::LaunchedService::Launch(
      {.binary = "services/inventory/assisted-inventory",
       .args = {"--postgres-dsn=" + *dsn, "--log-level=warning"}});
  if (!inventory.ok()) {
    std::cerr << "gateway: " << inventory.status() << "\n";
    return 1;
  }
  const std::string secret_file = "/tmp/bench-gateway-jwt.key";
  std::ofstream(secret_file) << kSecret;
  // Two gateways: the default one (read cache on), and one without its cache, whose every read
  // is the gRPC call it makes plus what the gateway adds.
  auto launch_gateway = [&](int port, const std::string& cache_entries) {
    std::vector<std::string> args = {
        absl::StrCat("--http-listen=127.0.0.1:", port),
        "--inventory-address=" + (*inventory)->grpc_target(), "--jwt-secret-file=" + secret_file,
        "--log-level=warning", absl::StrCat("--handler-threads=", options.handler_threads),
        // Every bench connection comes from 127.0.0.1.
        absl::StrCat("--http-max-connections-per-peer=", options.connections),
        "--read-cache-entries=" + cache_entries};
    if (options.http_threads > 0)
      args.push_back(absl::StrCat("--http-threads=", options.http_threads));
    return assisted::testing::LaunchedService::Launch(
        {.binary = "services/gateway/assisted-gateway", .args = std::move(args)});
  };
  const int http_port = assisted::testing::FreePort().value_or(0);
  auto gateway = launch_gateway(http_port, "10000");
  const int uncached_port = assisted::testing::FreePort().value_or(0);
  auto uncached_gateway = launch_gateway(uncached_port, "0");
  if (!gateway.ok() || !uncached_gateway.ok()) {
    std::cerr << "gateway: " << (gateway.ok() ? uncached_gateway.status() : gateway.status())
              << "\n";
    return 1;
  }

  // The user both paths act as.
  const assisted::grpcutil::Identity alice{.user = "alice", .org = "acme"};
  const std::string token =
      assisted::gateway::SignHs256(kSecret,
                                   {{"sub", "alice"},
                                    {"org_id", "acme"},
                                    {"exp", absl::ToUnixSeconds(absl::Now() + absl::Hours(1))}})
          .value();

  const std::string target = (*inventory)->grpc_target();
  auto setup = inv::InventoryService::NewStub(*assisted::grpcutil::MakeChannel(target, {}));
  auto with_identity = [&](grpc::ClientContext& context) {
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    assisted::grpcutil::SetIdentity(context, alice);
    return &context;
  };
  inv::CreateClusterRequest create_cluster;
  create_cluster.mutable_cluster()->set_name("bench");
  create_cluster.mutable_cluster()->set_openshift_version("4.16");
  create_cluster.mutable_cluster()->set_base_dns_domain("example.com");
  types::Cluster cluster;
  grpc::ClientContext c1;
  inv::CreateInfraEnvRequest create_infra_env;
  create_infra_env.mutable_infra_env()->set_name("bench");
  types::InfraEnv infra_env;
  grpc::ClientContext c2;
  if (!setup->CreateCluster(with_identity(c1), create_cluster, &cluster).ok() ||
      !setup->CreateInfraEnv(with_identity(c2), create_infra_env, &infra_env).ok()) {
    std::cerr << "gateway: cannot create the cluster and infra-env\n";
    return 1;
  }
  for (int i = 0; i < options.hosts; ++i) {
    inv::CreateHostRequest request;
    types::Host& host = *request.mutable_host();
    host.set_id(absl::StrFormat("00000000-0000-4000-8000-%012x", i + 1));
    host.set_infra_env_id(infra_env.id());
    host.set_cluster_id(cluster.id());
    host.set_status(types::HOST_STATUS_KNOWN);
    host.set_requested_hostname(absl::StrCat("host-", i));
    host.mutable_owner()->set_user_name("alice");
    host.mutable_owner()->set_org_id("acme");
    types::Host created;
    grpc::ClientContext context;
    if (!setup->CreateHost(with_identity(context), request, &created).ok()) {
      std::cerr << "gateway: cannot create hosts\n";
      return 1;
    }
  }

  auto grpc_caller = [&](auto call) {
    return [&, call](int) -> std::function<std::string()> {
      auto channel = assisted::grpcutil::MakeChannel(target, {.dedicated_connection = true});
      std::shared_ptr<inv::InventoryService::Stub> stub = inv::InventoryService::NewStub(*channel);
      return [stub, call, &with_identity]() -> std::string {
        grpc::ClientContext context;
        const grpc::Status status = call(*stub, with_identity(context));
        if (status.ok()) return "";
        return absl::StrCat(status.error_code(), " ", status.error_message());
      };
    };
  };
  const std::string prefix = "/api/assisted-install/v2";
  std::cout << absl::StrFormat("%d connections, %s per phase, %d hosts, %d cores\n",
                               options.connections, absl::FormatDuration(options.duration),
                               options.hosts, std::thread::hardware_concurrency());

  // One phase: drives `make`'s callers with `with`'s connections and prints the figures.
  auto phase = [](const char* name, const Options& with,
                  const std::function<std::function<std::string()>(int)>& make, pid_t server = 0) {
    const Figures figures = Drive(with, make, server);
    std::cout << Show(name, figures) << std::flush;
    return figures;
  };
  // REST callers of `path` through the gateway listening on `port`.
  auto rest = [&](int port, std::string path) {
    return [&token, port, path = absl::StrCat(prefix, path)](int) {
      return RestCaller(port, path, token);
    };
  };
  const std::string cluster_path = absl::StrCat("/clusters/", cluster.id());
  const std::string hosts_path = absl::StrCat("/infra-envs/", infra_env.id(), "/hosts");
  auto get_cluster_grpc = grpc_caller([&](auto& stub, grpc::ClientContext* ctx) {
    inv::GetClusterRequest request;
    request.set_id(cluster.id());
    request.set_include_hosts(true);
    types::Cluster out;
    return stub.GetCluster(ctx, request, &out);
  });
  auto list_hosts_grpc = grpc_caller([&](auto& stub, grpc::ClientContext* ctx) {
    inv::ListHostsRequest request;
    request.set_page_size(1000);
    request.set_infra_env_id(infra_env.id());
    inv::ListHostsResponse out;
    return stub.ListHosts(ctx, request, &out);
  });

  // Unloaded first: one connection, one call at a time, so latency is the work of the call and
  // not queueing; the difference is what the gateway adds to the gRPC call it makes.
  Options unloaded = options;
  unloaded.connections = 1;
  const Figures alone_grpc = phase("get-cluster gRPC, 1 connection", unloaded, get_cluster_grpc);
  const Figures alone_uncached =
      phase("get-cluster REST uncached, 1 connection", unloaded, rest(uncached_port, cluster_path),
            (*uncached_gateway)->pid());
  const Figures alone_cached = phase("get-cluster REST cached, 1 connection", unloaded,
                                     rest(http_port, cluster_path), (*gateway)->pid());
  std::cout << absl::StrFormat(
                   "  on a cache miss the gateway adds p50 %.2f ms, p99 %.2f ms to the gRPC call "
                   "it makes\n",
                   alone_uncached.p50_ms - alone_grpc.p50_ms,
                   alone_uncached.p99_ms - alone_grpc.p99_ms)
            << std::flush;

  const Figures get_grpc = phase("get-cluster gRPC", options, get_cluster_grpc);
  const Figures get_rest = phase("get-cluster REST", options, rest(http_port, cluster_path));
  const Figures get_uncached =
      phase("get-cluster REST uncached", options, rest(uncached_port, cluster_path));
  const Figures list_grpc = phase("list-hosts gRPC", options, list_hosts_grpc);
  const Figures list_rest = phase("list-hosts REST", options, rest(http_port, hosts_path));
  const Figures list_uncached =
      phase("list-hosts REST uncached", options, rest(uncached_port, hosts_path));

  (*gateway)->Stop();
  (*uncached_gateway)->Stop();
  (*inventory)->Stop();
  std::cout << absl::StrFormat(
      "{\"bench\":\"gateway\",\"connections\":%d,\"hosts\":%d,"
      "\"get_cluster_grpc_per_s\":%.0f,\"get_cluster_grpc_p50_ms\":%.2f,"
      "\"get_cluster_grpc_p99_ms\":%.2f,\"get_cluster_rest_per_s\":%.0f,"
      "\"get_cluster_rest_p50_ms\":%.2f,\"get_cluster_rest_p99_ms\":%.2f,"
      "\"get_cluster_p99_overhead_ms\":%.2f,"
      "\"list_hosts_grpc_per_s\":%.0f,\"list_hosts_grpc_p50_ms\":%.2f,"
      "\"list_hosts_grpc_p99_ms\":%.2f,\"list_hosts_rest_per_s\":%.0f,"
      "\"list_hosts_rest_p50_ms\":%.2f,\"list_hosts_rest_p99_ms\":%.2f,"
      "\"list_hosts_p99_overhead_ms\":%.2f,\"get_cluster_uncached_per_s\":%.0f,"
      "\"get_cluster_uncached_p99_overhead_ms\":%.2f,\"list_hosts_uncached_per_s\":%.0f,"
      "\"list_hosts_uncached_p99_overhead_ms\":%.2f,\"unloaded_overhead_p50_ms\":%.2f,"
      "\"unloaded_overhead_p99_ms\":%.2f,\"unloaded_cached_p50_ms\":%.2f,"
      "\"unloaded_cached_p99_ms\":%.2f,\"unloaded_miss_gateway_cpu_us\":%.0f,"
      "\"unloaded_miss_gateway_switches\":%.2f,\"unloaded_cached_gateway_cpu_us\":%.0f,"
      "\"unloaded_cached_gateway_switches\":%.2f,\"errors\":%d,\"cores\":%d}\n",
      options.connections, options.hosts, get_grpc.per_second, get_grpc.p50_ms, get_grpc.p99_ms,
      get_rest.per_second, get_rest.p50_ms, get_rest.p99_ms, get_rest.p99_ms - get_grpc.p99_ms,
      list_grpc.per_second, list_grpc.p50_ms, list_grpc.p99_ms, list_rest.per_second,
      list_rest.p50_ms, list_rest.p99_ms, list_rest.p99_ms - list_grpc.p99_ms,
      get_uncached.per_second, get_uncached.p99_ms - get_grpc.p99_ms, list_uncached.per_second,
      list_uncached.p99_ms - list_grpc.p99_ms, alone_uncached.p50_ms - alone_grpc.p50_ms,
      alone_uncached.p99_ms - alone_grpc.p99_ms, alone_cached.p50_ms, alone_cached.p99_ms,
      alone_uncached.server_cpu_us_per_call, alone_uncached.server_switches_per_call,
      alone_cached.server_cpu_us_per_call, alone_cached.server_switches_per_call,
      get_grpc.errors + get_rest.errors + list_grpc.errors + list_rest.errors +
          get_uncached.errors + list_uncached.errors,
      std::thread::hardware_concurrency());
  return 0;
}
