// File: services/agent/steps/domain_resolution.h
//
// domain-resolution: what this host's resolver says about the cluster's names.
//   args:   [{"domains": [{"domain_name": "api.cluster.example.com"}, ...]}]
//   output: {"resolutions": [{"domain_name", "ipv4_addresses", "ipv6_addresses", "cnames"}]}
//           in request order.
// Each name goes through getaddrinfo (the real resolver: /etc/hosts, DNS, search rules) with
// AI_CANONNAME; the canonical name, when it differs, is the one CNAME reported. A name that does
// not resolve (NXDOMAIN, no data, resolver unreachable) gets empty lists: not an error.

#ifndef ASSISTED_SERVICES_AGENT_STEPS_DOMAIN_RESOLUTION_H_
#define ASSISTED_SERVICES_AGENT_STEPS_DOMAIN_RESOLUTION_H_

#include <cstddef>
#include <string>

#include "services/agent/steps/simulation.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

struct DomainResolutionOptions {
  size_t max_domains = 64;
  size_t max_parallel = 8;  // lookups at once
};

// Resolves `name` with getaddrinfo. Failures read as "no addresses".
ResolvedName ResolveName(const std::string& name);

class DomainResolution final : public StepExecutor {
 public:
  explicit DomainResolution(DomainResolutionOptions options) : options_(options) {}

  StepType type() const override { return types::v1::STEP_TYPE_DOMAIN_RESOLUTION; }
  absl::Duration default_timeout() const override { return absl::Minutes(2); }
  StepResult Run(const Step& step, StepContext& context) override;

 private:
  const DomainResolutionOptions options_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_DOMAIN_RESOLUTION_H_
