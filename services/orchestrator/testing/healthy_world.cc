// File: services/orchestrator/testing/healthy_world.cc

#include "services/orchestrator/testing/healthy_world.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "services/orchestrator/core/testing_fixtures.h"

namespace assisted::orchestrator::testing {

using core::testing::Ip;

std::string HostId(int i) { return absl::StrCat("00000000-0000-4000-8000-00000000000", i); }

void AddHealthyReports(int i, int n, types::v1::Host& host) {
  types::v1::ConnectivityReport& connectivity = *host.mutable_connectivity_report();
  for (int j = 1; j <= n; ++j) {
    if (j == i) continue;
    types::v1::ConnectivityRemoteHost& remote = *connectivity.add_remote_hosts();
    remote.set_host_id(HostId(j));
    types::v1::L2Connectivity& l2 = *remote.add_l2_connectivity();
    l2.set_remote_ip_address(Ip(j));
    l2.set_outgoing_nic("eth0");
    l2.set_successful(true);
    types::v1::L3Connectivity& l3 = *remote.add_l3_connectivity();
    l3.set_remote_ip_address(Ip(j));
    l3.set_successful(true);
    l3.set_average_rtt_ms(1.5);
    types::v1::MtuReport& mtu = *remote.add_mtu_report();
    mtu.set_remote_ip_address(Ip(j));
    mtu.set_outgoing_nic("eth0");
    mtu.set_mtu_successful(true);
  }
  host.mutable_api_vip_connectivity_report()->set_is_success(true);  // day-2 hosts check it
  types::v1::NtpSource& ntp = *host.mutable_ntp_sources_report()->add_ntp_sources();
  ntp.set_source_name("pool.ntp.org");
  ntp.set_source_state("synced");
  for (const auto& [name, address] :
       {std::pair{"api.c.example.com", "10.0.0.5"}, std::pair{"api-int.c.example.com", "10.0.0.5"},
        std::pair{"*.apps.c.example.com", "10.0.0.6"}, std::pair{"quay.io", "3.3.3.3"}}) {
    types::v1::DomainResolution& resolution =
        *host.mutable_domain_name_resolutions_report()->add_resolutions();
    resolution.set_domain_name(name);
    resolution.add_ipv4_addresses(address);
  }
}

void AddHealthyCluster(FakeInventory& inventory, absl::Time now, int hosts) {
  types::v1::Cluster cluster = core::testing::HealthyCluster();
  cluster.set_status(types::v1::CLUSTER_STATUS_INSUFFICIENT);
  inventory.AddCluster(cluster, R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})");
  types::v1::InfraEnv infra_env;
  infra_env.set_id(kInfraEnvId);
  infra_env.set_cluster_id(cluster.id());
  inventory.AddInfraEnv(infra_env, "signing-key");
  for (int i = 1; i <= hosts; ++i) {
    types::v1::Host host = core::testing::HealthyHost(i);
    host.set_id(HostId(i));
    host.set_infra_env_id(kInfraEnvId);
    host.set_cluster_id(cluster.id());
    host.set_role(types::v1::HOST_ROLE_AUTO_ASSIGN);
    host.set_status(types::v1::HOST_STATUS_DISCOVERING);
    *host.mutable_checked_in_at() = core::testing::Ts(now);
    *host.mutable_timestamp() = core::testing::Ts(now);
    AddHealthyReports(i, hosts, host);
    inventory.AddHost(host);
  }
}

}  // namespace assisted::orchestrator::testing
