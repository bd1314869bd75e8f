// File: services/agent/hardware/gpus.cc

#include "services/agent/hardware/gpus.h"

#include <array>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "services/agent/hardware/attributes.h"

namespace assisted::agent::hardware {
namespace {

// Where distributions keep the PCI id database (hwdata on RHEL/CoreOS, pciutils on Debian).
constexpr std::array<absl::string_view, 3> kPciIdsPaths = {
    "usr/share/hwdata/pci.ids", "usr/share/misc/pci.ids", "usr/share/pci.ids"};
// The real database is about 1.4 MB.
constexpr size_t kMaxPciIdsBytes = 16 << 20;

// Vendor and device names from pci.ids text: "vvvv  Vendor" lines, then "\tdddd  Device" lines.
struct PciNames {
  std::string vendor;
  std::string device;
};

PciNames LookUp(absl::string_view database, absl::string_view vendor_id,
                absl::string_view device_id) {
  PciNames names;
  bool in_vendor = false;
  for (absl::string_view line : absl::StrSplit(database, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != '\t') {
      if (in_vendor || absl::StartsWith(line, "C ")) break;  // past our vendor, or the classes
      if (absl::StartsWith(line, vendor_id) && line.size() > 6 && line[4] == ' ') {
        in_vendor = true;
        names.vendor = std::string(absl::StripAsciiWhitespace(line.substr(4)));
      }
    } else if (in_vendor && line.size() > 6 && line[1] != '\t' &&
               absl::StartsWith(line.substr(1), device_id) && line[5] == ' ') {
      names.device = std::string(absl::StripAsciiWhitespace(line.substr(5)));
      break;
    }
  }
  return names;
}

std::string ReadPciIds(const HostRoot& root) {
  for (absl::string_view path : kPciIdsPaths) {
    if (absl::StatusOr<std::string> text = root.ReadFile(path, kMaxPciIdsBytes); text.ok()) {
      return *std::move(text);
    }
  }
  return "";
}

// A 16-bit id attribute ("0x10de") as "10de"; nullopt when malformed.
std::optional<std::string> PciId(const HostRoot& root, absl::string_view path) {
  std::optional<uint64_t> id = ParseHex(ReadAttribute(root, path));
  if (!id || *id > 0xffff) return std::nullopt;
  return absl::StrFormat("%04x", *id);
}

bool IsGpuClass(uint64_t pci_class) {
  return (pci_class >> 16) == 0x03 || (pci_class >> 8) == 0x1200;
}

}  // namespace

std::vector<types::v1::Gpu> CollectGpus(const HostRoot& root) {
  std::vector<types::v1::Gpu> gpus;
  absl::StatusOr<std::vector<std::string>> addresses = root.ListDir("sys/bus/pci/devices");
  if (!addresses.ok()) return gpus;
  std::optional<std::string> database;  // read on the first GPU only
  for (const std::string& address : *addresses) {
    const std::string dir = absl::StrCat("sys/bus/pci/devices/", address);
    std::optional<uint64_t> pci_class = ParseHex(ReadAttribute(root, dir + "/class"));
    if (!pci_class || !IsGpuClass(*pci_class)) continue;
    std::optional<std::string> vendor_id = PciId(root, dir + "/vendor");
    std::optional<std::string> device_id = PciId(root, dir + "/device");
    types::v1::Gpu gpu;
    gpu.set_address(address);
    if (vendor_id && device_id) {
      if (!database) database = ReadPciIds(root);
      PciNames names = LookUp(*database, *vendor_id, *device_id);
      gpu.set_vendor_id(*vendor_id);
      gpu.set_device_id(*device_id);
      gpu.set_vendor(std::move(names.vendor));
      gpu.set_name(std::move(names.device));
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

}  // namespace assisted::agent::hardware
