// File: services/gateway/cli/agent/cluster_definition.h
//
// The agent-based installer's input: install-config.yaml and agent-config.yaml read into one
// checked ClusterDefinition. Every problem names its file and field path
// ("install-config.yaml: platform.baremetal.apiVIPs[0]: 10.0.0.5 is outside every
// machineNetwork"), and all problems of both files are reported together.
//
//   ASSIGN_OR_RETURN(ClusterDefinition definition,
//                    ParseClusterDefinition(install_config_text, agent_config_text));
//
// What is checked (docs/agent-based.md lists it with the differences from openshift-install):
// - install-config.yaml alone: apiVersion v1; metadata.name a DNS label; baseDomain; replicas
//   (control plane 1, 3, 4 or 5; single node needs 0 compute, platform none, OVNKubernetes);
//   networks (valid, canonical, not overlapping, hostPrefix fits); platform baremetal or none;
//   VIPs (baremetal: given, inside a machineNetwork, distinct); pullSecret (JSON with auths);
//   imageContentSources/imageDigestSources and their registries' credentials in pullSecret.
// - agent-config.yaml alone: kind AgentConfig, apiVersion v1beta1 (v1alpha1, and the early
//   form with the fields under spec:, accepted); rendezvousIP an IP; hosts: hostname (DNS
//   label, unique), role (master|worker), interfaces (at least one, names and MACs valid, MACs
//   unique across hosts), rootDeviceHints (the keys the reference supports, each checked),
//   networkConfig (NMState, as lib/nmstate reads it; its ethernet interfaces are the ones listed
//   in interfaces[], with the same MAC), static IPs unique across hosts.
// - together: rendezvousIP inside a machineNetwork, a static IP of a master when hosts have
//   static IPs, never a worker's; hosts per role within the replicas; VIPs not a host's IP.
// The rest (trust bundle certificates, mirror repository syntax, NTP sources, proxy URLs) is
// checked by the one builder of discovery Ignitions when the image is made; its messages are
// translated to these files' paths (agent_ignition.h).

#ifndef ASSISTED_SERVICES_GATEWAY_CLI_AGENT_CLUSTER_DEFINITION_H_
#define ASSISTED_SERVICES_GATEWAY_CLI_AGENT_CLUSTER_DEFINITION_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/net/ip.h"
#include "lib/nmstate/network_state.h"

