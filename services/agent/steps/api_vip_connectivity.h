// File: services/agent/steps/api_vip_connectivity.h
//
// api-vip-connectivity-check (day-2): can this host fetch its Ignition from the existing
// cluster's machine config server, as it will have to on first boot.
//   args:   [{"url": "http://api.c.example.com:22623/config/worker",
//             "ca_certificate": <base64 PEM, optional>, "ignition_endpoint_token": <optional>}]
//   output: {"is_success": bool, "url", "ignition": <the config's version only>,
//            "download_error": <why not, when not>}; exit code 0 either way (the answer is the
//            result), -1 for bad arguments.
// One GET with `Accept: application/vnd.coreos.ignition+json; version=3.2.0`, a bearer token
// when given, the CA when given (else system roots), at most `timeout`; success is a 200 whose
// body is JSON with ignition.version. The config itself (secrets) is never echoed back.
//
// In simulation the URL's host name goes through the simulated resolver: a name the profile
// resolves serves a minimal 3.2.0 config, any other fails as an unknown host would.

#ifndef ASSISTED_SERVICES_AGENT_STEPS_API_VIP_CONNECTIVITY_H_
#define ASSISTED_SERVICES_AGENT_STEPS_API_VIP_CONNECTIVITY_H_

#include "absl/time/time.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

struct ApiVipConnectivityOptions {
  absl::Duration timeout = absl::Seconds(30);
};

class ApiVipConnectivityCheck final : public StepExecutor {
 public:
  explicit ApiVipConnectivityCheck(ApiVipConnectivityOptions options) : options_(options) {}

  StepType type() const override { return types::v1::STEP_TYPE_API_VIP_CONNECTIVITY_CHECK; }
  absl::Duration default_timeout() const override { return absl::Minutes(1); }
  StepResult Run(const Step& step, StepContext& context) override;

 private:
  const ApiVipConnectivityOptions options_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_API_VIP_CONNECTIVITY_H_
