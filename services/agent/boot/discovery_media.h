// File: services/agent/boot/discovery_media.h
//
// What a host learns from the discovery image it boots: the orchestrator to dial, the infra-env
// it belongs to, its agent token and the CA bundle, all read from the image's embedded Ignition
// exactly as the live system would see them (the agent unit's command line, its environment
// file, the CA bundle file). Simulated hosts use this to "boot" a downloaded ISO, so a demo or a
// test exercises the very bytes the image service spliced in rather than settings passed aside.

#ifndef ASSISTED_SERVICES_AGENT_BOOT_DISCOVERY_MEDIA_H_
#define ASSISTED_SERVICES_AGENT_BOOT_DISCOVERY_MEDIA_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::agent::boot {

struct DiscoverySettings {
  std::string orchestrator_address;  // host:port of the AgentService
  std::string infra_env_id;
  std::string agent_token;    // empty when the image carries none
  std::string ca_bundle_pem;  // empty unless the image pins a CA
  bool tls = false;           // --tls or a CA bundle on the agent's command line
};

// Settings from a discovery Ignition config (spec 3.x JSON). INVALID_ARGUMENT naming what is
// missing when the config has no agent unit or its command line lacks the orchestrator address
// or the infra-env id.
absl::StatusOr<DiscoverySettings> SettingsFromIgnition(absl::string_view config_json);

// Settings from a discovery ISO at `path`: its Ignition embed area, then SettingsFromIgnition.
absl::StatusOr<DiscoverySettings> SettingsFromIso(const std::string& path);

}  // namespace assisted::agent::boot

#endif  // ASSISTED_SERVICES_AGENT_BOOT_DISCOVERY_MEDIA_H_
