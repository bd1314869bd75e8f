// File: services/agent/steps/connectivity_check.h
//
// connectivity-check: how well this host reaches every address of the other hosts.
//   args:   [JSON list of {"host_id", "nics": [{"name", "mac", "ip_addresses": ["ip/prefix"]}]}]
//   output: {"remote_hosts": [{"host_id", "l2_connectivity": [...], "l3_connectivity": [...],
//            "mtu_report": []}]}, hosts sorted by id, probes by address (then MAC).
// L3, per remote address: `probes_per_address` probes (ICMP echo where permitted, else TCP to
// the agents' probe port; see net_probe.h) -> {remote_ip_address, successful, average_rtt_ms,
// packet_loss_percentage}. L2, per remote IPv4 address, after probing: the kernel's neighbour
// entry for it -> {outgoing_nic, outgoing_ip_address, remote_ip_address, remote_mac,
// successful = the MAC is one of that host's NICs}; no entry, no L2 record (not on-link).
// MTU checks are not made (mtu_report stays empty).

#ifndef ASSISTED_SERVICES_AGENT_STEPS_CONNECTIVITY_CHECK_H_
#define ASSISTED_SERVICES_AGENT_STEPS_CONNECTIVITY_CHECK_H_

#include <cstddef>
#include <string>

#include "absl/time/time.h"
#include "services/agent/steps/neighbours.h"
#include "services/agent/steps/net_probe.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

struct ConnectivityCheckOptions {
  ProbeOptions probe;
  int probes_per_address = 5;
  absl::Duration probe_timeout = absl::Seconds(2);
  absl::Duration probe_interval = absl::Milliseconds(200);  // between probes to one address
  size_t max_parallel = 32;                                 // addresses probed at once
  size_t max_hosts = 1000;
  size_t max_addresses = 4096;  // over all hosts
  std::string neighbour_table = kProcNetArp;
};

class ConnectivityCheck final : public StepExecutor {
 public:
  explicit ConnectivityCheck(ConnectivityCheckOptions options);

  StepType type() const override { return types::v1::STEP_TYPE_CONNECTIVITY_CHECK; }
  absl::Duration default_timeout() const override { return absl::Minutes(5); }
  StepResult Run(const Step& step, StepContext& context) override;

 private:
  const ConnectivityCheckOptions options_;
  const Prober prober_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_CONNECTIVITY_CHECK_H_
