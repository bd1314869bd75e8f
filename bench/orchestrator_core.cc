// Bench of the orchestrator core's two hot paths on one large cluster (--hosts, default 2,000):
//   1. the connectivity majority groups with random partial connectivity: every directed link
//      fails with probability 5 % (no large fully-linked group exists; the reference's exact
//      search explodes on this), and a realistic variant where 5 % of the hosts are flaky (half
//      of their links fail) and the others are fully linked;
//   2. all the core validations of one host, with the cluster facts (majority groups included)
//      computed once beforehand, as the monitor does.
// Prints human lines; the last line is one JSON object:
// {"bench":"orchestrator_core","hosts":2000,...,"majority_ms_median":…,"majority_ms_max":…,
//  "majority_cpu_ms_median":…,"flaky_majority_ms_median":…,"probe_floor_cpu_ms_median":…,
//  "majority_floor_cpu_ratio":…,"facts_ms_median":…,
//  "validate_host_us_median":…,"validate_host_us_p99":…,"cores":2}
// majority_cpu_ms_median is the same runs' thread CPU time: on a loaded machine it is the
// steadier figure (wall time includes waiting for a core). The floor is one pass reading every
// L2 probe's outcome and address: the input the groups must read, in the views' memory layout.
//
//   ./dev bench orchestrator_core [--hosts=2000]

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/config/config.h"
#include "lib/service/runner.h"
#include "services/orchestrator/core/cluster_facts.h"
#include "services/orchestrator/core/host_validations.h"
#include "services/orchestrator/core/majority.h"

namespace core = assisted::orchestrator::core;
namespace v1 = assisted::types::v1;

