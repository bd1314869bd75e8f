// ParseZtpClusterDefinition: the cluster definition from ZTP manifests (cluster-manifests/),
// against the fixture testdata/ztp_compact_*.yaml and the two-file definitions it mirrors.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/testing/status_matchers.h"
#include "services/gateway/cli/agent/cluster_definition.h"
#include "services/gateway/cli/agent/ztp_manifests.h"

namespace assisted::cli::agent {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

std::string Testdata(const std::string& name) {
  absl::StatusOr<std::string> text =
      ReadFile(absl::StrCat("services/gateway/cli/agent/testdata/", name), "testdata");
  EXPECT_THAT(text, IsOk());
  return text.value_or("");
}

// The fixture's cluster-manifests/ folder: file name -> text.
std::map<std::string, std::string> CompactManifests() {
  std::map<std::string, std::string> manifests;
  for (const char* name : {kAgentClusterInstallFile, kClusterDeploymentFile, kInfraEnvFile,
                           kNmStateConfigFile, kPullSecretFile}) {
    manifests[name] = Testdata(absl::StrCat("ztp_compact_", name));
  }
  return manifests;
}

std::vector<std::string> Cidrs(const std::vector<net::Cidr>& networks) {
  std::vector<std::string> texts;
  for (const net::Cidr& network : networks) texts.push_back(network.ToString());
  return texts;
}

// The cluster-wide fields both inputs carry are equal.
void ExpectSameCluster(const ClusterDefinition& ztp, const ClusterDefinition& files) {
  EXPECT_EQ(ztp.install.cluster_name, files.install.cluster_name);
  EXPECT_EQ(ztp.install.base_domain, files.install.base_domain);
  EXPECT_EQ(ztp.install.control_plane_replicas, files.install.control_plane_replicas);
  EXPECT_EQ(ztp.install.compute_replicas, files.install.compute_replicas);
  EXPECT_EQ(ztp.install.platform, files.install.platform);
  EXPECT_EQ(ztp.install.network_type, files.install.network_type);
  EXPECT_EQ(Cidrs(ztp.install.machine_networks), Cidrs(files.install.machine_networks));
  EXPECT_EQ(Cidrs(ztp.install.service_networks), Cidrs(files.install.service_networks));
  ASSERT_EQ(ztp.install.cluster_networks.size(), files.install.cluster_networks.size());
  ASSERT_EQ(ztp.install.api_vips.size(), files.install.api_vips.size());
  for (size_t i = 0; i < ztp.install.api_vips.size(); ++i) {
    EXPECT_EQ(ztp.install.api_vips[i].ip, files.install.api_vips[i].ip);
  }
  ASSERT_EQ(ztp.install.ingress_vips.size(), files.install.ingress_vips.size());
  EXPECT_EQ(ztp.install.pull_secret, files.install.pull_secret);
  EXPECT_EQ(ztp.install.ssh_key, files.install.ssh_key);
  EXPECT_EQ(ztp.expected_hosts(), files.expected_hosts());
}

TEST(ZtpClusterDefinition, ReadsTheCompactFixtureAsTheClusterOfItsTwoFiles) {
  absl::StatusOr<ClusterDefinition> ztp = ParseZtpClusterDefinition(CompactManifests(), {});
  ASSERT_THAT(ztp, IsOk());
  absl::StatusOr<ClusterDefinition> files = ParseClusterDefinition(
      Testdata("compact_install-config.yaml"), Testdata("compact_agent-config.yaml"));
  ASSERT_THAT(files, IsOk());
  ExpectSameCluster(*ztp, *files);
  // One host per NMStateConfig; node 0 is the first static IP, as openshift-install picks it.
  ASSERT_EQ(ztp->agent.hosts.size(), 3u);
  EXPECT_EQ(ztp->agent.hosts[2].interfaces[0].mac, "02:00:C0:A8:7A:0C");
  EXPECT_TRUE(ztp->agent.hosts[2].network.has_value());
  EXPECT_EQ(ztp->agent.hosts[2].file, "cluster-manifests/nmstateconfig.yaml");
  EXPECT_EQ(ztp->agent.rendezvous_ip.ToString(), "192.168.122.10");
  EXPECT_EQ(ztp->agent.ntp_sources, std::vector<std::string>{"192.168.122.1"});
  EXPECT_EQ(ztp->source.file, "cluster-manifests/agent-cluster-install.yaml");
}

// What `agent create cluster-manifests` writes reads back as the same cluster, the hosts'
// names, roles and networks included (agent-config.yaml kept beside the manifests, as
// openshift-install's flow has it).
TEST(ZtpClusterDefinition, ManifestsWrittenFromSeed002ReadBackAsTheSameCluster) {
  const std::string agent_config = Testdata("seed002_agent-config.yaml");
  absl::StatusOr<ClusterDefinition> files =
      ParseClusterDefinition(Testdata("seed002_install-config.yaml"), agent_config);
  ASSERT_THAT(files, IsOk());
  absl::StatusOr<ClusterDefinition> ztp =
      ParseZtpClusterDefinition(ZtpManifests(*files), agent_config);
  ASSERT_THAT(ztp, IsOk());
  ExpectSameCluster(*ztp, *files);
  EXPECT_EQ(ztp->agent.rendezvous_ip, files->agent.rendezvous_ip);
  ASSERT_EQ(ztp->agent.hosts.size(), files->agent.hosts.size());
  for (size_t i = 0; i < files->agent.hosts.size(); ++i) {
    EXPECT_EQ(ztp->agent.hosts[i].hostname, files->agent.hosts[i].hostname);
    EXPECT_EQ(ztp->agent.hosts[i].role, files->agent.hosts[i].role);
    EXPECT_EQ(ztp->agent.hosts[i].network_yaml, files->agent.hosts[i].network_yaml);
  }
  // Mirrors and the trust bundle have no field in these manifests (ztp_manifests.h).
  EXPECT_TRUE(ztp->install.mirrors.empty());
}

TEST(ZtpClusterDefinition, AgentConfigHostsWithoutNetworksTakeTheNmStateConfigsWithTheirMacs) {
  const std::string agent_config = Testdata("compact_agent-config.yaml");  // DHCP, roles
  absl::StatusOr<ClusterDefinition> ztp =
      ParseZtpClusterDefinition(CompactManifests(), agent_config);
  ASSERT_THAT(ztp, IsOk());
  ASSERT_EQ(ztp->agent.hosts.size(), 3u);
  EXPECT_EQ(ztp->agent.hosts[1].hostname, "master-1");
  EXPECT_EQ(ztp->agent.hosts[1].role, "master");
  ASSERT_TRUE(ztp->agent.hosts[1].network.has_value());
  EXPECT_EQ(ztp->agent.hosts[1].path, "[1].spec");
}

struct Mutation {
  std::string file;
  std::string from;  // empty: the file is added with `to`, or removed when `to` is empty too
  std::string to;
};

struct Invalid {
  std::string name;
  std::vector<Mutation> mutations;
  std::string expected;  // a line of the error
  bool with_agent_config = false;
};

class ZtpInvalidTest : public ::testing::TestWithParam<Invalid> {};

TEST_P(ZtpInvalidTest, IsRefusedNamingTheFileAndField) {
  std::map<std::string, std::string> manifests = CompactManifests();
  for (const Mutation& mutation : GetParam().mutations) {
    if (mutation.from.empty()) {
      if (mutation.to.empty()) {
        manifests.erase(mutation.file);
      } else {
        manifests[mutation.file] = mutation.to;
      }
      continue;
    }
    std::string& text = manifests[mutation.file];
    ASSERT_NE(text.find(mutation.from), std::string::npos) << mutation.from;
    text = absl::StrReplaceAll(text, {{mutation.from, mutation.to}});
  }
  std::optional<std::string> agent_config;
  if (GetParam().with_agent_config) agent_config = Testdata("compact_agent-config.yaml");
  EXPECT_THAT(ParseZtpClusterDefinition(manifests, agent_config),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().expected)));
}

