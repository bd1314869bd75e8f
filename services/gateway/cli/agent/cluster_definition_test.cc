#include "services/gateway/cli/agent/cluster_definition.h"

#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/testing/status_matchers.h"
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

std::string SeedInstallConfig() { return Testdata("seed002_install-config.yaml"); }
std::string SeedAgentConfig() { return Testdata("seed002_agent-config.yaml"); }

TEST(ClusterDefinition, AcceptsSeed002CompactClusterWithStaticNetworkingAndMirror) {
  absl::StatusOr<ClusterDefinition> definition =
      ParseClusterDefinition(SeedInstallConfig(), SeedAgentConfig());
  ASSERT_THAT(definition, IsOk());
  EXPECT_EQ(definition->install.cluster_name, "kni22");
  EXPECT_EQ(definition->install.base_domain, "schmaustech.com");
  EXPECT_EQ(definition->expected_hosts(), 3);
  EXPECT_EQ(definition->install.platform, "baremetal");
  ASSERT_EQ(definition->install.api_vips.size(), 1u);
  EXPECT_EQ(definition->install.api_vips[0].ip.ToString(), "192.168.0.125");
  EXPECT_EQ(definition->install.mirrors.size(), 2u);
  EXPECT_THAT(definition->install.additional_trust_bundle, HasSubstr("BEGIN CERTIFICATE"));
  EXPECT_EQ(definition->agent.prefix, "spec.");
  EXPECT_EQ(definition->agent.rendezvous_ip.ToString(), "192.168.0.116");
  ASSERT_EQ(definition->agent.hosts.size(), 3u);
  EXPECT_EQ(definition->agent.hosts[1].hostname, "asus3-vm2");
  EXPECT_EQ(definition->agent.hosts[1].interfaces[0].mac, "52:54:00:95:FD:F3");
  EXPECT_TRUE(definition->agent.hosts[2].network.has_value());
}

TEST(ClusterDefinition, Seed002AsPublishedIsRefusedWithTheLineOfItsBrokenPullSecret) {
  // The blog's heredoc wrote pullSecret: ''{...}'' (two empty quoted strings around JSON).
  EXPECT_THAT(ParseClusterDefinition(Testdata("seed002_install-config.as-published.yaml"),
                                     SeedAgentConfig()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("install-config.yaml: not valid YAML at line 38 column 15")));
}

TEST(ClusterDefinition, UsesInstallConfigHostsWhenAgentConfigListsNone) {
  const std::string agent = "apiVersion: v1beta1\nkind: AgentConfig\nrendezvousIP: 192.168.0.116\n";
  absl::StatusOr<ClusterDefinition> definition = ParseClusterDefinition(SeedInstallConfig(), agent);
  ASSERT_THAT(definition, IsOk());
  ASSERT_EQ(definition->agent.hosts.size(), 3u);
  EXPECT_EQ(definition->agent.hosts[0].file, "install-config.yaml");
  EXPECT_EQ(definition->agent.hosts[0].path, "platform.baremetal.hosts[0]");
  EXPECT_EQ(definition->agent.hosts[0].role, "master");
  EXPECT_EQ(definition->agent.hosts[0].interfaces[0].mac, "52:54:00:E7:05:72");
}

TEST(ClusterDefinition, DerivesRendezvousIpFromTheFirstMastersStaticAddress) {
  std::string agent = SeedAgentConfig();
  agent.replace(agent.find("  rendezvousIP: 192.168.0.116\n"), 29, "");
  absl::StatusOr<ClusterDefinition> definition = ParseClusterDefinition(SeedInstallConfig(), agent);
  ASSERT_THAT(definition, IsOk());
  EXPECT_EQ(definition->agent.rendezvous_ip.ToString(), "192.168.0.116");
}

// One edit of a seed file: the first `from` becomes `to`.
struct Edit {
  bool agent;  // agent-config.yaml, else install-config.yaml
  std::string from;
  std::string to;
};

struct InvalidCase {
  std::string name;
  std::vector<Edit> edits;
  std::string message;  // a line of the error, with its file and field path
};

