// File: services/agent/steps/executors.cc

#include "services/agent/steps/executors.h"

#include <utility>

namespace assisted::agent::steps {

std::vector<std::unique_ptr<StepExecutor>> MakeExecutors(ExecutorsConfig config,
                                                         InventoryCollector inventory) {
  std::vector<std::unique_ptr<StepExecutor>> out;
  out.push_back(std::make_unique<InventoryStep>(std::move(inventory)));
  out.push_back(std::make_unique<ConnectivityCheck>(std::move(config.connectivity)));
  out.push_back(std::make_unique<FreeAddresses>(std::move(config.free_addresses)));
  out.push_back(std::make_unique<NtpSynchronizer>(std::move(config.ntp)));
  out.push_back(std::make_unique<DomainResolution>(config.domains));
  out.push_back(std::make_unique<ImageAvailability>(std::move(config.images)));
  out.push_back(std::make_unique<DiskSpeedCheck>(config.disk_speed));
  out.push_back(std::make_unique<ApiVipConnectivityCheck>(config.api_vip));
  out.push_back(std::make_unique<LogsGather>(std::move(config.logs)));
  out.push_back(std::make_unique<StopInstallation>(std::move(config.stop_installation)));
  out.push_back(std::make_unique<InstallStep>(config.install));
  out.push_back(std::make_unique<RebootForReclaim>(std::move(config.reboot)));
  return out;
}

}  // namespace assisted::agent::steps
