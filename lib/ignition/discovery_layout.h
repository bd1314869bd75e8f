// File: lib/ignition/discovery_layout.h
//
// Where the discovery Ignition puts things on a host booted from a discovery image. The image
// service and aictl write this layout (lib/ignition/discovery_ignition.h) and the agent's boot
// tooling reads it back out of a discovery ISO (services/agent/boot/discovery_media.h), so both
// take the names from here rather than one reaching into the other's internals. Changing a value
// changes what already-built images contain: old images keep the old layout.

#ifndef ASSISTED_LIB_IGNITION_DISCOVERY_LAYOUT_H_
#define ASSISTED_LIB_IGNITION_DISCOVERY_LAYOUT_H_

namespace assisted::discovery_layout {

// The systemd unit that runs the agent.
inline constexpr char kAgentUnitName[] = "assisted-agent.service";
// EnvironmentFile= of the agent unit (0600): the agent token, credentialed proxy variables.
inline constexpr char kAgentEnvPath[] = "/etc/assisted/agent.env";
// The CA bundle that signs the orchestrator.
inline constexpr char kAgentCaBundlePath[] = "/etc/assisted/ca.pem";
inline constexpr char kPullSecretPath[] = "/root/.docker/config.json";
// Static networking: per-host keyfiles under host<i>/, the MAC-matching script and its unit.
inline constexpr char kNetworkConfigDir[] = "/etc/assisted/network";
inline constexpr char kNetworkScriptPath[] = "/usr/local/bin/pre-network-manager-config.sh";
inline constexpr char kNetworkUnitName[] = "pre-network-manager-config.service";
// Mirror registries and their CA bundle.
inline constexpr char kRegistriesConfPath[] = "/etc/containers/registries.conf";
inline constexpr char kMirrorCaPath[] =
    "/etc/pki/ca-trust/source/anchors/assisted-mirror-registries.pem";

}  // namespace assisted::discovery_layout

#endif  // ASSISTED_LIB_IGNITION_DISCOVERY_LAYOUT_H_