constexpr char kHost0[] = "    - hostname: asus3-vm1\n";
constexpr char kHost1[] = "    - hostname: asus3-vm2\n";
constexpr char kExtraHost[] =
    "    - hostname: extra\n      interfaces:\n       - name: eno1\n"
    "         macAddress: 52:54:00:00:00:01\n";

std::vector<InvalidCase> InvalidCases() {
  return {
      // install-config.yaml alone
      {"ApiVersion",
       {{false, "apiVersion: v1", "apiVersion: v2"}},
       "install-config.yaml: apiVersion: \"v2\" is not one of v1"},
      {"UnknownField",
       {{false, "baseDomain:", "fips: true\nbaseDomain:"}},
       "install-config.yaml: fips: is not a field the agent-based installer reads"},
      {"ClusterName",
       {{false, "metadata:\n  name: kni22", "metadata:\n  name: Kni_22"}},
       "install-config.yaml: metadata.name: \"Kni_22\" is not a DNS label"},
      {"BaseDomainMissing",
       {{false, "baseDomain: schmaustech.com\n", ""}},
       "install-config.yaml: baseDomain: is required"},
      {"BaseDomainInvalid",
       {{false, "baseDomain: schmaustech.com", "baseDomain: a..b"}},
       "install-config.yaml: baseDomain: \"a..b\" is not a DNS name"},
      {"ControlPlaneReplicasTwo",
       {{false, "  replicas: 3", "  replicas: 2"}},
       "install-config.yaml: controlPlane.replicas: must be 1, 3, 4 or 5"},
      {"ControlPlaneReplicasHuge",
       {{false, "  replicas: 3", "  replicas: 99999999999999999999999"}},
       "install-config.yaml: controlPlane.replicas: \"99999999999999999999999\" is not a whole "
       "number from 1 to 5"},
      {"ReplicasOfWrongType",
       {{false, "  replicas: 3", "  replicas: [3]"}},
       "install-config.yaml: controlPlane.replicas: must be a single value"},
      {"ComputeReplicasNegative",
       {{false, "  replicas: 0", "  replicas: -1"}},
       "install-config.yaml: compute[0].replicas: \"-1\" is not a whole number from 0 to 1000"},
      {"SshKeyNotUtf8",
       {{false, "sshKey: 'ssh-rsa AAAA",
         "sshKey: 'ssh-rsa \xaf\xaf"
         "AAAA"}},
       "install-config.yaml: sshKey: is not UTF-8 text"},
      {"PoolName",
       {{false, "  name: master", "  name: control"}},
       "install-config.yaml: controlPlane.name: \"control\" must be master"},
      {"Architecture",
       {{false, "  architecture: amd64\n  hyperthreading: Enabled\n  name: master",
         "  architecture: arm64\n  hyperthreading: Enabled\n  name: master"}},
       "install-config.yaml: controlPlane.architecture: \"arm64\" is not one of amd64, x86_64"},
      {"SingleNodeNeedsPlatformNone",
       {{false, "  replicas: 3", "  replicas: 1"}},
       "install-config.yaml: platform: must be none when controlPlane.replicas is 1"},
      {"SingleNodeNeedsNoCompute",
       {{false, "  replicas: 3", "  replicas: 1"}, {false, "  replicas: 0", "  replicas: 2"}},
       "install-config.yaml: compute[0].replicas: must be 0 when controlPlane.replicas is 1"},
      {"MachineNetworkMissing",
       {{false, "  machineNetwork:\n  - cidr: 192.168.0.0/24\n", ""}},
       "install-config.yaml: networking.machineNetwork: is required"},
      {"MachineNetworkHostBits",
       {{false, "cidr: 192.168.0.0/24", "cidr: 192.168.0.1/24"}},
       "install-config.yaml: networking.machineNetwork[0].cidr: "},
      {"NetworksOverlap",
       {{false, "- 172.30.0.0/16", "- 10.128.0.0/16"}},
       "install-config.yaml: networking.serviceNetwork[0]: 10.128.0.0/16 overlaps "
       "networking.clusterNetwork[0].cidr (10.128.0.0/14)"},
      {"HostPrefixTooShort",
       {{false, "hostPrefix: 23", "hostPrefix: 12"}},
       "install-config.yaml: networking.clusterNetwork[0].hostPrefix: 12 must be longer than the "
       "block's prefix (14)"},
      {"NetworkType",
       {{false, "networkType: OVNKubernetes", "networkType: Calico"}},
       "install-config.yaml: networking.networkType: \"Calico\" is not one of"},
      {"PlatformUnsupported",
       {{false, "  baremetal:\n", "  vsphere:\n"}},
       "install-config.yaml: platform.vsphere: is not a field the agent-based installer reads"},
      {"ApiVipOutsideMachineNetwork",
       {{false, "\"192.168.0.125\"", "\"10.0.0.125\""}},
       "install-config.yaml: platform.baremetal.apiVIP: 10.0.0.125 is outside every "
       "machineNetwork"},
      {"VipsEqual",
       {{false, "\"192.168.0.126\"", "\"192.168.0.125\""}},
       "install-config.yaml: platform.baremetal.ingressVIP: 192.168.0.125 is already "
       "platform.baremetal.apiVIP"},
      {"VipMissing",
       {{false, "    ingressVIP: \"192.168.0.126\"\n", ""}},
       "install-config.yaml: platform.baremetal.ingressVIPs: is required on platform baremetal"},
      {"VipBothSpellings",
       {{false, "    apiVIP: \"192.168.0.125\"",
         "    apiVIP: \"192.168.0.125\"\n    apiVIPs: [192.168.0.125]"}},
       "install-config.yaml: platform.baremetal: give apiVIPs or apiVIP, not both"},
      {"PullSecretNotJson",
       {{false, "pullSecret: '{", "pullSecret: 'x{"}},
       "install-config.yaml: pullSecret: must be a JSON object whose \"auths\""},
      {"PullSecretMissing",
       {{false, "pullSecret:", "pullSecretX:"}},
       "install-config.yaml: pullSecret: is required"},
      {"MirrorWithoutCredentials",
       {{false, "  - provisioning.schmaustech.com:5000/ocp4/openshift4\n  source: quay.io",
         "  - mirror.example.com/ocp4/openshift4\n  source: quay.io"}},
       "install-config.yaml: imageContentSources[0].mirrors[0]: registry \"mirror.example.com\" "
       "has no credentials in pullSecret.auths"},
      {"MirrorListEmpty",
       {{false, "- mirrors:\n  - provisioning.schmaustech.com:5000/ocp4/openshift4\n  source: quay",
         "- mirrors: []\n  source: quay"}},
       "install-config.yaml: imageContentSources[0].mirrors: must list at least one mirror"},
      {"MirrorIsSource",
       {{false, "  - provisioning.schmaustech.com:5000/ocp4/openshift4\n  source: quay.io",
         "  - quay.io/openshift-release-dev/ocp-v4.0-art-dev\n  source: quay.io"}},
       "install-config.yaml: imageContentSources[0].mirrors[0]: is the source itself"},
      {"BothMirrorSpellings",
       {{false, "imageContentSources:", "imageDigestSources: []\nimageContentSources:"}},
       "install-config.yaml: give imageDigestSources or imageContentSources, not both"},
      {"TrustBundlePolicy",
       {{false,
         "additionalTrustBundle:", "additionalTrustBundlePolicy: Never\nadditionalTrustBundle:"}},
       "install-config.yaml: additionalTrustBundlePolicy: \"Never\" is not one of"},
      {"TrustBundlePolicyWithoutBundle",
       {{false, "additionalTrustBundle: |", "additionalTrustBundlePolicy: Always\nunused: |"}},
       "install-config.yaml: additionalTrustBundlePolicy: is given without additionalTrustBundle"},
      {"PlatformHostMac",
       {{false, "bootMACAddress: 52:54:00:e7:05:72", "bootMACAddress: 52-54"}},
       "install-config.yaml: platform.baremetal.hosts[0].bootMACAddress: \"52-54\" is not a MAC"},
      {"PlatformHostMacDuplicate",
       {{false, "bootMACAddress: 52:54:00:95:fd:f3", "bootMACAddress: 52:54:00:e7:05:72"}},
       "install-config.yaml: platform.baremetal.hosts[1].bootMACAddress: 52:54:00:E7:05:72 is "
       "already a MAC of platform.baremetal.hosts[0]"},
      // agent-config.yaml alone
      {"Kind",
       {{true, "kind: AgentConfig", "kind: AgentConfg"}},
       "agent-config.yaml: kind: \"AgentConfg\" is not one of AgentConfig"},
      {"AgentUnknownField",
       {{true, "kind: AgentConfig\n", "kind: AgentConfig\nbootArtifactsBaseURL: x\n"}},
       "agent-config.yaml: bootArtifactsBaseURL: is not a field the agent-based installer reads"},
      {"FieldOutsideSpec",
       {{true, "kind: AgentConfig\n", "kind: AgentConfig\nrendezvousIP: 1.2.3.4\n"}},
       "agent-config.yaml: rendezvousIP: must be under spec"},
      {"RendezvousNotAnIp",
       {{true, "rendezvousIP: 192.168.0.116", "rendezvousIP: 192.168.0.300"}},
       "agent-config.yaml: spec.rendezvousIP: "},
      {"HostnameDuplicate",
       {{true, "hostname: asus3-vm2", "hostname: asus3-vm1"}},
       "agent-config.yaml: spec.hosts[1].hostname: \"asus3-vm1\" is already the host name of "
       "spec.hosts[0]"},
      {"HostnameInvalid",
       {{true, "hostname: asus3-vm1", "hostname: Asus3_vm1"}},
       "agent-config.yaml: spec.hosts[0].hostname: \"Asus3_vm1\" is not a host name"},
      {"Role",
       {{true, kHost0, absl::StrCat(kHost0, "      role: bootstrap\n")}},
       "agent-config.yaml: spec.hosts[0].role: \"bootstrap\" is not one of master, worker"},
      {"MacInvalid",
       {{true, "macAddress: 52:54:00:e7:05:72", "macAddress: 52:54:00:e7:05"}},
       "agent-config.yaml: spec.hosts[0].interfaces[0].macAddress: \"52:54:00:e7:05\" is not a "
       "MAC address"},
      {"MacDuplicate",
       {{true, "macAddress: 52:54:00:95:fd:f3", "macAddress: 52:54:00:E7:05:72"}},
       "agent-config.yaml: spec.hosts[1].interfaces[0].macAddress: 52:54:00:E7:05:72 is already a "
       "MAC of spec.hosts[0]"},
      {"InterfacesMissing",
       {{true, "      interfaces:\n       - name: enp2s0\n         macAddress: 52:54:00:e7:05:72\n",
         ""}},
       "agent-config.yaml: spec.hosts[0].interfaces: is required"},
      {"InterfaceNameInvalid",
       {{true, "       - name: enp2s0", "       - name: a/b"}},
       "agent-config.yaml: spec.hosts[0].interfaces[0].name: \"a/b\" is not an interface name"},
      {"RootDeviceHintsDeviceName",
       {{true, kHost0, absl::StrCat(kHost0, "      rootDeviceHints:\n        deviceName: sda\n")}},
       "agent-config.yaml: spec.hosts[0].rootDeviceHints.deviceName: \"sda\" is not a /dev/ path"},
      {"RootDeviceHintsWwnWithExtension",
       {{true, kHost0,
         absl::StrCat(kHost0, "      rootDeviceHints:\n        wwnWithExtension: x\n")}},
       "agent-config.yaml: spec.hosts[0].rootDeviceHints.wwnWithExtension: is not supported"},
      {"RootDeviceHintsMinSize",
       {{true, kHost0,
         absl::StrCat(kHost0, "      rootDeviceHints:\n        minSizeGigabytes: 0\n")}},
       "agent-config.yaml: spec.hosts[0].rootDeviceHints.minSizeGigabytes: \"0\" is not a whole "
       "number from 1"},
      {"RootDeviceHintsHctl",
       {{true, kHost0, absl::StrCat(kHost0, "      rootDeviceHints:\n        hctl: 1:2:3\n")}},
       "agent-config.yaml: spec.hosts[0].rootDeviceHints.hctl: \"1:2:3\" is not "
       "host:channel:target:lun"},
      {"RootDeviceHintsRotational",
       {{true, kHost0,
         absl::StrCat(kHost0, "      rootDeviceHints:\n        rotational: maybe\n")}},
       "agent-config.yaml: spec.hosts[0].rootDeviceHints.rotational: \"maybe\" is not true or "
       "false"},
      {"RootDeviceHintsUnknown",
       {{true, kHost0, absl::StrCat(kHost0, "      rootDeviceHints:\n        size: 5\n")}},
       "agent-config.yaml: spec.hosts[0].rootDeviceHints.size: is not a field"},
      {"NmStateInvalid",
       {{true, "prefix-length: 23", "prefix-length: 99"}},
       "agent-config.yaml: spec.hosts[0].networkConfig.interfaces[0].ipv4.address[0]"},
      {"NmStateInterfaceNotListed",
       {{true, "       - name: enp2s0\n         macAddress: 52:54:00:e7:05:72",
         "       - name: eno1\n         macAddress: 52:54:00:e7:05:72"}},
       "agent-config.yaml: spec.hosts[0].networkConfig.interfaces[0].name: \"enp2s0\" is not "
       "listed in spec.hosts[0].interfaces"},
      {"NmStateMacDiffers",
       {{true, "            mac-address: 52:54:00:e7:05:72",
         "            mac-address: 52:54:00:e7:05:73"}},
       "agent-config.yaml: spec.hosts[0].networkConfig.interfaces[0].mac-address: "
       "52:54:00:E7:05:73 differs from 52:54:00:E7:05:72"},
      {"NetworkConfigNotAMapping",
       {{true, "    - hostname: asus3-vm3\n",
         absl::StrCat(kExtraHost, "      networkConfig: [x]\n    - hostname: asus3-vm3\n")}},
       "agent-config.yaml: spec.hosts[2].networkConfig: must be a mapping"},
      // both files
      {"StaticIpDuplicate",
       {{true, "- ip: 192.168.0.117", "- ip: 192.168.0.116"}},
       "agent-config.yaml: spec.hosts[1].networkConfig: 192.168.0.116 is already a static IP of "
       "spec.hosts[0]"},
      {"RendezvousOutsideMachineNetwork",
       {{true, "rendezvousIP: 192.168.0.116", "rendezvousIP: 192.168.1.116"}},
       "agent-config.yaml: spec.rendezvousIP: 192.168.1.116 is outside install-config.yaml's "
       "machineNetwork (192.168.0.0/24)"},
      {"RendezvousNoHostsIp",
       {{true, "rendezvousIP: 192.168.0.116", "rendezvousIP: 192.168.0.200"}},
       "agent-config.yaml: spec.rendezvousIP: 192.168.0.200 is no host's static IP"},
      {"RendezvousIsWorker",
       {{false, "  replicas: 0", "  replicas: 1"},
        {true, kHost0, absl::StrCat(kHost0, "      role: worker\n")}},
       "agent-config.yaml: spec.rendezvousIP: 192.168.0.116 is the IP of spec.hosts[0], a worker"},
      {"WorkersBeyondCompute",
       {{true, kHost1, absl::StrCat(kHost1, "      role: worker\n")}},
       "agent-config.yaml: spec.hosts[1].role: is worker, but install-config.yaml's compute "
       "replicas is 0"},
      {"MastersBeyondControlPlane",
       {{false, "  replicas: 0", "  replicas: 1"},
        {true, kHost0, absl::StrCat(kHost0, "      role: master\n")},
        {true, kHost1, absl::StrCat(kHost1, "      role: master\n")},
        {true, "    - hostname: asus3-vm3\n",
         absl::StrCat(kExtraHost,
                      "      role: master\n    - hostname: asus3-vm3\n      role: master\n")}},
       "agent-config.yaml: spec.hosts[3].role: is master, but install-config.yaml's "
       "controlPlane.replicas is 3 and 4 hosts are masters"},
      {"MoreHostsThanReplicas",
       {{true, "table-id: 254\n    - hostname: asus3-vm3",
         absl::StrCat("table-id: 254\n", kExtraHost, "    - hostname: asus3-vm3")}},
       "agent-config.yaml: spec.hosts[3]: 4 hosts are listed but install-config.yaml's replicas "
       "add up to 3"},
      {"VipIsAHostsIp",
       {{false, "\"192.168.0.125\"", "\"192.168.0.117\""}},
       "install-config.yaml: platform.baremetal.apiVIP: 192.168.0.117 is a static IP of "
       "agent-config.yaml spec.hosts[1]"},
  };
}