namespace {

constexpr double kLinkLoss = 0.05;
constexpr int kMajorityRuns = 21;
constexpr int kValidationRuns = 2001;

std::string Ip(int i) { return absl::StrCat("10.0.", i / 250, ".", i % 250 + 1); }

v1::Host MakeHost(int i) {
  v1::Host h;
  h.set_id(absl::StrFormat("host-%04d", i));
  h.set_cluster_id("c1");
  h.set_role(i < 3 ? v1::HOST_ROLE_MASTER : v1::HOST_ROLE_WORKER);
  h.set_status(v1::HOST_STATUS_KNOWN);
  h.mutable_checked_in_at()->set_seconds(1'700'000'000);
  h.mutable_timestamp()->set_seconds(1'700'000'000);
  h.set_installation_disk_id("wwn-sda");
  h.set_installation_disk_path("/dev/sda");
  v1::Inventory* inv = h.mutable_inventory();
  inv->set_hostname(absl::StrFormat("node-%04d", i));
  inv->mutable_cpu()->set_count(16);
  inv->mutable_memory()->set_physical_bytes(int64_t{64} << 30);
  for (const char* name : {"sda", "sdb"}) {
    v1::Disk* d = inv->add_disks();
    d->set_id(absl::StrCat("wwn-", name));
    d->set_name(name);
    d->set_path(absl::StrCat("/dev/", name));
    d->set_drive_type(v1::DRIVE_TYPE_SSD);
    d->set_size_bytes(int64_t{480} * 1'000'000'000);
    d->set_has_uuid(true);
    d->mutable_installation_eligibility()->set_eligible(true);
  }
  v1::Interface* nic = inv->add_interfaces();
  nic->set_name("eth0");
  nic->set_mac_address(absl::StrFormat("52:54:00:00:%02x:%02x", i / 256, i % 256));
  nic->add_ipv4_addresses(Ip(i) + "/16");
  v1::Route* route = inv->add_routes();
  route->set_destination("0.0.0.0");
  inv->set_tpm_version(v1::TPM_VERSION_2_0);
  return h;
}

constexpr int kFlakyEvery = 20;  // host 0, 20, 40, ...: 5 % of the hosts
constexpr double kFlakyLoss = 0.5;

// Host i's connectivity report toward every other host; a link is up with probability
// `up(i, j)`.
template <typename Up>
core::HostReports MakeReports(int i, int hosts, std::mt19937& rng, Up up_probability) {
  std::uniform_real_distribution<double> rtt(0.1, 3.0);
  core::ConnectivityReport c;
  c.remote_hosts.reserve(hosts - 1);
  for (int j = 0; j < hosts; ++j) {
    if (j == i) continue;
    core::RemoteHostConnectivity r;
    r.host_id = absl::StrFormat("host-%04d", j);
    bool ok = std::bernoulli_distribution(up_probability(i, j))(rng);
    r.l2.push_back({Ip(j), "eth0", ok});
    r.l3.push_back({Ip(j), ok, rtt(rng), 0});
    r.mtu.push_back({Ip(j), "eth0", true});
    c.remote_hosts.push_back(std::move(r));
  }
  core::HostReports reports;
  reports.connectivity = std::move(c);
  reports.ntp_sources = std::vector<core::NtpSource>{{"pool.ntp.org", "synced"}};
  reports.images = std::vector<core::ImageStatus>{{"quay.io/release", true, 50.0}};
  reports.disk_speeds = std::vector<core::DiskSpeed>{{"/dev/sda", true, 2, 0}};
  reports.domains = std::vector<core::DomainResolution>{{"quay.io", {"3.3.3.3"}, {}, {}}};
  return reports;
}

// The connectivity-group inputs of the hosts with their reports.
std::vector<core::ConnectivityHost> ConnectivityOf(const std::vector<v1::Host>& hosts,
                                                   const std::vector<core::HostReports>& reports) {
  std::vector<core::ConnectivityHost> out;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    out.push_back(
        {hosts[i].id(), core::Addresses(hosts[i].inventory()), &*reports[i].connectivity});
  }
  return out;
}

template <typename F>
double Millis(F f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

double ThreadCpuMillis() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// One scenario's majority-group runs: wall and thread-CPU milliseconds, and the group found.
struct MajorityTimes {
  std::vector<double> wall_ms;
  std::vector<double> cpu_ms;
  std::size_t group_size = 0;
};

// kMajorityRuns runs of `run` (which returns the size of what it found).
template <typename Run>
MajorityTimes TimeRuns(Run run) {
  MajorityTimes times;
  for (int i = 0; i < kMajorityRuns; ++i) {
    const double cpu_start = ThreadCpuMillis();
    times.wall_ms.push_back(Millis([&] { times.group_size = run(); }));
    times.cpu_ms.push_back(ThreadCpuMillis() - cpu_start);
  }
  return times;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  int host_count = 2000;
  assisted::config::Parser parser(
      "orchestrator_core", "The majority groups and the host validations of one large cluster.");
  parser.Int("hosts", &host_count, "hosts in the cluster").Range(3, 5000);
  if (std::optional<int> exit_code = assisted::service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }
  std::mt19937 rng(2024);
  v1::Cluster cluster;
  cluster.set_id("c1");
  cluster.set_name("bench");
  cluster.set_base_dns_domain("example.com");
  cluster.set_openshift_version("4.16.3");
  cluster.set_ocp_release_image("quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64");
  cluster.set_control_plane_count(3);
  cluster.add_machine_networks()->set_cidr("10.0.0.0/16");

  std::vector<v1::Host> hosts;
  std::vector<core::HostReports> reports;
  for (int i = 0; i < host_count; ++i) {
    hosts.push_back(MakeHost(i));
    reports.push_back(MakeReports(i, host_count, rng, [](int, int) { return 1 - kLinkLoss; }));
  }
  std::vector<core::HostView> views;
  for (int i = 0; i < host_count; ++i) views.push_back({&hosts[i], &reports[i]});
  const std::vector<assisted::net::Cidr> networks = {*assisted::net::Cidr::Parse("10.0.0.0/16")};

  // Times the majority groups of one connectivity scenario.
  auto time_majority = [&](const std::vector<core::HostReports>& r) {
    const std::vector<core::ConnectivityHost> connectivity = ConnectivityOf(hosts, r);
    return TimeRuns([&] {
      return core::ComputeL2Groups(connectivity, networks).groups.begin()->second.hosts.size();
    });
  };
  const MajorityTimes random = time_majority(reports);
  // The floor: every L2 probe's outcome and address read once, the input the groups cannot
  // skip (n^2 probes in the views' layout: a heap block per peer).
  const MajorityTimes floor = TimeRuns([&] {
    std::size_t reached = 0;
    for (const core::HostReports& r : reports) {
      for (const core::RemoteHostConnectivity& remote : r.connectivity->remote_hosts) {
        for (const core::L2Probe& probe : remote.l2) {
          reached += probe.successful ? probe.remote_ip.size() : 0;
        }
      }
    }
    return reached;
  });
  MajorityTimes flaky;
  {
    // Built only now and dropped after: at 2,000 hosts each scenario holds 4 million probes.
    std::vector<core::HostReports> flaky_reports;
    for (int i = 0; i < host_count; ++i) {
      flaky_reports.push_back(MakeReports(i, host_count, rng, [](int a, int b) {
        return a % kFlakyEvery == 0 || b % kFlakyEvery == 0 ? 1 - kFlakyLoss : 1.0;
      }));
    }
    flaky = time_majority(flaky_reports);
  }
  std::cout << absl::StrFormat(
      "majority group, %.0f %% of directed links down at random: %zu of %d hosts, median %.2f "
      "ms (CPU %.2f ms), max %.2f ms over %d runs\n",
      kLinkLoss * 100, random.group_size, host_count, Percentile(random.wall_ms, 0.5),
      Percentile(random.cpu_ms, 0.5), Percentile(random.wall_ms, 1.0), kMajorityRuns);
  std::cout << absl::StrFormat(
      "majority group, every %dth host flaky (%.0f %% of its links down): %zu of %d hosts, "
      "median %.2f ms (CPU %.2f ms), max %.2f ms\n",
      kFlakyEvery, kFlakyLoss * 100, flaky.group_size, host_count, Percentile(flaky.wall_ms, 0.5),
      Percentile(flaky.cpu_ms, 0.5), Percentile(flaky.wall_ms, 1.0));
  std::cout << absl::StrFormat(
      "floor, every L2 probe read once: median %.2f ms (CPU %.2f ms); majority / floor (CPU) "
      "%.2f\n",
      Percentile(floor.wall_ms, 0.5), Percentile(floor.cpu_ms, 0.5),
      Percentile(random.cpu_ms, 0.5) / Percentile(floor.cpu_ms, 0.5));

  const core::ValidationSettings settings;
  std::vector<double> facts_ms;
  absl::StatusOr<core::ClusterFacts> facts;
  for (int run = 0; run < kMajorityRuns; ++run) {
    facts_ms.push_back(Millis([&] {
      facts = core::BuildClusterFacts(&cluster, views, core::DefaultHwRequirements(), settings);
    }));
  }
  if (!facts.ok()) {
    std::cerr << facts.status() << "\n";
    return 1;
  }
  std::cout << absl::StrFormat("cluster facts (majority groups included): median %.2f ms\n",
                               Percentile(facts_ms, 0.5));

  const core::HostTimeouts timeouts;
  const absl::Time now = absl::FromUnixSeconds(1'700'000'030);
  std::vector<double> validate_us;
  int failed = 0;
  for (int run = 0; run < kValidationRuns; ++run) {
    const int k = run % host_count;
    core::HostValidationContext ctx{hosts[k], reports[k], *facts, now, timeouts};
    core::ValidationResults results;
    validate_us.push_back(1000.0 * Millis([&] { results = core::ValidateHost(ctx); }));
    failed += results.outcomes().size() != core::CoreHostChecks().size();
  }
  if (failed > 0) {
    std::cerr << "unexpected number of validation results\n";
    return 1;
  }
  std::cout << absl::StrFormat(
      "all %zu validations of one host: median %.1f us, p99 %.1f us over %d runs\n",
      core::CoreHostChecks().size(), Percentile(validate_us, 0.5), Percentile(validate_us, 0.99),
      kValidationRuns);

  std::cout << absl::StrFormat(
      "{\"bench\":\"orchestrator_core\",\"hosts\":%d,\"link_loss\":%.2f,\"majority_group\":%zu,"
      "\"majority_ms_median\":%.2f,\"majority_ms_max\":%.2f,\"majority_cpu_ms_median\":%.2f,"
      "\"flaky_majority_group\":%zu,\"flaky_majority_ms_median\":%.2f,"
      "\"flaky_majority_cpu_ms_median\":%.2f,\"probe_floor_ms_median\":%.2f,"
      "\"probe_floor_cpu_ms_median\":%.2f,\"majority_floor_cpu_ratio\":%.2f,"
      "\"facts_ms_median\":%.2f,"
      "\"validate_host_us_median\":%.1f,\"validate_host_us_p99\":%.1f,\"cores\":%u}\n",
      host_count, kLinkLoss, random.group_size, Percentile(random.wall_ms, 0.5),
      Percentile(random.wall_ms, 1.0), Percentile(random.cpu_ms, 0.5), flaky.group_size,
      Percentile(flaky.wall_ms, 0.5), Percentile(flaky.cpu_ms, 0.5), Percentile(floor.wall_ms, 0.5),
      Percentile(floor.cpu_ms, 0.5), Percentile(random.cpu_ms, 0.5) / Percentile(floor.cpu_ms, 0.5),
      Percentile(facts_ms, 0.5), Percentile(validate_us, 0.5), Percentile(validate_us, 0.99),
      std::thread::hardware_concurrency());
  return 0;
}
