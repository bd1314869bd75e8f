// File: lib/ignition/discovery_ignition.h
//
// The discovery Ignition of an infra-env: what a host booted from the discovery image needs to
// run our agent and reach the orchestrator (reference agent-and-image.md §1.1, §5, §7).
//
//   ASSIGN_OR_RETURN(DiscoveryIgnition ignition,
//                    BuildDiscoveryIgnition(infra_env, pull_secret, settings));
//   // ignition.config goes into the ISO embed area / PXE initrd as config.ign,
//   // ignition.kernel_arguments into the ISO kargs areas / iPXE kernel line.
//
// The config (Ignition spec 3.2.0, canonical JSON) holds:
// - assisted-agent.service (enabled): runs the agent with --orchestrator-address and
//   --infra-env-id (and --ca-bundle or --tls), restarting every 3 s forever, after
//   network-online.target; proxy variables as Environment= lines;
// - /etc/assisted/agent.env (0600): ASSISTED_AGENT_TOKEN (and the proxy variables instead, when a
//   proxy URL carries credentials), read through EnvironmentFile=;
// - /etc/assisted/ca.pem: the CA bundle that signs the orchestrator;
// - /root/.docker/config.json (0600): the pull secret;
// - user core with the infra-env's SSH keys; ignition.proxy;
// - extra NTP servers: /etc/chrony.d/assisted-ntp-sources.conf plus a chronyd.service drop-in
//   that makes /etc/chrony.conf read /etc/chrony.d;
// - the additional trust bundle in /etc/pki/ca-trust/source/anchors/ and, one entry per
//   certificate, in ignition.security.tls.certificateAuthorities;
// - the user's ignition_config_override as an ignition.config.merge entry (a data URL);
// - static networking (§5): per host i, /etc/assisted/network/host<i>/<iface>.nmconnection and
//   mac_interface.ini (MAC=logical name), the MAC-matching script
//   /usr/local/bin/pre-network-manager-config.sh (0755) and the oneshot
//   pre-network-manager-config.service ordered before NetworkManager.service.
//
// - mirror registries: /etc/containers/registries.conf (version 2: one [[registry]] per source
//   with its [[registry.mirror]] entries in order) and their CA bundle in
//   /etc/pki/ca-trust/source/anchors/assisted-mirror-registries.pem.
//
// Kernel arguments are not in the config: Ignition cannot change the kernel command line of a
// live (ISO/PXE) system and fails the boot when asked to. They are returned for the kargs areas.
//
// Every error is INVALID_ARGUMENT naming the field ("infra_env.proxy.http_proxy: ...",
// "infra_env.static_network_config[1].network_yaml: nmstate: interfaces[0].type: ...",
// "settings.orchestrator_address: ..."); secrets never appear in messages.

#ifndef ASSISTED_LIB_IGNITION_DISCOVERY_IGNITION_H_
#define ASSISTED_LIB_IGNITION_DISCOVERY_IGNITION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "lib/ignition/discovery_layout.h"

namespace assisted::discovery {

// What the image service (or aictl, for the agent-based installer) knows that the infra-env
// does not.
struct DiscoveryIgnitionSettings {
  // host:port of the orchestrator's AgentService as hosts reach it. Required.
  std::string orchestrator_address;
  // Infra-env scoped agent token; empty when agent authentication is off.
  std::string agent_token;
  // PEM bundle that signs the orchestrator's certificate; empty: none (see `tls`).
  std::string ca_bundle_pem;
  // TLS towards the orchestrator verified with the system roots (implied by ca_bundle_pem).
  bool tls = false;
  // Where the agent binary is on the discovery image.
  std::string agent_binary_path = "/usr/local/bin/assisted-agent";
  // Agent version, shown in the unit's description; empty for none.
  std::string agent_version;
};

struct DiscoveryIgnition {
  std::string config;  // Ignition JSON (spec 3.2.0)
  // Arguments to append to the live kernel command line (APPEND edits, in order).
  std::vector<std::string> kernel_arguments;
  // For the initramfs of minimal-ISO and PXE boots, which must reach the network before it can
  // fetch the rootfs (reference §5): a gzip'd newc cpio (zero-padded to 4 bytes) holding the
  // static-network files above plus pre-network-manager-config.service enabled through
  // initrd.target.wants (ordered before coreos-copy-firstboot-network.service), and, with a
  // proxy, a coreos-livepxe-rootfs.service drop-in setting it. Empty when there is neither.
  std::string initrd_archive;
};

// A file the discovery image carries for static networking.
struct NetworkFile {
  std::string path;  // absolute, on the discovery image
  uint32_t mode;
  std::string contents;
};

// The static-network files of `infra_env` (§5), as the config above writes them: per host i,
// kNetworkConfigDir/host<i>/<iface>.nmconnection (0600) and mac_interface.ini (0644), then the
// MAC-matching script. Empty without static networking; INVALID_ARGUMENT naming the field
// ("infra_env.static_network_config[1].network_yaml: ...") for a config they cannot be made of.
absl::StatusOr<std::vector<NetworkFile>> StaticNetworkFiles(const types::v1::InfraEnv& infra_env);

// Builds the discovery Ignition for `infra_env` (id required). `pull_secret` is the infra-env's
// (write-only in the proto) pull secret JSON; empty writes none.
absl::StatusOr<DiscoveryIgnition> BuildDiscoveryIgnition(const types::v1::InfraEnv& infra_env,
                                                         absl::string_view pull_secret,
                                                         const DiscoveryIgnitionSettings& settings);

// The checks BuildDiscoveryIgnition applies to what the infra-env itself holds (proxy, NTP
// sources, trust bundle, mirror registries, Ignition override, static networking, kernel
// arguments), with the same messages, without building anything. The id is not checked: the
// gateway runs this on an infra-env before the inventory gives it one, so that a create refuses
// what could never become a discovery image.
absl::Status CheckDiscoveryInputs(const types::v1::InfraEnv& infra_env);

// The layout the config writes (lib/ignition/discovery_layout.h), under the names its tests use.
using discovery_layout::kAgentCaBundlePath;
using discovery_layout::kAgentEnvPath;
using discovery_layout::kAgentUnitName;
using discovery_layout::kMirrorCaPath;
using discovery_layout::kNetworkConfigDir;
using discovery_layout::kNetworkScriptPath;
using discovery_layout::kNetworkUnitName;
using discovery_layout::kPullSecretPath;
using discovery_layout::kRegistriesConfPath;

}  // namespace assisted::discovery

#endif  // ASSISTED_LIB_IGNITION_DISCOVERY_IGNITION_H_