class InvalidInput : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidInput, IsRefusedNamingFileAndField) {
  std::string install = SeedInstallConfig();
  std::string agent = SeedAgentConfig();
  for (const Edit& edit : GetParam().edits) {
    std::string& text = edit.agent ? agent : install;
    const size_t at = text.find(edit.from);
    ASSERT_NE(at, std::string::npos) << "edit does not apply: " << edit.from;
    text.replace(at, edit.from.size(), edit.to);
  }
  EXPECT_THAT(ParseClusterDefinition(install, agent),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(EveryRule, InvalidInput, ::testing::ValuesIn(InvalidCases()),
                         [](const auto& info) { return info.param.name; });

// Each line of an error names one of the two files.
void ExpectEveryLineNamesAFile(const absl::Status& status) {
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  for (absl::string_view line : absl::StrSplit(status.message(), '\n')) {
    EXPECT_TRUE(absl::StartsWith(line, "install-config.yaml: ") ||
                absl::StartsWith(line, "agent-config.yaml: "))
        << line;
  }
}

TEST(ClusterDefinitionBounds, KeepsEachProblemOnOneLineWhateverItsKeysHold) {
  std::string install = SeedInstallConfig();
  install.replace(install.find("baseDomain:"), 0, "\"fi\\nps\": true\n");
  absl::StatusOr<ClusterDefinition> result = ParseClusterDefinition(install, SeedAgentConfig());
  ExpectEveryLineNamesAFile(result.status());
  EXPECT_THAT(result.status().message(),
              HasSubstr("install-config.yaml: fi\\x0aps: is not a field"));
}

TEST(ClusterDefinitionBounds, ReportsTheFirst50ProblemsAndHowManyMore) {
  std::string install = SeedInstallConfig();
  for (int i = 0; i < 1000; ++i) absl::StrAppend(&install, "unknown", i, ": x\n");
  absl::StatusOr<ClusterDefinition> result = ParseClusterDefinition(install, SeedAgentConfig());
  ExpectEveryLineNamesAFile(result.status());
  const std::vector<absl::string_view> lines = absl::StrSplit(result.status().message(), '\n');
  ASSERT_EQ(lines.size(), 51u);
  EXPECT_EQ(lines[50], "install-config.yaml: and 950 more problems");
}

TEST(ClusterDefinitionBounds, RefusesNestingDeeperThanYamlCppCanParse) {
  const std::string deep = absl::StrCat("a: ", std::string(100000, '['), std::string(100000, ']'));
  absl::StatusOr<ClusterDefinition> result = ParseClusterDefinition(deep, SeedAgentConfig());
  ExpectEveryLineNamesAFile(result.status());
  EXPECT_THAT(result.status().message(), HasSubstr("install-config.yaml: not valid YAML"));
}

TEST(ClusterDefinitionBounds, RefusesNestingDeeperThan64Levels) {
  const std::string deep = absl::StrCat("a: ", std::string(100, '['), std::string(100, ']'));
  EXPECT_THAT(ParseClusterDefinition(SeedInstallConfig(), deep),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("agent-config.yaml: is nested deeper than 64 levels")));
}

TEST(ClusterDefinitionBounds, RefusesAliasBombs) {
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 12; ++i) {
    absl::StrAppend(&bomb, "a", i, ": &a", i, " [");
    for (int j = 0; j < 10; ++j) absl::StrAppend(&bomb, j ? ", " : "", "*a", i - 1);
    absl::StrAppend(&bomb, "]\n");
  }
  EXPECT_THAT(ParseClusterDefinition(bomb, SeedAgentConfig()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("install-config.yaml: holds more than 100000 values")));
}

