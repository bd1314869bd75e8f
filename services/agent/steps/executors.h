// File: services/agent/steps/executors.h
//
// Every step executor the agent runs, built from one configuration; what the composition root
// hands to StepRunner::Create.
//
//   ExecutorsConfig config;
//   config.connectivity.probe.tcp_port = flags.probe_port;
//   ASSIGN_OR_RETURN(auto runner, StepRunner::Create(
//       {}, MakeExecutors(config, collect_inventory), environment, send_result));

#ifndef ASSISTED_SERVICES_AGENT_STEPS_EXECUTORS_H_
#define ASSISTED_SERVICES_AGENT_STEPS_EXECUTORS_H_

#include <memory>
#include <vector>

#include "services/agent/steps/api_vip_connectivity.h"
#include "services/agent/steps/connectivity_check.h"
#include "services/agent/steps/disk_speed.h"
#include "services/agent/steps/domain_resolution.h"
#include "services/agent/steps/free_addresses.h"
#include "services/agent/steps/host_commands.h"
#include "services/agent/steps/image_availability.h"
#include "services/agent/steps/install.h"
#include "services/agent/steps/inventory_step.h"
#include "services/agent/steps/logs_gather.h"
#include "services/agent/steps/ntp_synchronizer.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

struct ExecutorsConfig {
  ConnectivityCheckOptions connectivity;
  FreeAddressesOptions free_addresses;
  NtpSynchronizerOptions ntp;
  DomainResolutionOptions domains;
  ImageAvailabilityOptions images;
  DiskSpeedOptions disk_speed;
  ApiVipConnectivityOptions api_vip;
  LogsGatherOptions logs;
  StopInstallationOptions stop_installation;
  RebootOptions reboot;
  InstallOptions install;
};

// inventory, connectivity-check, free-network-addresses, ntp-synchronizer, domain-resolution,
// container-image-availability, installation-disk-speed-check, api-vip-connectivity-check,
// logs-gather, stop-installation, reboot-for-reclaim and install. Other step types
// (dhcp-lease-allocate, ...) have no executor yet, so the runner answers them with -1.
std::vector<std::unique_ptr<StepExecutor>> MakeExecutors(ExecutorsConfig config,
                                                         InventoryCollector inventory);

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_EXECUTORS_H_
