// Bench of the installation files the orchestrator generates when a cluster starts installing
// (services/orchestrator/install), for a 3-master + 97-worker cluster whose infra-env has static
// networking for every host (NMState -> keyfiles per host):
//   1. the credentials: root CA, admin client certificate (RSA 2048 each), kubeconfig, password;
//   2. install-config.yaml;
//   3. the pointer and bootstrap configs, and one host-<id>.ign per host.
// Generation runs once per installation, so this is about latency, not throughput.
// Prints human lines; the last line is one JSON object:
// {"bench":"installgen","hosts":100,"credentials_ms_median":…,"install_config_us_median":…,
//  "host_ignition_us_median":…,"host_ignition_us_max":…,"all_files_ms":…,"cores":2}

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/pki/pki.h"
#include "lib/random/random.h"
#include "services/orchestrator/install/ignition_configs.h"
#include "services/orchestrator/install/install_config.h"

namespace install = assisted::orchestrator::install;
namespace pki = assisted::pki;
namespace v1 = assisted::types::v1;

namespace {

constexpr int kHosts = 100;
constexpr int kCredentialRuns = 7;
constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})";

using Clock = std::chrono::steady_clock;

double Micros(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::string Mac(int i) { return absl::StrFormat("52:54:00:00:%02x:%02x", i / 256, i % 256); }
std::string Ip(int i) { return absl::StrCat("10.0.", i / 250, ".", i % 250 + 1); }

v1::Cluster MakeCluster() {
  v1::Cluster cluster;
  cluster.set_id("8d5a9f52-3c1e-4a8b-9f3e-2b7c6d5e4f30");
  cluster.set_name("bench");
  cluster.set_base_dns_domain("example.com");
  cluster.set_control_plane_count(3);
  cluster.add_machine_networks()->set_cidr("10.0.0.0/16");
  v1::ClusterNetwork* pods = cluster.add_cluster_networks();
  pods->set_cidr("10.128.0.0/14");
  pods->set_host_prefix(23);
  cluster.add_service_networks()->set_cidr("172.30.0.0/16");
  cluster.add_api_vips()->set_ip("10.0.255.5");
  cluster.add_ingress_vips()->set_ip("10.0.255.6");
  cluster.set_ssh_public_key("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIbench bench@example");
  for (int i = 0; i < kHosts; ++i) {
    v1::Host& host = *cluster.add_hosts();
    host.set_id(absl::StrFormat("00000000-0000-4000-8000-%012d", i));
    host.set_role(i < 3 ? v1::HOST_ROLE_MASTER : v1::HOST_ROLE_WORKER);
    host.set_bootstrap(i == 0);
    host.mutable_inventory()->set_hostname(absl::StrFormat("node-%03d", i));
    v1::Interface* nic = host.mutable_inventory()->add_interfaces();
    nic->set_name("ens3");
    nic->set_mac_address(Mac(i));
  }
  return cluster;
}

v1::InfraEnv MakeInfraEnv() {
  v1::InfraEnv infra_env;
  for (int i = 0; i < kHosts; ++i) {
    v1::HostStaticNetworkConfig& config = *infra_env.add_static_network_config();
    config.set_network_yaml(absl::StrCat(
        "interfaces:\n  - name: eth0\n    type: ethernet\n    state: up\n    ipv4:\n"
        "      enabled: true\n      dhcp: false\n      address:\n        - ip: ",
        Ip(i),
        "\n          prefix-length: 16\n"
        "dns-resolver:\n  config:\n    server:\n      - 10.0.0.1\n"
        "routes:\n  config:\n    - destination: 0.0.0.0/0\n      next-hop-address: 10.0.0.1\n"
        "      next-hop-interface: eth0\n"));
    v1::MacInterfaceMapEntry& entry = *config.add_mac_interface_map();
    entry.set_mac_address(Mac(i));
    entry.set_logical_nic_name("eth0");
  }
  return infra_env;
}

template <typename T>
T Check(absl::StatusOr<T> result, const char* what) {
  if (!result.ok()) {
    std::cerr << what << ": " << result.status() << "\n";
    std::exit(1);
  }
  return *std::move(result);
}

}  // namespace

int main() {
  const v1::Cluster cluster = MakeCluster();
  const v1::InfraEnv infra_env = MakeInfraEnv();
  assisted::SystemRandom random;

  std::vector<double> credentials_us;
  pki::ClusterCredentials creds;
  for (int run = 0; run < kCredentialRuns; ++run) {
    const Clock::time_point start = Clock::now();
    creds = Check(pki::GenerateCredentials(cluster, absl::Now(), random), "credentials");
    credentials_us.push_back(Micros(start));
  }

  std::vector<double> config_us;
  std::string install_config;
  for (int run = 0; run < 21; ++run) {
    install::InstallConfigInput input{.cluster = cluster, .pull_secret = kPullSecret};
    input.masters = 3;
    input.workers = kHosts - 3;
    const Clock::time_point start = Clock::now();
    install_config = Check(install::BuildInstallConfig(input), "install-config");
    config_us.push_back(Micros(start));
  }

  const Clock::time_point all = Clock::now();
  Check(pki::GenerateCredentials(cluster, absl::Now(), random), "credentials");
  Check(install::BuildInstallConfig({.cluster = cluster, .pull_secret = kPullSecret}),
        "install-config");
  for (const char* pool : {"master", "worker"}) {
    Check(install::PointerIgnition(cluster, pool, creds.root_ca.certificate_pem), "pointer");
  }
  Check(install::BootstrapIgnition(cluster, {.root_ca_pem = creds.root_ca.certificate_pem,
                                             .pull_secret = kPullSecret,
                                             .install_config = install_config,
                                             .kubeconfig = creds.kubeconfig}),
        "bootstrap");
  std::vector<double> host_us;
  size_t bytes = 0;
  for (const v1::Host& host : cluster.hosts()) {
    const Clock::time_point start = Clock::now();
    bytes += Check(install::HostIgnition(cluster, host, &infra_env, creds.root_ca.certificate_pem),
                   "host ignition")
                 .size();
    host_us.push_back(Micros(start));
  }
  const double all_ms = Micros(all) / 1000;

  std::cout << absl::StrFormat(
      "credentials (CA + admin cert, ECDSA P-256): median %.1f ms over %d\n",
      Median(credentials_us) / 1000, kCredentialRuns);
  std::cout << absl::StrFormat("install-config.yaml: median %.0f us\n", Median(config_us));
  std::cout << absl::StrFormat(
      "host-<id>.ign with static networking: median %.0f us, max %.0f us (%zu bytes for %d)\n",
      Median(host_us), *std::max_element(host_us.begin(), host_us.end()), bytes, kHosts);
  std::cout << absl::StrFormat("every file of a %d-host cluster: %.1f ms\n", kHosts, all_ms);
  std::cout << absl::StrFormat(
                   "{\"bench\":\"installgen\",\"hosts\":%d,\"credentials_ms_median\":%.1f,"
                   "\"install_config_us_median\":%.0f,\"host_ignition_us_median\":%.0f,"
                   "\"host_ignition_us_max\":%.0f,\"all_files_ms\":%.1f,\"cores\":%u}",
                   kHosts, Median(credentials_us) / 1000, Median(config_us), Median(host_us),
                   *std::max_element(host_us.begin(), host_us.end()), all_ms,
                   std::thread::hardware_concurrency())
            << std::endl;
  return 0;
}