TEST(ClusterDefinitionBounds, RefusesFilesAboveOneMebibyte) {
  const std::string huge = absl::StrCat("baseDomain: ", std::string(2 << 20, 'a'), "\n");
  EXPECT_THAT(ParseClusterDefinition(huge, SeedAgentConfig()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("install-config.yaml: is 2097165 bytes; at most 1048576")));
}

TEST(ClusterDefinitionBounds, RefusesDocumentsThatAreNotMappings) {
  for (const std::string& text :
       std::vector<std::string>{"", "- a\n- b\n", "just text", std::string("\0\xff\xfe", 3)}) {
    absl::StatusOr<ClusterDefinition> result = ParseClusterDefinition(SeedInstallConfig(), text);
    ExpectEveryLineNamesAFile(result.status());
  }
}

TEST(ClusterDefinitionBounds, MutatedSeedsNeverCrashAndAlwaysNameTheFile) {
  const std::string seeds[2] = {SeedInstallConfig(), SeedAgentConfig()};
  std::mt19937 random(17);
  for (int round = 0; round < 1500; ++round) {
    std::string texts[2] = {seeds[0], seeds[1]};
    std::string& text = texts[round % 2];
    const int edits = 1 + random() % 4;
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = random() % text.size();
      switch (random() % 4) {
        case 0:
          text[at] = static_cast<char>(random() % 256);
          break;
        case 1:
          text.erase(at, 1 + random() % 16);
          break;
        case 2:
          text.insert(at, text.substr(random() % text.size(), 1 + random() % 32));
          break;
        default:
          text.insert(at, std::string(1, "[]{}:-&*!|>'\"\n #"[random() % 17]));
          break;
      }
    }
    absl::StatusOr<ClusterDefinition> result = ParseClusterDefinition(texts[0], texts[1]);
    if (!result.ok()) ExpectEveryLineNamesAFile(result.status());
  }
}

