// File: services/orchestrator/testing/healthy_world.cc

#include "services/orchestrator/testing/healthy_world.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "services/orchestrator/core/testing_fixtures.h"

namespace assisted::orchestrator::testing {

using core::testing::Ip;

std::string HostId(int i) { return absl::StrCat("00000000-0000-4000-8000-00000000000", i); }

void AddHealthyReports(int i, int n, types::v1::Host& host) {
  nlohmann::json remotes = nlohmann::json::array();
  for (int j = 1; j <= n; ++j) {
    if (j == i) continue;
    remotes.push_back(
        {{"host_id", HostId(j)},
         {"l2_connectivity",
          {{{"remote_ip_address", Ip(j)}, {"outgoing_nic", "eth0"}, {"successful", true}}}},
         {"l3_connectivity",
          {{{"remote_ip_address", Ip(j)},
            {"successful", true},
            {"average_rtt_ms", 1.5},
            {"packet_loss_percentage", 0}}}},
         {"mtu_report",
          {{{"remote_ip_address", Ip(j)}, {"outgoing_nic", "eth0"}, {"mtu_successful", true}}}}});
  }
  host.set_connectivity(nlohmann::json({{"remote_hosts", remotes}}).dump());
  host.set_api_vip_connectivity(R"({"is_success":true})");  // day-2 hosts check it
  host.set_ntp_sources(R"([{"source_name":"pool.ntp.org","source_state":"synced"}])");
  host.set_domain_name_resolutions(
      R"({"resolutions":[{"domain_name":"api.c.example.com","ipv4_addresses":["10.0.0.5"]},)"
      R"({"domain_name":"api-int.c.example.com","ipv4_addresses":["10.0.0.5"]},)"
      R"({"domain_name":"*.apps.c.example.com","ipv4_addresses":["10.0.0.6"]},)"
      R"({"domain_name":"quay.io","ipv4_addresses":["3.3.3.3"]}]})");
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
