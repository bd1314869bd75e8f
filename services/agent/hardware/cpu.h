// File: services/agent/hardware/cpu.h
//
// Processor and memory summaries: /proc/cpuinfo (count, model, flags, clock), cpufreq's maximum
// clock, /proc/meminfo and the memory blocks of /sys/devices/system/memory.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_CPU_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_CPU_H_

#include "absl/strings/string_view.h"
#include "assisted/types/v1/hardware.pb.h"
#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

// count = "processor" entries (else the sys/devices/system/cpu/online list); model_name; flags
// ("flags", or "Features" on Arm); frequency = the highest of cpufreq's cpuinfo_max_freq and the
// "cpu MHz" lines. architecture = `architecture` when given, else proc/sys/kernel/arch, else
// what cpuinfo implies ("x86_64", "aarch64", "ppc64le", "s390x"), else "".
types::v1::Cpu CollectCpu(const HostRoot& root, absl::string_view architecture);

// Whether `cpu` reports `flag` (e.g. "hypervisor" inside a virtual machine).
bool HasCpuFlag(const types::v1::Cpu& cpu, absl::string_view flag);

// usable_bytes = MemTotal. physical_bytes = online memory blocks × block size (method GHW, as
// the reference's hardware library counts), else MemTotal (method MEMINFO). Empty when
// /proc/meminfo is unreadable and there are no memory blocks.
types::v1::Memory CollectMemory(const HostRoot& root);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_CPU_H_