namespace assisted::cli::agent {

inline constexpr char kInstallConfigFile[] = "install-config.yaml";
inline constexpr char kAgentConfigFile[] = "agent-config.yaml";

struct ClusterNetwork {
  net::Cidr cidr;
  int host_prefix = 0;
};

struct ImageContentSource {
  std::string source;
  std::vector<std::string> mirrors;
};

// A VIP and where it was given ("platform.baremetal.apiVIPs[0]" or "platform.baremetal.apiVIP").
struct Vip {
  net::IpAddress ip;
  std::string path;
};

struct InstallConfig {
  std::string cluster_name;
  std::string base_domain;
  int64_t control_plane_replicas = 3;
  int64_t compute_replicas = 0;
  std::string network_type = "OVNKubernetes";
  std::vector<ClusterNetwork> cluster_networks;
  std::vector<net::Cidr> machine_networks;
  std::vector<net::Cidr> service_networks;
  std::string platform;  // "baremetal" or "none"
  std::vector<Vip> api_vips;
  std::vector<Vip> ingress_vips;
  std::string pull_secret;  // JSON
  std::string ssh_key;
  std::string additional_trust_bundle;
  // imageContentSources or imageDigestSources (whichever is given; both is a problem).
  std::string mirror_key;
  std::vector<ImageContentSource> mirrors;
  std::string http_proxy;
  std::string https_proxy;
  std::string no_proxy;
};

struct RootDeviceHints {
  std::string device_name;
  std::string hctl;
  std::string model;
  std::string vendor;
  std::string serial_number;
  std::string wwn;
  std::optional<int64_t> min_size_gigabytes;
  std::optional<bool> rotational;
};

struct HostInterface {
  std::string name;
  std::string mac;  // canonical upper case
};

struct AgentHost {
  std::string hostname;  // may be empty
  std::string role;      // "master", "worker" or empty (assigned at install)
  std::vector<HostInterface> interfaces;
  std::optional<RootDeviceHints> root_device_hints;
  std::string network_yaml;  // NMState document; empty when the host uses DHCP
  std::optional<nmstate::NetworkState> network;
  // Where the host is described, for messages: agent-config.yaml "spec.hosts[1]" or
  // "hosts[1]", or install-config.yaml "platform.baremetal.hosts[1]" when agent-config lists no
  // hosts (as openshift-install does, such a host has one interface, "boot", and uses DHCP).
  std::string file;
  std::string path;
  // The NMState document's field under `path`: "networkConfig", or "spec.config" for an
  // NMStateConfig manifest.
  std::string network_field = "networkConfig";
};

struct AgentConfig {
  std::string name;
  // "spec." when the fields sit under spec: (the early form seed 002 uses), else "".
  std::string prefix;
  net::IpAddress rendezvous_ip = *net::IpAddress::Parse("0.0.0.0");
  std::vector<std::string> ntp_sources;
  // "file: path" of ntp_sources, for messages of later checks (agent_ignition.h).
  std::string ntp_sources_origin;
  std::vector<AgentHost> hosts;
};

// Where the cluster-wide fields were read from, for messages of the checks across files.
struct DefinitionSource {
  std::string file = kInstallConfigFile;  // names, networks, VIPs, replicas
  std::string machine_network = "machineNetwork";
  std::string control_plane_replicas = "controlPlane.replicas";
  std::string compute_replicas = "compute replicas";
};

struct ClusterDefinition {
  InstallConfig install;
  AgentConfig agent;
  DefinitionSource source;
  // The release image node 0 installs and the hosts check they can pull (through the mirrors
  // of install.mirrors); empty: node 0's orchestrator's default. Given on the command line
  // (--release-image, or OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE as openshift-install reads
  // it), not in the files; set with WithReleaseImage.
  std::string release_image;
  // The hosts the installation waits for: control plane plus compute replicas.
  int64_t expected_hosts() const {
    return install.control_plane_replicas + install.compute_replicas;
  }
};

// The command line's release image for `definition`: an image reference, which the hosts can
// pull through install-config's mirrors when a mirror takes it (imageContentSources and
// imageDigestSources mirror pulls by digest only, so a tag of a mirrored repository would go
// to its source). INVALID_ARGUMENT "--release-image: ..." otherwise.
inline constexpr char kReleaseImageFlag[] = "--release-image";
absl::Status WithReleaseImage(const std::string& release_image, ClusterDefinition& definition);

// Reads and checks both files. INVALID_ARGUMENT with one "file: path: problem" line per problem.
absl::StatusOr<ClusterDefinition> ParseClusterDefinition(absl::string_view install_config_yaml,
                                                         absl::string_view agent_config_yaml);

// The ZTP manifests of DIR/cluster-manifests/, read instead of install-config.yaml (as
// openshift-install agent does when there is no install-config.yaml). Named as in messages:
inline constexpr char kZtpDir[] = "cluster-manifests/";
inline constexpr char kAgentClusterInstallFile[] = "agent-cluster-install.yaml";
inline constexpr char kClusterDeploymentFile[] = "cluster-deployment.yaml";
inline constexpr char kInfraEnvFile[] = "infraenv.yaml";
inline constexpr char kNmStateConfigFile[] = "nmstateconfig.yaml";
inline constexpr char kPullSecretFile[] = "pull-secret.yaml";

// Reads and checks the manifests (file name in cluster-manifests/ -> text; every file but
// nmstateconfig.yaml required) with agent-config.yaml (`agent_config_yaml`, nullopt when there
// is none: rendezvousIP is then the first static IP of the NMStateConfigs). What is read:
//   cluster-deployment.yaml     ClusterDeployment: spec.clusterName, baseDomain, the
//                               references to the AgentClusterInstall and the Secret
//   agent-cluster-install.yaml  AgentClusterInstall: spec.networking (as install-config's),
//                               provisionRequirements, apiVIP(s), ingressVIP(s),
//                               sshPublicKey, platformType (BareMetal|None)
//   infraenv.yaml               InfraEnv: clusterRef, pullSecretRef, sshAuthorizedKey (the
//                               same key as sshPublicKey when both are given),
//                               additionalNTPSources, nmStateConfigLabelSelector, cpuArchitecture
//   nmstateconfig.yaml          NMStateConfigs (any number of documents), each carrying the
//                               InfraEnv's selector labels: spec.config (NMState) and
//                               spec.interfaces; a host per document, unless agent-config.yaml
//                               lists hosts: then each NMStateConfig is the networkConfig of the
//                               agent-config host with its MACs (the same one when both give it)
//   pull-secret.yaml            Secret: stringData or data (base64) .dockerconfigjson
// The same checks as ParseClusterDefinition then apply. Fields this product does not read
// (ClusterImageSet and imageSetRef, proxy, trust bundle, ignitionConfigOverride, ...) and any
// other file are refused, naming the file and field. INVALID_ARGUMENT as above, each line
// "cluster-manifests/<file>: path: problem".
absl::StatusOr<ClusterDefinition> ParseZtpClusterDefinition(
    const std::map<std::string, std::string>& manifests,
    const std::optional<std::string>& agent_config_yaml);

}  // namespace assisted::cli::agent

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_AGENT_CLUSTER_DEFINITION_H_