// ---- ZTP manifests (ParseZtpClusterDefinition): testdata/ztp_compact_* ----

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
                {{kAci, "  clusterDeploymentRef:",
                  "  imageSetRef:\n    name: openshift-4.16\n"
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
                {{kClusterDeploymentFile, "    name: demo\n    version",
                  "    name: other\n"
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
                {{kInfraEnvFile, "  clusterRef:",
                  "  proxy:\n    httpProxy: http://p:3128\n"
                  "  clusterRef:"}},
                "cluster-manifests/infraenv.yaml: spec.proxy: is not supported"},
        Invalid{"SecondSshKey",
                {{kInfraEnvFile, "e2e", "other"}},
                "cluster-manifests/infraenv.yaml: spec.sshAuthorizedKey: differs from "
                "agent-cluster-install.yaml's spec.sshPublicKey"},
        Invalid{"PullSecretNotBase64",
                {{kPullSecretFile,
                  "stringData:\n  .dockerconfigjson: "
                  "'{\"auths\":{\"quay.io\":{\"auth\":\"eDp5\"}}}'",
                  "data:\n  .dockerconfigjson: '%%%'"}},
                "cluster-manifests/pull-secret.yaml: data..dockerconfigjson: is not base64"},
        Invalid{"PullSecretWithoutAuths",
                {{kPullSecretFile, "{\"auths\":{\"quay.io\":{\"auth\":\"eDp5\"}}}", "{}"}},
                "cluster-manifests/pull-secret.yaml: stringData..dockerconfigjson: must be a "
                "JSON object"},
        Invalid{"NmStateConfigWithoutTheSelectorLabel",
                {{kNmStateConfigFile,
                  "  name: master-1\n  namespace: demo\n  labels:\n"
                  "    infraenvs.agent-install.openshift.io: demo",
                  "  name: master-1\n  namespace: demo\n  labels:\n    other: demo"}},
                "cluster-manifests/nmstateconfig.yaml: [1].metadata.labels: lacks "
                "infraenvs.agent-install.openshift.io"},
        Invalid{"MacOfTwoNmStateConfigs",
                {{kNmStateConfigFile, "macAddress: 02:00:c0:a8:7a:0b",
                  "macAddress: 02:00:c0:a8:7a:0a"}},
                "cluster-manifests/nmstateconfig.yaml: [1].spec.interfaces[0].macAddress: "
                "02:00:C0:A8:7A:0A is already a MAC of [0].spec"},
        Invalid{
            "NmStateConfigOfNoListedHost",
            {{kNmStateConfigFile, "macAddress: 02:00:c0:a8:7a:0c", "macAddress: 02:00:c0:a8:7a:1c"},
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
