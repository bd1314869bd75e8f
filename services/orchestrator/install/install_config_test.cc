#include "services/orchestrator/install/install_config.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/orchestrator/core/testing_fixtures.h"
#include "yaml-cpp/yaml.h"

namespace assisted::orchestrator::install {
namespace {

using ::assisted::orchestrator::core::testing::HealthyCluster;
using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})";

YAML::Node Generate(const types::v1::Cluster& cluster, int masters = 3, int workers = 2) {
  InstallConfigInput input{.cluster = cluster, .pull_secret = kPullSecret};
  input.masters = masters;
  input.workers = workers;
  absl::StatusOr<std::string> yaml = BuildInstallConfig(input);
  EXPECT_THAT(yaml, IsOk());
  return yaml.ok() ? YAML::Load(*yaml) : YAML::Node();
}

TEST(InstallConfig, HighlyAvailableClusterOnBaremetal) {
  types::v1::Cluster cluster = HealthyCluster();
  cluster.set_ssh_public_key("ssh-ed25519 AAAA test@example\n");
  const YAML::Node doc = Generate(cluster);
  EXPECT_EQ(doc["apiVersion"].as<std::string>(), "v1");
  EXPECT_EQ(doc["baseDomain"].as<std::string>(), "example.com");
  EXPECT_EQ(doc["metadata"]["name"].as<std::string>(), "c");
  EXPECT_EQ(doc["controlPlane"]["name"].as<std::string>(), "master");
  EXPECT_EQ(doc["controlPlane"]["replicas"].as<int>(), 3);
  EXPECT_EQ(doc["compute"][0]["name"].as<std::string>(), "worker");
  EXPECT_EQ(doc["compute"][0]["replicas"].as<int>(), 2);
  const YAML::Node net = doc["networking"];
  EXPECT_EQ(net["networkType"].as<std::string>(), "OVNKubernetes");
  EXPECT_EQ(net["clusterNetwork"][0]["cidr"].as<std::string>(), "10.128.0.0/14");
  EXPECT_EQ(net["clusterNetwork"][0]["hostPrefix"].as<int>(), 23);
  EXPECT_EQ(net["machineNetwork"][0]["cidr"].as<std::string>(), "10.0.0.0/24");
  EXPECT_EQ(net["serviceNetwork"][0].as<std::string>(), "172.30.0.0/16");
  EXPECT_EQ(doc["platform"]["baremetal"]["apiVIPs"][0].as<std::string>(), "10.0.0.5");
  EXPECT_EQ(doc["platform"]["baremetal"]["ingressVIPs"][0].as<std::string>(), "10.0.0.6");
  EXPECT_EQ(doc["pullSecret"].as<std::string>(), kPullSecret);
  EXPECT_EQ(doc["sshKey"].as<std::string>(), "ssh-ed25519 AAAA test@example");
  EXPECT_FALSE(doc["proxy"]);
  EXPECT_FALSE(doc["imageContentSources"]);
  EXPECT_FALSE(doc["additionalTrustBundle"]);
}

TEST(InstallConfig, SingleNodeAndUserManagedNetworkingUsePlatformNone) {
  types::v1::Cluster sno = HealthyCluster();
  sno.set_control_plane_count(1);
  sno.set_high_availability_mode(types::v1::HIGH_AVAILABILITY_MODE_NONE);
  sno.clear_api_vips();
  sno.clear_ingress_vips();
  YAML::Node doc = Generate(sno, 1, 0);
  EXPECT_TRUE(doc["platform"]["none"].IsMap());
  EXPECT_FALSE(doc["platform"]["baremetal"]);
  EXPECT_EQ(doc["controlPlane"]["replicas"].as<int>(), 1);
  EXPECT_EQ(doc["compute"][0]["replicas"].as<int>(), 0);

  types::v1::Cluster umn = HealthyCluster();
  umn.set_user_managed_networking(true);
  doc = Generate(umn);
  EXPECT_TRUE(doc["platform"]["none"].IsMap());
}

TEST(InstallConfig, ProxyGetsAComputedNoProxy) {
  types::v1::Cluster cluster = HealthyCluster();
  cluster.mutable_proxy()->set_http_proxy("http://proxy.example.com:3128");
  cluster.mutable_proxy()->set_https_proxy("http://proxy.example.com:3128");
  cluster.mutable_proxy()->set_no_proxy(" internal.example.com,10.0.0.0/24");
  const YAML::Node doc = Generate(cluster);
  EXPECT_EQ(doc["proxy"]["httpProxy"].as<std::string>(), "http://proxy.example.com:3128");
  EXPECT_EQ(doc["proxy"]["noProxy"].as<std::string>(),
            "internal.example.com,10.0.0.0/24,10.128.0.0/14,172.30.0.0/16,.c.example.com");

  cluster.mutable_proxy()->set_no_proxy("*");
  EXPECT_EQ(ComputeNoProxy(cluster), "*");
}

