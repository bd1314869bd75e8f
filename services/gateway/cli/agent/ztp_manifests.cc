#include "services/gateway/cli/agent/ztp_manifests.h"

#include <yaml-cpp/yaml.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace assisted::cli::agent {
namespace {

constexpr char kInfraEnvLabel[] = "infraenvs.agent-install.openshift.io";

YAML::Node Header(const char* api_version, const char* kind, const std::string& name,
                  const std::string& name_space) {
  YAML::Node node;
  node["apiVersion"] = api_version;
  node["kind"] = kind;
  node["metadata"]["name"] = name;
  node["metadata"]["namespace"] = name_space;
  return node;
}

std::string Document(const YAML::Node& node) { return absl::StrCat(YAML::Dump(node), "\n"); }

YAML::Node Cidrs(const std::vector<net::Cidr>& networks) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (const net::Cidr& network : networks) {
    YAML::Node entry;
    entry["cidr"] = network.ToString();
    list.push_back(entry);
  }
  return list;
}

YAML::Node Ips(const std::vector<Vip>& vips) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (const Vip& vip : vips) list.push_back(vip.ip.ToString());
  return list;
}

}  // namespace

std::map<std::string, std::string> ZtpManifests(const ClusterDefinition& definition) {
  const InstallConfig& install = definition.install;
  const std::string& name = install.cluster_name;
  const std::string pull_secret_name = absl::StrCat(name, "-pull-secret");
  std::map<std::string, std::string> files;

  YAML::Node secret = Header("v1", "Secret", pull_secret_name, name);
  secret["type"] = "kubernetes.io/dockerconfigjson";
  secret["stringData"][".dockerconfigjson"] = install.pull_secret;
  files["pull-secret.yaml"] = Document(secret);

  YAML::Node deployment = Header("hive.openshift.io/v1", "ClusterDeployment", name, name);
  deployment["spec"]["baseDomain"] = install.base_domain;
  deployment["spec"]["clusterName"] = name;
  deployment["spec"]["clusterInstallRef"]["group"] = "extensions.hive.openshift.io";
  deployment["spec"]["clusterInstallRef"]["kind"] = "AgentClusterInstall";
  deployment["spec"]["clusterInstallRef"]["name"] = name;
  deployment["spec"]["clusterInstallRef"]["version"] = "v1beta1";
  deployment["spec"]["platform"]["agentBareMetal"]["agentSelector"] =
      YAML::Node(YAML::NodeType::Map);
  deployment["spec"]["pullSecretRef"]["name"] = pull_secret_name;
  files["cluster-deployment.yaml"] = Document(deployment);

  YAML::Node install_resource =
      Header("extensions.hive.openshift.io/v1beta1", "AgentClusterInstall", name, name);
  YAML::Node spec = install_resource["spec"];
  spec["clusterDeploymentRef"]["name"] = name;
  spec["platformType"] = install.platform == "none" ? "None" : "BareMetal";
  spec["provisionRequirements"]["controlPlaneAgents"] = install.control_plane_replicas;
  spec["provisionRequirements"]["workerAgents"] = install.compute_replicas;
  for (const ClusterNetwork& network : install.cluster_networks) {
    YAML::Node entry;
    entry["cidr"] = network.cidr.ToString();
    entry["hostPrefix"] = network.host_prefix;
    spec["networking"]["clusterNetwork"].push_back(entry);
  }
  spec["networking"]["serviceNetwork"] = YAML::Node(YAML::NodeType::Sequence);
  for (const net::Cidr& network : install.service_networks) {
    spec["networking"]["serviceNetwork"].push_back(network.ToString());
  }
  spec["networking"]["machineNetwork"] = Cidrs(install.machine_networks);
  spec["networking"]["networkType"] = install.network_type;
  if (!install.api_vips.empty()) spec["apiVIPs"] = Ips(install.api_vips);
  if (!install.ingress_vips.empty()) spec["ingressVIPs"] = Ips(install.ingress_vips);
  if (!install.ssh_key.empty()) spec["sshPublicKey"] = install.ssh_key;
  files["agent-cluster-install.yaml"] = Document(install_resource);

  YAML::Node infra_env = Header("agent-install.openshift.io/v1beta1", "InfraEnv", name, name);
  infra_env["spec"]["clusterRef"]["name"] = name;
  infra_env["spec"]["clusterRef"]["namespace"] = name;
  infra_env["spec"]["pullSecretRef"]["name"] = pull_secret_name;
  if (!install.ssh_key.empty()) infra_env["spec"]["sshAuthorizedKey"] = install.ssh_key;
  for (const std::string& source : definition.agent.ntp_sources) {
    infra_env["spec"]["additionalNTPSources"].push_back(source);
  }
  infra_env["spec"]["nmStateConfigLabelSelector"]["matchLabels"][kInfraEnvLabel] = name;
  files["infraenv.yaml"] = Document(infra_env);

  std::string nmstate_configs;
  for (size_t i = 0; i < definition.agent.hosts.size(); ++i) {
    const AgentHost& host = definition.agent.hosts[i];
    if (host.network_yaml.empty()) continue;
    const std::string config_name =
        host.hostname.empty() ? absl::StrCat(name, "-", i) : host.hostname;
    YAML::Node config =
        Header("agent-install.openshift.io/v1beta1", "NMStateConfig", config_name, name);
    config["metadata"]["labels"][kInfraEnvLabel] = name;
    // Cannot throw: lib/nmstate parsed this very text with YAML::Load when it was read.
    config["spec"]["config"] = YAML::Load(host.network_yaml);
    for (const HostInterface& interface : host.interfaces) {
      YAML::Node entry;
      entry["name"] = interface.name;
      entry["macAddress"] = absl::AsciiStrToLower(interface.mac);
      config["spec"]["interfaces"].push_back(entry);
    }
    absl::StrAppend(&nmstate_configs, nmstate_configs.empty() ? "" : "---\n", Document(config));
  }
  if (!nmstate_configs.empty()) files["nmstateconfig.yaml"] = nmstate_configs;
  return files;
}

}  // namespace assisted::cli::agent
