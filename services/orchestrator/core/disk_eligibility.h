// File: services/orchestrator/core/disk_eligibility.h
//
// Whether a disk may hold the OS. The agent judges what it can see on the machine
// (installation_eligibility); the service adds what depends on the cluster: the role's minimum
// size, the drive types the OpenShift version and CPU architecture support (from the
// requirements file), multipath members, and iSCSI disks without a usable host address.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_DISK_ELIGIBILITY_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_DISK_ELIGIBILITY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "assisted/types/v1/hardware.pb.h"
#include "lib/version/ocp_version.h"
#include "services/orchestrator/core/hw_requirements.h"

namespace assisted::orchestrator::core {

struct DiskPolicy {
  int64_t min_size_gb = 0;
  const HwRequirements* requirements = nullptr;  // required
  version::OcpVersion version;
  std::string architecture;
};

// The service-side reasons `disk` (of `inventory`) cannot be the installation disk, as
// sentences a user can act on; empty when there are none.
std::vector<std::string> ServiceIneligibility(const types::v1::Disk& disk,
                                              const types::v1::Inventory& inventory,
                                              const DiskPolicy& policy);

// Eligible for the agent and for the service.
bool DiskEligible(const types::v1::Disk& disk, const types::v1::Inventory& inventory,
                  const DiskPolicy& policy);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_DISK_ELIGIBILITY_H_
