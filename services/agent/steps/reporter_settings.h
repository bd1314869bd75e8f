// File: services/agent/steps/reporter_settings.h
//
// What the installed OS's post-reboot reporter (services/agent/post_reboot.h, the role
// upstream's assisted-installer-controller plays) needs to report the host's last stages: how
// to reach the orchestrator, the cluster-scoped controller token, and which host of which
// cluster it is. The install step writes it to the boot partition as assisted/reporter.json
// (mode 0600: the token is a secret), next to the install record; assisted-reporter reads it at
// first boot and removes it once everything is reported.
//
// assisted/reporter.json, one JSON object:
//   {"orchestrator_address": "host:port",   the agent's own --orchestrator-address
//    "tls": true | false,                   TLS towards it (implied by a CA bundle)
//    "ca_bundle": "<PEM>" | "",             the CA bundle the agent trusted, inline
//    "controller_token": "<token>",         Instruction.controller_token of the install step
//    "infra_env_id": "<uuid>", "cluster_id": "<uuid>", "host_id": "<uuid>",
//    "role": "master" | "worker", "bootstrap": bool,
//    "high_availability_mode": "Full" | "None",
//    "olm_operators": ["lvm", ...]}         optional: the install step's olm_operators

#ifndef ASSISTED_SERVICES_AGENT_STEPS_REPORTER_SETTINGS_H_
#define ASSISTED_SERVICES_AGENT_STEPS_REPORTER_SETTINGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::agent::steps {

// How the installed OS reaches the orchestrator's ControllerService: what the agent that ran
// the install step knows (its flags and the install step's Instruction).
struct ControllerAccess {
  std::string orchestrator_address;  // host:port of the agent port
  bool tls = false;
  std::string ca_bundle_pem;     // empty: system roots (with tls) or none
  std::string controller_token;  // a secret: never logged
  std::string infra_env_id;
};

struct ReporterSettings {
  ControllerAccess access;
  std::string cluster_id;
  std::string host_id;
  std::string role;  // "master" or "worker"
  bool bootstrap = false;
  bool sno = false;                        // high_availability_mode "None"
  std::vector<std::string> olm_operators;  // reported by the bootstrap host while finalizing
};

// The JSON text above.
std::string ReporterSettingsJson(const ReporterSettings& settings);

// Parses the JSON text above. INVALID_ARGUMENT naming the missing or malformed field.
absl::StatusOr<ReporterSettings> ParseReporterSettings(absl::string_view text);

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_REPORTER_SETTINGS_H_
