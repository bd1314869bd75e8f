// File: services/agent/hardware/firmware.h
//
// What the firmware tells about the machine: how it booted (UEFI or BIOS, Secure Boot, kernel
// command line, PXE interface, live or installed OS), who made it (DMI) and whether it is a
// virtual machine, and its TPM.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_FIRMWARE_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_FIRMWARE_H_

#include "assisted/types/v1/hardware.pb.h"
#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

// current_boot_mode: UEFI when sys/firmware/efi exists, else BIOS. secure_boot_state from the
// SecureBoot EFI variable (4 attribute bytes + 1 value byte): ENABLED/DISABLED; NOT_SUPPORTED on
// BIOS or when the variable is absent; UNKNOWN when efivars is not mounted or the variable is
// malformed. command_line and pxe_interface (BOOTIF=01-aa-bb-... -> "aa:bb:...") from
// proc/cmdline. device_type: EPHEMERAL when /sysroot is mounted from a loop device (the live
// image), PERSISTENT when from anything else, unset without a /sysroot mount.
types::v1::Boot CollectBoot(const HostRoot& root);

// DMI sys_vendor, product_name, product_serial; the reference's platform fix-ups (an oVirt/RHV
// product family reports product "oVirt"; chassis asset tag "OracleCloud.com" is the
// manufacturer). virtual when `hypervisor_flag` (the CPU's "hypervisor" flag) is set or the
// vendor or product names a hypervisor (KVM, QEMU, VMware, VirtualBox, Xen, Hyper-V, ...).
types::v1::SystemVendor CollectSystemVendor(const HostRoot& root, bool hypervisor_flag);

// From sys/class/tpm/tpm0/tpm_version_major: "2" -> 2.0, "1" -> 1.2, anything else -> NONE.
types::v1::TpmVersion CollectTpmVersion(const HostRoot& root);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_FIRMWARE_H_