TEST(InstallConfig, MirrorsAndTrustBundle) {
  types::v1::Cluster cluster = HealthyCluster();
  InstallConfigInput input{.cluster = cluster, .pull_secret = kPullSecret};
  input.additional_trust_bundle = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  input.mirrors = {{"quay.io/openshift-release-dev/ocp-release", {"mirror.local:5000/ocp"}}};
  absl::StatusOr<std::string> yaml = BuildInstallConfig(input);
  ASSERT_THAT(yaml, IsOk());
  const YAML::Node doc = YAML::Load(*yaml);
  EXPECT_EQ(doc["imageContentSources"][0]["source"].as<std::string>(),
            "quay.io/openshift-release-dev/ocp-release");
  EXPECT_EQ(doc["imageContentSources"][0]["mirrors"][0].as<std::string>(), "mirror.local:5000/ocp");
  EXPECT_EQ(doc["additionalTrustBundle"].as<std::string>(), input.additional_trust_bundle);
}

TEST(InstallConfig, OverridesMergeDeeply) {
  types::v1::Cluster cluster = HealthyCluster();
  cluster.set_install_config_overrides(
      R"({"networking":{"networkType":"OpenShiftSDN"},"fips":true,"capabilities":{"baselineCapabilitySet":"None"}})");
  const YAML::Node doc = Generate(cluster);
  EXPECT_EQ(doc["networking"]["networkType"].as<std::string>(), "OpenShiftSDN");
  EXPECT_EQ(doc["networking"]["serviceNetwork"][0].as<std::string>(), "172.30.0.0/16");
  EXPECT_TRUE(doc["fips"].as<bool>());
  EXPECT_EQ(doc["capabilities"]["baselineCapabilitySet"].as<std::string>(), "None");
}

TEST(InstallConfig, RefusesForbiddenOrBrokenOverrides) {
  types::v1::Cluster cluster = HealthyCluster();
  InstallConfigInput input{.cluster = cluster, .pull_secret = kPullSecret};
  cluster.set_install_config_overrides(R"({"pullSecret":"{}"})");
  EXPECT_THAT(
      BuildInstallConfig(input),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("install_config_overrides: \"pullSecret\" may not be overridden")));
  cluster.set_install_config_overrides(R"({"metadata":{"name":"other"}})");
  EXPECT_THAT(BuildInstallConfig(input),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"metadata\"")));
  cluster.set_install_config_overrides("{not json");
  EXPECT_THAT(BuildInstallConfig(input),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("install_config_overrides: not valid JSON")));
  cluster.set_install_config_overrides("[1]");
  EXPECT_THAT(BuildInstallConfig(input),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be a JSON object")));
  cluster.set_install_config_overrides(R"({"fips":true,"networkin":{}})");
  EXPECT_THAT(BuildInstallConfig(input),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("install_config_overrides: \"networkin\" is not an "
                                 "install-config key")));
}

TEST(InstallConfig, OverridesAreCheckedWithoutACluster) {
  EXPECT_THAT(CheckInstallConfigOverrides(""), IsOk());
  EXPECT_THAT(CheckInstallConfigOverrides(R"({"fips":true,"compute":[{"name":"worker"}]})"),
              IsOk());
  for (const char* bad : {"{", "null", "\"text\"", R"({"baseDomain":"x"})", R"({"Fips":true})"}) {
    EXPECT_THAT(CheckInstallConfigOverrides(bad),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("install_config_overrides")))
        << bad;
  }
}

TEST(InstallConfig, MissingInputsNameTheField) {
  types::v1::Cluster cluster = HealthyCluster();
  InstallConfigInput input{.cluster = cluster, .pull_secret = kPullSecret};
  cluster.clear_base_dns_domain();
  EXPECT_THAT(BuildInstallConfig(input),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cluster.base_dns_domain")));
  cluster = HealthyCluster();
  cluster.clear_api_vips();
  EXPECT_THAT(BuildInstallConfig(input),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cluster.api_vips")));
  cluster = HealthyCluster();
  input.pull_secret = "";
  EXPECT_THAT(BuildInstallConfig(input),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("pull_secret: required")));
  input.pull_secret = kPullSecret;
  input.mirrors = {{"quay.io/x", {}}};
  EXPECT_THAT(BuildInstallConfig(input),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("mirrors[0]")));
}

}  // namespace
}  // namespace assisted::orchestrator::install
