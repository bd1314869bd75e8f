// bench/install: many clusters installed at once by simulated hosts. Starts a throwaway
// PostgreSQL, the real assisted-inventory and assisted-orchestrator, registers N clusters of
// 3 masters + 2 workers (each host a simulated agent of services/agent/fleet.h in this process,
// with its own gRPC connection and disk image file), waits until every cluster is ready, asks
// them all to install at the same moment and follows the change feed until each is installed or
// failed. Every 5 s it prints how many clusters are in each status; at the end the wall time
// of each phase, the services' CPU seconds, peak memory and the database's writes, with the
// machine's load average (a loaded machine stretches the wall times). The hosts' disk images
// (sparse; each holds the 1 MiB OS image after its install; in a folder of the run's own under
// /tmp) are removed at the end.
//
//   ./dev bench install [--clusters=100] [--stage-delay=0s] [--timeout=0s]
// Last line: {"bench":"install","clusters":100,"hosts":500,"failures":0,"install_wall_s":…,
//             "discovery_wall_s":…,"service_cpu_s":…,"db_commits":…,"db_row_writes":…,
//             "agents_start_s":…,"install_calls_s":…,"orchestrator_peak_rss_mib":…,
//             "inventory_peak_rss_mib":…,"bench_peak_rss_mib":…,"load_avg_start":…,
//             "load_avg_mean":…,"cores":2}

#include <stdlib.h>
#include <sys/resource.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "assisted/orchestrator/v1/orchestrator_service.grpc.pb.h"
#include "bench/run_folder.h"
#include "bench/service_stack.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "lib/config/config.h"
#include "lib/log/log.h"
#include "lib/service/runner.h"
#include "services/agent/fleet.h"
#include "services/agent/simulation/profile_paths.h"
#include "services/agent/steps/install.h"
#include "tests/harness/service_launcher.h"

namespace {

namespace inv = ::assisted::inventory::v1;
namespace orch = ::assisted::orchestrator::v1;
namespace types = ::assisted::types::v1;
using ::assisted::agent::Fleet;
using ::assisted::testing::LaunchedService;

constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"eDp5"}}})";
constexpr int kMasters = 3;
constexpr int kWorkers = 2;

struct Options {
  int clusters = 100;
  absl::Duration stage_delay = absl::ZeroDuration();
  absl::Duration timeout = absl::ZeroDuration();  // 0: ScaledTimeout
};

// The default time limit: 10 minutes plus 6 s per cluster. 200 clusters took 10 minutes in
// all at load 35 on 2 cores, about 3 s per cluster; a fixed limit (it was 30 minutes) failed
// 1,000 clusters for being slow, not for being wrong.
absl::Duration ScaledTimeout(int clusters) {
  return absl::Minutes(10) + clusters * absl::Seconds(6);
}

// The machine's 1-minute load average (/proc/loadavg), or -1.
double LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  in >> load;
  return load;
}

// "ready 180, installing 20": how many clusters are in each status, in the enum's order.
std::string StatusCounts(const std::map<std::string, types::ClusterStatus>& statuses) {
  std::map<types::ClusterStatus, int> counts;
  for (const auto& [id, status] : statuses) ++counts[status];
  std::vector<std::string> parts;
  for (const auto& [status, n] : counts) {
    const std::string name = absl::AsciiStrToLower(types::ClusterStatus_Name(status));
    parts.push_back(absl::StrCat(absl::StripPrefix(name, "cluster_status_"), " ", n));
  }
  return absl::StrJoin(parts, ", ");
}

// Samples of the load average taken while the bench runs.
struct LoadSamples {
  double sum = 0;
  int count = 0;
  void Take() {
    const double load = LoadAverage();
    if (load < 0) return;
    sum += load;
    ++count;
  }
  double Mean() const { return count == 0 ? -1 : sum / count; }
};

