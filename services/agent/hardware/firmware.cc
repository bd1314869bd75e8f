// File: services/agent/hardware/firmware.cc

#include "services/agent/hardware/firmware.h"

#include <array>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "services/agent/hardware/attributes.h"
#include "services/agent/hardware/mounts.h"

namespace assisted::agent::hardware {
namespace {

constexpr char kEfiVars[] = "sys/firmware/efi/efivars";
constexpr char kSecureBootVar[] =
    "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
constexpr char kDmi[] = "sys/class/dmi/id/";

// Substrings of a DMI vendor or product name that only hypervisors use (case-insensitive).
constexpr std::array<absl::string_view, 12> kHypervisorNames = {
    "kvm",   "qemu",      "vmware", "virtualbox", "innotek",   "xen",
    "bochs", "parallels", "ovirt",  "rhev",       "openstack", "virtual machine",
};

types::v1::SecureBootState SecureBootState(const HostRoot& root) {
  if (!root.Exists(kEfiVars)) return types::v1::SECURE_BOOT_STATE_UNKNOWN;
  absl::StatusOr<std::string> variable = root.ReadFile(kSecureBootVar, 64);
  if (absl::IsNotFound(variable.status())) return types::v1::SECURE_BOOT_STATE_NOT_SUPPORTED;
  if (!variable.ok() || variable->size() != 5) return types::v1::SECURE_BOOT_STATE_UNKNOWN;
  switch (variable->back()) {
    case 1:
      return types::v1::SECURE_BOOT_STATE_ENABLED;
    case 0:
      return types::v1::SECURE_BOOT_STATE_DISABLED;
    default:
      return types::v1::SECURE_BOOT_STATE_UNKNOWN;
  }
}

types::v1::BootDeviceType DeviceType(const HostRoot& root) {
  types::v1::BootDeviceType type = types::v1::BOOT_DEVICE_TYPE_UNSPECIFIED;
  for (const Mount& mount : ReadMounts(root)) {
    if (mount.target != "/sysroot") continue;
    type = absl::StartsWith(mount.source, "/dev/loop") ? types::v1::BOOT_DEVICE_TYPE_EPHEMERAL
                                                       : types::v1::BOOT_DEVICE_TYPE_PERSISTENT;
  }
  return type;
}

bool NamesHypervisor(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  for (absl::string_view name : kHypervisorNames) {
    if (absl::StrContains(lower, name)) return true;
  }
  return false;
}

}  // namespace

types::v1::Boot CollectBoot(const HostRoot& root) {
  types::v1::Boot boot;
  const bool uefi = root.Exists("sys/firmware/efi");
  boot.set_current_boot_mode(uefi ? types::v1::BOOT_MODE_UEFI : types::v1::BOOT_MODE_BIOS);
  boot.set_secure_boot_state(uefi ? SecureBootState(root)
                                  : types::v1::SECURE_BOOT_STATE_NOT_SUPPORTED);
  boot.set_command_line(ReadAttribute(root, "proc/cmdline"));
  // BOOTIF is "<ARP hardware type>-<MAC with dashes>", e.g. 01-8c-8c-aa-12-34-56.
  const std::string bootif_arg = KernelArgument(boot.command_line(), "BOOTIF");
  absl::string_view bootif = bootif_arg;
  std::string pxe(bootif.size() == 20 && absl::ConsumePrefix(&bootif, "01-") ? bootif : "");
  boot.set_pxe_interface(absl::AsciiStrToLower(absl::StrReplaceAll(pxe, {{"-", ":"}})));
  boot.set_device_type(DeviceType(root));
  return boot;
}

types::v1::SystemVendor CollectSystemVendor(const HostRoot& root, bool hypervisor_flag) {
  types::v1::SystemVendor vendor;
  vendor.set_manufacturer(ReadAttribute(root, absl::StrCat(kDmi, "sys_vendor")));
  vendor.set_product_name(ReadAttribute(root, absl::StrCat(kDmi, "product_name")));
  vendor.set_serial_number(ReadAttribute(root, absl::StrCat(kDmi, "product_serial")));
  const std::string family = ReadAttribute(root, absl::StrCat(kDmi, "product_family"));
  if (absl::StrContains(family, "oVirt") || absl::StrContains(family, "RHV")) {
    vendor.set_product_name("oVirt");
  }
  if (ReadAttribute(root, absl::StrCat(kDmi, "chassis_asset_tag")) == "OracleCloud.com") {
    vendor.set_manufacturer("OracleCloud.com");
  }
  vendor.set_virtual_(hypervisor_flag || NamesHypervisor(vendor.manufacturer()) ||
                      NamesHypervisor(vendor.product_name()));
  return vendor;
}

types::v1::TpmVersion CollectTpmVersion(const HostRoot& root) {
  const std::string major = ReadAttribute(root, "sys/class/tpm/tpm0/tpm_version_major");
  if (major == "2") return types::v1::TPM_VERSION_2_0;
  if (major == "1") return types::v1::TPM_VERSION_1_2;
  return types::v1::TPM_VERSION_NONE;
}

}  // namespace assisted::agent::hardware