constexpr char kAci[] = "agent-cluster-install.yaml";

INSTANTIATE_TEST_SUITE_P(
    Manifests, ZtpInvalidTest,
    ::testing::Values(
        Invalid{"MissingInfraEnv",
                {{kInfraEnvFile, "", ""}},
                "cluster-manifests/infraenv.yaml: is required among the ZTP manifests"},
        Invalid{"ClusterImageSet",
                {{"cluster-image-set.yaml", "", "kind: ClusterImageSet\n"}},
                "cluster-manifests/cluster-image-set.yaml: is not supported"},
        Invalid{"UnknownFile",
                {{"extra.yaml", "", "a: b\n"}},
                "cluster-manifests/extra.yaml: is not a manifest this agent-based installer "
                "reads"},
        Invalid{"ImageSetRef",
                {{kAci, "  clusterDeploymentRef:", "  imageSetRef:\n    name: openshift-4.16\n"
                                                   "  clusterDeploymentRef:"}},
                "cluster-manifests/agent-cluster-install.yaml: spec.imageSetRef: is not "
                "supported"},
        Invalid{"TwoControlPlaneAgents",
                {{kAci, "controlPlaneAgents: 3", "controlPlaneAgents: 2"}},
                "cluster-manifests/agent-cluster-install.yaml: "
                "spec.provisionRequirements.controlPlaneAgents: must be 1, 3, 4 or 5"},
        Invalid{"ApiVipOutsideTheMachineNetwork",
                {{kAci, "- 192.168.122.5", "- 10.0.0.5"}},
                "cluster-manifests/agent-cluster-install.yaml: spec.apiVIPs[0]: 10.0.0.5 is "
                "outside every machineNetwork"},
        Invalid{"VipIsAHostsStaticIp",
                {{kAci, "- 192.168.122.5", "- 192.168.122.11"}},
                "cluster-manifests/agent-cluster-install.yaml: spec.apiVIPs[0]: 192.168.122.11 "
                "is a static IP of cluster-manifests/nmstateconfig.yaml [1].spec"},
        Invalid{"UnknownSpecField",
                {{kAci, "  platformType: BareMetal", "  platformType: BareMetal\n  color: red"}},
                "cluster-manifests/agent-cluster-install.yaml: spec.color: is not a field"},
        Invalid{"SingleNodeOnBareMetal",
                {{kAci, "controlPlaneAgents: 3", "controlPlaneAgents: 1"}},
                "cluster-manifests/agent-cluster-install.yaml: spec.platformType: must be None "
                "when provisionRequirements.controlPlaneAgents is 1"},
        Invalid{"InstallRefNamesAnotherResource",
                {{kClusterDeploymentFile, "    name: demo\n    version", "    name: other\n"
                                                                         "    version"}},
                "cluster-manifests/cluster-deployment.yaml: spec.clusterInstallRef.name: "
                "\"other\" is not the AgentClusterInstall"},
        Invalid{"ClusterNameNotADnsLabel",
                {{kClusterDeploymentFile, "clusterName: demo", "clusterName: Demo_1"}},
                "cluster-manifests/cluster-deployment.yaml: spec.clusterName: \"Demo_1\" is not "
                "a DNS label"},
        Invalid{"WrongKind",
                {{kInfraEnvFile, "kind: InfraEnv", "kind: Agent"}},
                "cluster-manifests/infraenv.yaml: kind:"},
        Invalid{"InfraEnvProxy",
                {{kInfraEnvFile, "  clusterRef:", "  proxy:\n    httpProxy: http://p:3128\n"
                                                  "  clusterRef:"}},
                "cluster-manifests/infraenv.yaml: spec.proxy: is not supported"},
        Invalid{"SecondSshKey",
                {{kInfraEnvFile, "e2e", "other"}},
                "cluster-manifests/infraenv.yaml: spec.sshAuthorizedKey: differs from "
                "agent-cluster-install.yaml's spec.sshPublicKey"},
        Invalid{"PullSecretNotBase64",
                {{kPullSecretFile, "stringData:\n  .dockerconfigjson: "
                                   "'{\"auths\":{\"quay.io\":{\"auth\":\"eDp5\"}}}'",
                  "data:\n  .dockerconfigjson: '%%%'"}},
                "cluster-manifests/pull-secret.yaml: data..dockerconfigjson: is not base64"},
        Invalid{"PullSecretWithoutAuths",
                {{kPullSecretFile, "{\"auths\":{\"quay.io\":{\"auth\":\"eDp5\"}}}", "{}"}},
                "cluster-manifests/pull-secret.yaml: stringData..dockerconfigjson: must be a "
                "JSON object"},
        Invalid{"NmStateConfigWithoutTheSelectorLabel",
                {{kNmStateConfigFile, "  name: master-1\n  namespace: demo\n  labels:\n"
                                      "    infraenvs.agent-install.openshift.io: demo",
                  "  name: master-1\n  namespace: demo\n  labels:\n    other: demo"}},
                "cluster-manifests/nmstateconfig.yaml: [1].metadata.labels: lacks "
                "infraenvs.agent-install.openshift.io"},
        Invalid{"MacOfTwoNmStateConfigs",
                {{kNmStateConfigFile, "macAddress: 02:00:c0:a8:7a:0b",
                  "macAddress: 02:00:c0:a8:7a:0a"}},
                "cluster-manifests/nmstateconfig.yaml: [1].spec.interfaces[0].macAddress: "
                "02:00:C0:A8:7A:0A is already a MAC of [0].spec"},
        Invalid{"NmStateConfigOfNoListedHost",
                {{kNmStateConfigFile, "macAddress: 02:00:c0:a8:7a:0c",
                  "macAddress: 02:00:c0:a8:7a:1c"},
                 {kNmStateConfigFile, "mac-address: 02:00:C0:A8:7A:0C",
                  "mac-address: 02:00:C0:A8:7A:1C"}},
                "cluster-manifests/nmstateconfig.yaml: [2].spec.interfaces: names no MAC of a "
                "host agent-config.yaml lists",
                /*with_agent_config=*/true},
        Invalid{"MoreHostsThanAgents",
                {{kAci, "controlPlaneAgents: 3", "controlPlaneAgents: 1"},
                 {kAci, "platformType: BareMetal", "platformType: None"}},
                "cluster-manifests/nmstateconfig.yaml: [1].spec: 3 hosts are listed but "
                "cluster-manifests/agent-cluster-install.yaml's replicas add up to 1"}),
    [](const ::testing::TestParamInfo<Invalid>& info) { return info.param.name; });

}  // namespace
}  // namespace assisted::cli::agent
