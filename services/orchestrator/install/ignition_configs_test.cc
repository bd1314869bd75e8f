#include "services/orchestrator/install/ignition_configs.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/ignition/test_util.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/orchestrator/core/testing_fixtures.h"

namespace assisted::orchestrator::install {
namespace {

using ::assisted::orchestrator::core::testing::HealthyCluster;
using ::assisted::orchestrator::core::testing::HealthyHost;
using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kCa[] = "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n";

constexpr char kStaticYaml[] = R"(interfaces:
  - name: eth0
    type: ethernet
    state: up
    ipv4:
      enabled: true
      dhcp: false
      address:
        - ip: 10.0.0.11
          prefix-length: 24
dns-resolver:
  config:
    server:
      - 10.0.0.1
routes:
  config:
    - destination: 0.0.0.0/0
      next-hop-address: 10.0.0.1
      next-hop-interface: eth0
)";

nlohmann::json Parse(const absl::StatusOr<std::string>& config) {
  EXPECT_THAT(config, IsOk());
  return config.ok() ? nlohmann::json::parse(*config) : nlohmann::json();
}

// path -> decoded contents of every storage.files entry.
std::map<std::string, std::string> Files(const nlohmann::json& config) {
  std::map<std::string, std::string> files;
  if (!config.contains("storage")) return files;
  for (const nlohmann::json& file : config["storage"]["files"]) {
    absl::StatusOr<std::string> contents =
        ignition::DecodeDataUrl(file["contents"]["source"].get<std::string>());
    EXPECT_THAT(contents, IsOk());
    files[file["path"].get<std::string>()] = contents.value_or("");
  }
  return files;
}

TEST(IgnitionConfigs, PointerConfigsFetchFromTheMachineConfigServer) {
  for (const char* pool : {"master", "worker"}) {
    absl::StatusOr<std::string> config = PointerIgnition(HealthyCluster(), pool, kCa);
    const nlohmann::json json = Parse(config);
    EXPECT_EQ(json["ignition"]["version"], "3.2.0");
    EXPECT_EQ(json["ignition"]["config"]["merge"][0]["source"],
              std::string("https://api-int.c.example.com:22623/config/") + pool);
    EXPECT_EQ(ignition::DecodeDataUrl(
                  json["ignition"]["security"]["tls"]["certificateAuthorities"][0]["source"]
                      .get<std::string>())
                  .value_or(""),
              kCa);
    EXPECT_THAT(ignition::IgnitionValidate(*config, std::string(pool) + ".ign"), IsOk());
  }
}

// An imported cluster's (or one behind the user's load balancer) hosts fetch their configuration
// where the user said, the same place the API connectivity check probes.
TEST(IgnitionConfigs, PointerConfigsFetchFromTheUsersIgnitionEndpointWhenNamed) {
  types::v1::Cluster cluster = HealthyCluster();
  cluster.mutable_ignition_endpoint()->set_url("https://mcs.lb.example.com:22623/config/");
  const nlohmann::json json = Parse(PointerIgnition(cluster, "worker", kCa));
  EXPECT_EQ(json["ignition"]["config"]["merge"][0]["source"],
            "https://mcs.lb.example.com:22623/config/worker");
}

TEST(IgnitionConfigs, BootstrapCarriesWhatTheBootstrapInstallerNeeds) {
  types::v1::Cluster cluster = HealthyCluster();
  cluster.set_ssh_public_key("ssh-ed25519 AAAA test@example");
  absl::StatusOr<std::string> config =
      BootstrapIgnition(cluster, {.root_ca_pem = kCa,
                                  .pull_secret = R"({"auths":{}})",
                                  .install_config = "apiVersion: v1\n",
                                  .kubeconfig = "kind: Config\n"});
  const nlohmann::json json = Parse(config);
  const std::map<std::string, std::string> files = Files(json);
  EXPECT_EQ(files.at("/root/.docker/config.json"), R"({"auths":{}})");
  EXPECT_EQ(files.at("/opt/openshift/install-config.yaml"), "apiVersion: v1\n");
  EXPECT_EQ(files.at("/opt/openshift/auth/kubeconfig"), "kind: Config\n");
  EXPECT_EQ(files.at("/opt/openshift/tls/root-ca.crt"), kCa);
  EXPECT_EQ(json["passwd"]["users"][0]["sshAuthorizedKeys"][0], "ssh-ed25519 AAAA test@example");
  EXPECT_THAT(ignition::IgnitionValidate(*config, "bootstrap.ign"), IsOk());
}

TEST(IgnitionConfigs, HostConfigHasRolePointerAndHostname) {
  types::v1::Host worker = HealthyHost(4);
  worker.set_role(types::v1::HOST_ROLE_WORKER);
  worker.set_requested_hostname("worker-a");
  absl::StatusOr<std::string> config = HostIgnition(HealthyCluster(), worker, nullptr, kCa);
  const nlohmann::json json = Parse(config);
  EXPECT_EQ(json["ignition"]["config"]["merge"][0]["source"],
            "https://api-int.c.example.com:22623/config/worker");
  EXPECT_EQ(Files(json).at("/etc/hostname"), "worker-a\n");
  EXPECT_THAT(ignition::IgnitionValidate(*config, "host-worker.ign"), IsOk());
  EXPECT_EQ(HostIgnitionName("h4"), "host-h4.ign");
}

TEST(IgnitionConfigs, StaticNetworkingFollowsTheHostsMac) {
  types::v1::Host host = HealthyHost(1);  // eth0 52:54:00:00:00:01
  host.mutable_inventory()->mutable_interfaces(0)->set_name("ens3");
  types::v1::InfraEnv infra_env;
  types::v1::HostStaticNetworkConfig* other = infra_env.add_static_network_config();
  other->set_network_yaml(kStaticYaml);
  types::v1::MacInterfaceMapEntry* entry = other->add_mac_interface_map();
  entry->set_mac_address("52:54:00:00:00:09");
  entry->set_logical_nic_name("eth0");
  types::v1::HostStaticNetworkConfig* mine = infra_env.add_static_network_config();
  mine->set_network_yaml(kStaticYaml);
  entry = mine->add_mac_interface_map();
  entry->set_mac_address("52:54:00:00:00:01");
  entry->set_logical_nic_name("eth0");

  absl::StatusOr<std::string> config = HostIgnition(HealthyCluster(), host, &infra_env, kCa);
  const std::map<std::string, std::string> files = Files(Parse(config));
  ASSERT_TRUE(files.count("/etc/NetworkManager/system-connections/ens3.nmconnection"));
  EXPECT_THAT(files.at("/etc/NetworkManager/system-connections/ens3.nmconnection"),
              HasSubstr("interface-name=ens3"));
  EXPECT_THAT(ignition::IgnitionValidate(*config, "host-static.ign"), IsOk());

  // A host whose MACs are in no entry gets no keyfiles.
  types::v1::Host stranger = HealthyHost(5);
  const std::map<std::string, std::string> none =
      Files(Parse(HostIgnition(HealthyCluster(), stranger, &infra_env, kCa)));
  EXPECT_EQ(none.size(), 1u);  // /etc/hostname only
}

TEST(IgnitionConfigs, UserOverrideIsMergedAndChecked) {
  types::v1::Host host = HealthyHost(1);
  host.set_ignition_config_overrides(
      R"({"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/extra","contents":{"source":"data:,x"}}]}})");
  absl::StatusOr<std::string> config = HostIgnition(HealthyCluster(), host, nullptr, kCa);
  const nlohmann::json json = Parse(config);
  EXPECT_EQ(json["ignition"]["config"]["merge"].size(), 2u);
  EXPECT_THAT(ignition::IgnitionValidate(*config, "host-override.ign"), IsOk());

  host.set_ignition_config_overrides(R"({"storage":{}})");
  EXPECT_THAT(
      HostIgnition(HealthyCluster(), host, nullptr, kCa),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("host.ignition_config_overrides")));
}

TEST(IgnitionConfigs, HostWithoutRoleOrHostnameIsRefused) {
  types::v1::Host host = HealthyHost(1);
  host.set_role(types::v1::HOST_ROLE_AUTO_ASSIGN);
  EXPECT_THAT(HostIgnition(HealthyCluster(), host, nullptr, kCa),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("host.role")));
  host = HealthyHost(1);
  host.mutable_inventory()->clear_hostname();
  EXPECT_THAT(HostIgnition(HealthyCluster(), host, nullptr, kCa),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("hostname")));
}

}  // namespace
}  // namespace assisted::orchestrator::install