// The cluster spec the simulation profiles answer for ("demo" on 192.168.122.0/24).
types::Cluster ClusterSpec() {
  types::Cluster spec;
  spec.set_name("demo");
  spec.set_openshift_version("4.16");
  spec.set_base_dns_domain("example.com");
  spec.set_control_plane_count(kMasters);
  spec.add_machine_networks()->set_cidr("192.168.122.0/24");
  spec.add_api_vips()->set_ip("192.168.122.5");
  spec.add_ingress_vips()->set_ip("192.168.122.6");
  types::ClusterNetwork& pods = *spec.add_cluster_networks();
  pods.set_cidr("10.128.0.0/14");
  pods.set_host_prefix(23);
  spec.add_service_networks()->set_cidr("172.30.0.0/16");
  return spec;
}

// Follows every cluster's status on the change feed until `done(statuses)` or the deadline,
// printing the counts per status at most every 5 s (while statuses change), as "<phase> <t> s:".
bool WatchClusters(inv::InventoryService::Stub& stub,
                   std::map<std::string, types::ClusterStatus>& statuses,
                   const std::function<bool()>& done, absl::Time deadline, int64_t* seq,
                   const std::string& phase, absl::Time phase_start, LoadSamples& load) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  inv::WatchRequest request;
  request.set_from_seq(*seq);
  request.mutable_filter()->add_kinds(inv::RESOURCE_KIND_CLUSTER);
  auto reader = stub.Watch(&context, request);
  inv::WatchEvent event;
  absl::Time printed = absl::Now();
  while (reader->Read(&event)) {
    if (event.seq() > 0) *seq = event.seq();
    if (absl::Now() - printed >= absl::Seconds(5)) {
      printed = absl::Now();
      load.Take();
      std::cout << absl::StrFormat("%s %.0f s: %s (load %.1f)\n", phase,
                                   absl::ToDoubleSeconds(printed - phase_start),
                                   StatusCounts(statuses), LoadAverage())
                << std::flush;
    }
    if (event.status_case() != inv::WatchEvent::kClusterStatus) continue;
    if (statuses.count(event.id())) statuses[event.id()] = event.cluster_status();
    if (done()) {
      context.TryCancel();
      return true;
    }
  }
  return done();
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  assisted::config::Parser parser(
      "install", "N clusters of 3 masters + 2 workers installed at once by simulated hosts.");
  parser.Int("clusters", &options.clusters, "clusters installed at once").Range(1, 1000);
  parser.Duration("stage-delay", &options.stage_delay, "simulated pause between install stages")
      .Range(absl::ZeroDuration(), absl::Minutes(1));
  parser
      .Duration("timeout", &options.timeout,
                "give up after this long; 0: 10 minutes plus 6 s per cluster")
      .Range(absl::ZeroDuration(), absl::Hours(8));
  if (std::optional<int> exit_code = assisted::service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }
  if (options.timeout == absl::ZeroDuration()) options.timeout = ScaledTimeout(options.clusters);
  LoadSamples load;
  const double load_start = LoadAverage();
  load.Take();  // a run shorter than the 5 s between progress lines still has its mean
  // Every simulated host holds a TCP connection (two ends in this machine's table).
  rlimit files{65536, 65536};
  setrlimit(RLIMIT_NOFILE, &files);

  absl::StatusOr<assisted::bench::RunFolder> folder =
      assisted::bench::RunFolder::Create("install-bench");
  if (!folder.ok()) {
    std::cerr << "install: " << folder.status().message() << "\n";
    return 1;
  }
  const std::string& dir = folder->path();
  std::string os_image(1 << 20, '\0');
  std::mt19937_64 noise(7);
  for (char& byte : os_image) byte = static_cast<char>(noise());
  std::ofstream(dir + "/os-image.raw", std::ios::binary) << os_image;

  std::cout << "starting PostgreSQL, assisted-inventory and assisted-orchestrator\n" << std::flush;
  auto stack = assisted::bench::ServiceStack::Start(
      {.orchestrator_args = {"--os-image-url=file://" + dir + "/os-image.raw",
                             "--os-image-sha256=" + assisted::agent::steps::Sha256Hex(os_image),
                             "--monitor-interval=1s",
                             // Every simulated host connects from this one address.
                             "--max-unregistered-agent-streams-per-peer=100000"}});
  if (!stack.ok()) {
    std::cerr << "install: " << stack.status() << "\n";
    return 1;
  }
  LaunchedService& orchestrator = (*stack)->orchestrator();
  auto stub = inv::InventoryService::NewStub(
      grpc::CreateChannel((*stack)->inventory().grpc_target(), grpc::InsecureChannelCredentials()));
  auto orchestrator_stub = orch::OrchestratorService::NewStub(
      grpc::CreateChannel(orchestrator.internal_grpc_target(), grpc::InsecureChannelCredentials()));

  // Clusters, infra-envs and their simulated hosts.
  const absl::Time discovery_start = absl::Now();
  std::map<std::string, types::ClusterStatus> statuses;
  std::vector<std::string> cluster_ids;
  std::vector<std::unique_ptr<Fleet>> fleets;
  for (int c = 0; c < options.clusters; ++c) {
    inv::CreateClusterRequest create;
    *create.mutable_cluster() = ClusterSpec();
    create.set_pull_secret(kPullSecret);
    types::Cluster cluster;
    grpc::ClientContext context;
    grpc::Status status = stub->CreateCluster(&context, create, &cluster);
    inv::CreateInfraEnvRequest create_infra_env;
    create_infra_env.mutable_infra_env()->set_name(absl::StrCat("bench-", c));
    create_infra_env.mutable_infra_env()->set_cluster_id(cluster.id());
    types::InfraEnv infra_env;
    grpc::ClientContext infra_env_context;
    if (status.ok()) {
      status = stub->CreateInfraEnv(&infra_env_context, create_infra_env, &infra_env);
    }
    if (!status.ok()) {
      std::cerr << "install: cannot register cluster " << c << ": " << status.error_message()
                << "\n";
      return 1;
    }
    cluster_ids.push_back(cluster.id());
    statuses[cluster.id()] = cluster.status();
    for (auto [profile, count] : {std::pair{"master", kMasters}, std::pair{"worker", kWorkers}}) {
      Fleet::Options fleet;
      fleet.profile = assisted::agent::simulation::testing::ProfilePath(profile);
      fleet.count = count;
      fleet.seed = absl::StrCat("bench-", c);
      fleet.orchestrator_address = orchestrator.grpc_target();
      fleet.infra_env_id = infra_env.id();
      fleet.agent_token = "bench-token";
      fleet.state_dir = absl::StrCat(dir, "/c", c);
      fleet.step_threads = 1;
      fleet.stage_delay = options.stage_delay;
      auto started = Fleet::Start(fleet, nullptr, assisted::log::Logger::Discard());
      if (!started.ok()) {
        std::cerr << "install: " << started.status() << "\n";
        return 1;
      }
      fleets.push_back(*std::move(started));
    }
  }
  const int hosts = options.clusters * (kMasters + kWorkers);
  const double agents_start = absl::ToDoubleSeconds(absl::Now() - discovery_start);
  std::cout << absl::StrFormat("%d clusters, %d simulated hosts started in %.1f s\n",
                               options.clusters, hosts, agents_start)
            << std::flush;

  const absl::Time deadline = absl::Now() + options.timeout;
  int64_t seq = 1;
  auto count = [&](std::initializer_list<types::ClusterStatus> wanted) {
    int n = 0;
    for (const auto& [id, status] : statuses) {
      for (types::ClusterStatus w : wanted) n += status == w;
    }
    return n;
  };
  const bool ready = WatchClusters(
      *stub, statuses, [&] { return count({types::CLUSTER_STATUS_READY}) == options.clusters; },
      deadline, &seq, "discovery", discovery_start, load);
  const double discovery_wall = absl::ToDoubleSeconds(absl::Now() - discovery_start);
  std::cout << absl::StrFormat("%d of %d clusters ready after %.1f s\n",
                               count({types::CLUSTER_STATUS_READY}), options.clusters,
                               discovery_wall)
            << std::flush;
  if (!ready) {
    std::cerr << "install: not every cluster became ready: " << StatusCounts(statuses) << "\n";
    return 1;
  }

  // All install at once.
  const double cpu_before = (*stack)->ServiceCpuSeconds();
  const assisted::bench::DbWrites writes_before = (*stack)->DbWritesNow();
  const absl::Time install_start = absl::Now();
  std::vector<std::thread> callers;
  std::atomic<int> refused{0};
  for (int t = 0; t < 8; ++t) {
    callers.emplace_back([&, t] {
      for (size_t c = t; c < cluster_ids.size(); c += 8) {
        orch::InstallClusterRequest request;
        request.set_cluster_id(cluster_ids[c]);
        types::Cluster cluster;
        grpc::ClientContext context;
        const grpc::Status status = orchestrator_stub->InstallCluster(&context, request, &cluster);
        if (!status.ok()) {
          std::cerr << "install: cluster " << cluster_ids[c] << ": " << status.error_message()
                    << "\n";
          ++refused;
        }
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  const double install_calls = absl::ToDoubleSeconds(absl::Now() - install_start);
  std::cout << absl::StrFormat("%d install calls answered in %.1f s (%d refused)\n",
                               options.clusters, install_calls, refused.load())
            << std::flush;
  WatchClusters(
      *stub, statuses,
      [&] {
        return count({types::CLUSTER_STATUS_INSTALLED, types::CLUSTER_STATUS_ERROR,
                      types::CLUSTER_STATUS_CANCELLED}) +
                   refused ==
               options.clusters;
      },
      deadline, &seq, "install", install_start, load);
  const double install_wall = absl::ToDoubleSeconds(absl::Now() - install_start);
  const double service_cpu = (*stack)->ServiceCpuSeconds() - cpu_before;
  const assisted::bench::DbWrites writes_after = (*stack)->DbWritesNow();
  const int installed = count({types::CLUSTER_STATUS_INSTALLED});
  const int failures = options.clusters - installed;
  std::cout << absl::StrFormat(
                   "%d of %d clusters installed in %.1f s (%d failed); services used %.1f CPU-s; "
                   "database: %d commits, %d rows written\n",
                   installed, options.clusters, install_wall, failures, service_cpu,
                   writes_after.commits - writes_before.commits,
                   writes_after.rows - writes_before.rows)
            << std::flush;
  if (failures > 0) std::cout << "clusters by status: " << StatusCounts(statuses) << "\n";
  const std::map<std::string, double> peak_rss = (*stack)->PeakRssMibByService();
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  const double bench_peak_rss = static_cast<double>(self.ru_maxrss) / 1024;  // KiB on Linux
  std::cout << absl::StrFormat(
                   "peak RSS: orchestrator %.0f MiB, inventory %.0f MiB, this process (the "
                   "simulated hosts) %.0f MiB; load average %.1f at the start, %.1f on average\n",
                   peak_rss.at("orchestrator"), peak_rss.at("inventory"), bench_peak_rss,
                   load_start, load.Mean())
            << std::flush;
  for (auto& fleet : fleets) fleet->Stop();
  std::cout << absl::StrFormat(
      "{\"bench\":\"install\",\"clusters\":%d,\"hosts\":%d,\"failures\":%d,"
      "\"discovery_wall_s\":%.1f,\"install_wall_s\":%.1f,\"service_cpu_s\":%.1f,"
      "\"db_commits\":%d,\"db_row_writes\":%d,\"agents_start_s\":%.1f,"
      "\"install_calls_s\":%.1f,\"orchestrator_peak_rss_mib\":%.0f,"
      "\"inventory_peak_rss_mib\":%.0f,\"bench_peak_rss_mib\":%.0f,\"load_avg_start\":%.1f,"
      "\"load_avg_mean\":%.1f,\"cores\":%d}\n",
      options.clusters, hosts, failures, discovery_wall, install_wall, service_cpu,
      writes_after.commits - writes_before.commits, writes_after.rows - writes_before.rows,
      agents_start, install_calls, peak_rss.at("orchestrator"), peak_rss.at("inventory"),
      bench_peak_rss, load_start, load.Mean(), std::thread::hardware_concurrency());
  return failures == 0 ? 0 : 1;
}
