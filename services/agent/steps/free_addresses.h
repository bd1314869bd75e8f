// File: services/agent/steps/free_addresses.h
//
// free-network-addresses: which addresses of the given networks nobody uses (VIP candidates).
//   args:   [JSON list of canonical IPv4 CIDRs, e.g. ["192.168.111.0/24"]]
//   output: [{"network", "free_addresses": ["192.168.111.7", ...]}] in argument order.
// Every host address (not the network and broadcast addresses of blocks up to /30) gets one
// probe (net_probe.h), `max_parallel` at a time; afterwards the neighbour table is read, and an
// address counts as used if it answered the probe or answered ARP (firewalled hosts still do).
// The total number of addresses of one step is capped (max_addresses): larger requests are
// refused with -1 rather than scanned for minutes. IPv6 networks are skipped (no entry).

#ifndef ASSISTED_SERVICES_AGENT_STEPS_FREE_ADDRESSES_H_
#define ASSISTED_SERVICES_AGENT_STEPS_FREE_ADDRESSES_H_

#include <cstddef>
#include <string>

#include "absl/time/time.h"
#include "services/agent/steps/neighbours.h"
#include "services/agent/steps/net_probe.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

struct FreeAddressesOptions {
  ProbeOptions probe;
  absl::Duration probe_timeout = absl::Seconds(1);
  size_t max_parallel = 64;
  size_t max_addresses = 4096;  // a /20; the reference scans at most /22 chunks
  size_t max_networks = 16;
  std::string neighbour_table = kProcNetArp;
};

class FreeAddresses final : public StepExecutor {
 public:
  explicit FreeAddresses(FreeAddressesOptions options);

  StepType type() const override { return types::v1::STEP_TYPE_FREE_NETWORK_ADDRESSES; }
  absl::Duration default_timeout() const override { return absl::Minutes(5); }
  StepResult Run(const Step& step, StepContext& context) override;

 private:
  const FreeAddressesOptions options_;
  const Prober prober_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_FREE_ADDRESSES_H_
