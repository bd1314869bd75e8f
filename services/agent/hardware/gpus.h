// File: services/agent/hardware/gpus.h
//
// GPUs and accelerators: PCI functions of class 03xx (display controllers: VGA, 3D, other) and
// 1200 (processing accelerators) under sys/bus/pci/devices, named from the pci.ids database
// when the root has one.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_GPUS_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_GPUS_H_

#include <vector>

#include "assisted/types/v1/hardware.pb.h"
#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

// Sorted by PCI address; vendor_id/device_id as four lower-case hex digits ("10de"); vendor and
// name empty when pci.ids does not list them.
std::vector<types::v1::Gpu> CollectGpus(const HostRoot& root);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_GPUS_H_
