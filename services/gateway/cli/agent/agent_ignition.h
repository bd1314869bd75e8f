// File: services/gateway/cli/agent/agent_ignition.h
//
// The one Ignition config every host of an agent-based install boots with (it goes into the
// ISO's embed area). It is the discovery Ignition the image service makes for an infra-env
// (lib/ignition/discovery_ignition.h: the agent, static networking by MAC applied before
// NetworkManager starts, registries.conf for the mirrors, the trust bundle, SSH key, pull
// secret, NTP, proxy), built from the cluster definition with the agent pointed at
// rendezvousIP:9090, plus what the agent-based flow adds:
// - /etc/assisted/rendezvous-host.env: NODE_ZERO_IP, ORCHESTRATOR_ADDRESS, GATEWAY_URL,
//   INFRA_ENV_ID, EXPECTED_HOSTS;
// - /etc/assisted/cluster.json: the cluster to create on node 0 (REST field names, see
//   ClusterJson) with the hosts' roles, host names and root device hints by MAC;
// - /etc/assisted/hostnames/<mac>: the host name of the host with that MAC, set by
//   assisted-set-hostname.service before NetworkManager starts;
// - assisted-node-zero.service: after the network is up, writes /etc/assisted/node0
//   (BOOTSTRAP_HOST_MAC=<mac>) on the host holding rendezvousIP; node 0's services are
//   conditioned on that file;
// - /etc/assisted/credentials/{tls/root-ca.crt,tls/root-ca.key,kubeconfig,kubeadmin-password}
//   (0600), and jwt.key, node 0's gateway's token key: the credentials written to DIR/auth, under
//   the names the orchestrator stores them as inventory artifacts
//   (services/orchestrator/install/artifacts.h). Node 0 stores them before the install starts, and
//   the orchestrator derives everything from a stored root CA, so the cluster trusts
//   DIR/auth/kubeconfig. Every host carries them: there is one image.
// - node 0's services as units conditioned on /etc/assisted/node0 (NodeZeroUnitNames, in start
//   order): PostgreSQL (initdb once under /var/lib/assisted, a unix socket only), the inventory,
//   orchestrator, image service and gateway (loopback listeners, except the agent port and the
//   gateway's HTTP port on rendezvousIP), and `aictl agent run-node-zero`
//   (node_zero_registrar.h). The OS image node 0 hands out and the base images of its image
//   service come from the live image: kNodeZeroImagesEnvPath. /etc/assisted/credentials also
//   holds url.key (the image service's and gateway's signing key) and secrets.key (the
//   inventory's) for them.
// Errors of the discovery builder are translated to the user's files ("infra_env.
// additional_trust_bundle: ..." becomes "install-config.yaml: additionalTrustBundle: ...").

#ifndef ASSISTED_SERVICES_GATEWAY_CLI_AGENT_AGENT_IGNITION_H_
#define ASSISTED_SERVICES_GATEWAY_CLI_AGENT_AGENT_IGNITION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/pki/pki.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/agent/cluster_definition.h"

namespace assisted::cli::agent {

// Ports node 0 serves on rendezvousIP (the product's defaults, README "Ports").
inline constexpr int kAgentPort = 9090;
inline constexpr int kGatewayPort = 8080;

inline constexpr char kRendezvousEnvPath[] = "/etc/assisted/rendezvous-host.env";
inline constexpr char kClusterJsonPath[] = "/etc/assisted/cluster.json";
// With a release image given (ClusterDefinition::release_image): node 0's orchestrator's
// release catalog (ASSISTED_RELEASE_IMAGES), that image for kOpenshiftVersion on x86_64.
inline constexpr char kReleaseImageEnvPath[] = "/etc/assisted/release-image.env";
inline constexpr char kHostnamesDir[] = "/etc/assisted/hostnames";
inline constexpr char kNodeZeroMarkerPath[] = "/etc/assisted/node0";
inline constexpr char kNodeZeroUnitName[] = "assisted-node-zero.service";
inline constexpr char kSetHostnameUnitName[] = "assisted-set-hostname.service";
inline constexpr char kCredentialsDir[] = "/etc/assisted/credentials";
// Provided by the live image, not the ISO's Ignition: ASSISTED_OS_IMAGE_URL and
// ASSISTED_OS_IMAGE_SHA256 (what node 0's orchestrator installs), ASSISTED_OS_IMAGES and
// ASSISTED_DEFAULT_OPENSHIFT_VERSION (its image service's base images), systemd
// EnvironmentFile syntax (a JSON value in single quotes).
inline constexpr char kNodeZeroImagesEnvPath[] = "/usr/share/assisted/node-zero-images.env";
// The OpenShift version node 0 registers the cluster with; the release installed is the
// orchestrator's (--os-image-url), whatever the version says.
inline constexpr char kOpenshiftVersion[] = "4.16";

// Node 0's units, in the order they start (each After= the one before).
const std::vector<std::string>& NodeZeroUnitNames();

// What `agent create image` makes once for a cluster.
struct AgentImageIdentity {
  // UUIDs node 0 creates the cluster and infra-env with: the agents register under the
  // infra-env, and `wait-for` follows the cluster, both before node 0 exists.
  std::string cluster_id;
  std::string infra_env_id;
  pki::ClusterCredentials credentials;
  // HS256 key of node 0's gateway (--jwt-secret-file), with which `wait-for` signs its tokens.
  std::string gateway_jwt_secret;
  // Node 0's image service's and gateway's URL signing key, and its inventory's secrets key
  // (base64 of 32 random bytes each).
  std::string url_signing_key;
  std::string secrets_key;
};

// The user `wait-for` and node 0's own registration act as on node 0's gateway (user and
// organisation), so the cluster they create is theirs to read.
inline constexpr char kAgentInstallerUser[] = "agent-installer";

// "host:port" (IPv6 in brackets) of `ip` and `port`.
std::string HostPort(const net::IpAddress& ip, int port);

// The cluster node 0 creates: {"cluster_id", "cluster": REST cluster-create fields, "infra_env_id",
// "expected_hosts", "rendezvous_ip", "hosts": [{"macs", "hostname", "role",
// "root_device_hints"}]}. No secrets (the pull secret is in /root/.docker/config.json).
nlohmann::ordered_json ClusterJson(const ClusterDefinition& definition,
                                   const AgentImageIdentity& identity);

// The Ignition config (canonical JSON, spec 3.2.0). INVALID_ARGUMENT naming the user's file and
// field for what only the discovery builder checks.
absl::StatusOr<std::string> BuildAgentIgnition(const ClusterDefinition& definition,
                                               const AgentImageIdentity& identity);

}  // namespace assisted::cli::agent

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_AGENT_AGENT_IGNITION_H_
