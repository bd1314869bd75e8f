// File: services/agent/hardware/variations_test.cc
//
// Machines the three fixtures do not cover, made from copies of them with a file or two
// changed: mounted disks, LVM and other device-mapper devices, hidden NVMe paths, shared bus
// paths, other firmware states, bridges.

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/hardware/fixture_trees.h"
#include "services/agent/hardware/inventory.h"

namespace assisted::agent::hardware {
namespace {

namespace fs = std::filesystem;
using ::assisted::testing::IsOk;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;
using types::v1::Disk;
using types::v1::Inventory;

// A writable copy of one fixture per test.
class Variation : public ::testing::Test {
 protected:
  void Use(absl::string_view host) {
    absl::StatusOr<std::string> copy = testing::CopyFixture(
        host,
        testing::FreshTempDir(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    ASSERT_THAT(copy, IsOk());
    root_ = *copy;
  }
  void Write(const std::string& path, absl::string_view content) {
    ASSERT_THAT(testing::WriteFixtureFile(root_, path, content), IsOk());
  }
  void Link(const std::string& path, const std::string& target) {
    ASSERT_THAT(testing::LinkFixtureFile(root_, path, target), IsOk());
  }
  void Remove(const std::string& path) { fs::remove_all(fs::path(root_) / path); }
  // A device-mapper device dm-<n> with the given dm/uuid.
  void AddDm(int n, const std::string& uuid) {
    const std::string dir = absl::StrCat("sys/devices/virtual/block/dm-", n);
    Write(dir + "/dev", absl::StrCat("253:", n, "\n"));
    Write(dir + "/size", "209715200\n");
    Write(dir + "/dm/uuid", uuid + "\n");
    Link(absl::StrCat("sys/block/dm-", n), absl::StrCat("../devices/virtual/block/dm-", n));
  }
  Inventory Collect() {
    absl::StatusOr<Inventory> inventory = CollectInventory(HostRoot(root_), CollectOptions{});
    EXPECT_THAT(inventory, IsOk());
    return inventory.ok() ? *std::move(inventory) : Inventory{};
  }
  static const Disk* Find(const Inventory& inventory, absl::string_view name) {
    for (const Disk& disk : inventory.disks()) {
      if (disk.name() == name) return &disk;
    }
    return nullptr;
  }
  static std::vector<std::string> DiskNames(const Inventory& inventory) {
    std::vector<std::string> names;
    for (const Disk& disk : inventory.disks()) names.push_back(disk.name());
    return names;
  }

  std::string root_;
};

TEST_F(Variation, AMountedPartitionMakesItsDiskIneligible) {
  Use("server");
  Write("proc/mounts",
        "/dev/sda4 /var xfs rw,relatime 0 0\n/dev/disk/by-id/wwn-0x55cd2e415a6b7c8d "
        "/mnt/scratch ext4 rw 0 0\n");
  const Inventory inventory = Collect();
  EXPECT_THAT(Find(inventory, "sda")->installation_eligibility().not_eligible_reasons(),
              ElementsAre("Disk is in use: sda4 on /var"));
  // A mount through a link counts for the disk it leads to.
  EXPECT_THAT(Find(inventory, "sdb")->installation_eligibility().not_eligible_reasons(),
              ElementsAre("Disk is in use: sdb on /mnt/scratch"));
}

TEST_F(Variation, TheLiveIsoLabelAloneMarksTheInstallationMedia) {
  Use("server");
  Write("proc/mounts", "");
  EXPECT_TRUE(Find(Collect(), "sdg")->is_installation_media());
  Write("proc/cmdline", "BOOT_IMAGE=/images/pxeboot/vmlinuz ignition.firstboot\n");
  EXPECT_FALSE(Find(Collect(), "sdg")->is_installation_media());
}

TEST_F(Variation, AnyMountEndingInIsoIsInstallationMedia) {
  Use("server");
  Write("proc/cmdline", "");
  Write("proc/mounts", "/dev/sdb1 /mnt/rhcos-iso iso9660 ro 0 0\n");
  Write("sys/block/sdb/sdb1/partition", "1\n");
  const Inventory inventory = Collect();
  EXPECT_TRUE(Find(inventory, "sdb")->is_installation_media());
  EXPECT_FALSE(Find(inventory, "sdg")->is_installation_media());
}

TEST_F(Variation, LvmVolumesAreReportedOtherDeviceMapperDevicesAreNot) {
  Use("server");
  AddDm(1, "LVM-Xk3dP2tQ9vN1mZbR8sLw4yHc6eJf0aUgTq7iOo5nBd2KxVz3CpWr");
  AddDm(2, "CRYPT-LUKS2-8c1f5e0d2b4a4c6e9f7a1b3d5e7f9a0c-luks-root");
  const Inventory inventory = Collect();
  EXPECT_THAT(DiskNames(inventory), Contains("dm-1"));
  EXPECT_THAT(DiskNames(inventory), Not(Contains("dm-2")));
  EXPECT_EQ(Find(inventory, "dm-1")->drive_type(), types::v1::DRIVE_TYPE_LVM);
  EXPECT_THAT(Find(inventory, "dm-1")->installation_eligibility().not_eligible_reasons(),
              ElementsAre("Disk is an LVM logical volume"));
}

TEST_F(Variation, HiddenDevicesAreSkipped) {
  Use("laptop");
  const std::string dir = "sys/devices/pci0000:00/0000:00:1d.0/0000:04:00.0/nvme/nvme0/nvme0c0n1";
  Write(dir + "/hidden", "1\n");
  Write(dir + "/size", "2000409264\n");
  Link("sys/block/nvme0c0n1",
       "../devices/pci0000:00/0000:00:1d.0/0000:04:00.0/nvme/nvme0/nvme0c0n1");
  EXPECT_THAT(DiskNames(Collect()), ElementsAre("nvme0n1"));
}

TEST_F(Variation, ABusPathClaimedTwiceIsDropped) {
  Use("server");
  // sdd's udev record claims sdc's bus path.
  Write("run/udev/data/b8:48", "E:ID_PATH=pci-0000:00:17.0-ata-3\nE:ID_WWN=0x5000c500b1c2d3e5\n");
  const Inventory inventory = Collect();
  EXPECT_EQ(Find(inventory, "sdc")->by_path(), "");
  EXPECT_EQ(Find(inventory, "sdd")->by_path(), "");
  EXPECT_EQ(Find(inventory, "sdc")->id(), "/dev/disk/by-id/wwn-0x5000c500b1c2d3e4");
  EXPECT_EQ(Find(inventory, "sdb")->by_path(), "/dev/disk/by-path/pci-0000:00:17.0-ata-2");
}

TEST_F(Variation, ADiskWithNoLinksIsKnownByItsPath) {
  Use("vm");
  Remove("dev/disk/by-path");
  Remove("run/udev/data/b252:0");
  EXPECT_EQ(Find(Collect(), "vda")->id(), "/dev/vda");
}

TEST_F(Variation, SecureBootStates) {
  Use("laptop");
  const std::string var =
      "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
  Write(var, std::string("\x06\x00\x00", 3));
  EXPECT_EQ(Collect().boot().secure_boot_state(), types::v1::SECURE_BOOT_STATE_UNKNOWN);
  Remove(var);
  EXPECT_EQ(Collect().boot().secure_boot_state(), types::v1::SECURE_BOOT_STATE_NOT_SUPPORTED);
  Remove("sys/firmware/efi/efivars");  // efivarfs not mounted: cannot tell
  EXPECT_EQ(Collect().boot().secure_boot_state(), types::v1::SECURE_BOOT_STATE_UNKNOWN);
  EXPECT_EQ(Collect().boot().current_boot_mode(), types::v1::BOOT_MODE_UEFI);
}

TEST_F(Variation, InstalledSystemBootsPersistent) {
  Use("laptop");
  Write("proc/mounts", "/dev/nvme0n1p4 /sysroot xfs ro 0 0\n");
  EXPECT_EQ(Collect().boot().device_type(), types::v1::BOOT_DEVICE_TYPE_PERSISTENT);
  Write("proc/mounts", "");
  EXPECT_EQ(Collect().boot().device_type(), types::v1::BOOT_DEVICE_TYPE_UNSPECIFIED);
}

TEST_F(Variation, TpmVersions) {
  Use("laptop");
  Write("sys/devices/platform/STM0125:00/tpm/tpm0/tpm_version_major", "1\n");
  EXPECT_EQ(Collect().tpm_version(), types::v1::TPM_VERSION_1_2);
  Write("sys/devices/platform/STM0125:00/tpm/tpm0/tpm_version_major", "3\n");
  EXPECT_EQ(Collect().tpm_version(), types::v1::TPM_VERSION_NONE);
}

TEST_F(Variation, PlatformFixUps) {
  Use("server");
  Write("sys/devices/virtual/dmi/id/product_family", "oVirt\n");
  Write("sys/devices/virtual/dmi/id/chassis_asset_tag", "OracleCloud.com\n");
  const types::v1::SystemVendor vendor = Collect().system_vendor();
  EXPECT_EQ(vendor.product_name(), "oVirt");
  EXPECT_EQ(vendor.manufacturer(), "OracleCloud.com");
  EXPECT_TRUE(vendor.virtual_());
}

TEST_F(Variation, VirtualMachineByVendorName) {
  Use("server");
  Write("sys/devices/virtual/dmi/id/sys_vendor", "VMware, Inc.\n");
  EXPECT_TRUE(Collect().system_vendor().virtual_());
}

TEST_F(Variation, BridgesAreReportedTunnelsAreNot) {
  Use("vm");
  Write("sys/devices/virtual/net/br-ex/address", "52:54:00:6b:3c:58\n");
  Write("sys/devices/virtual/net/br-ex/bridge/stp_state", "0\n");
  Link("sys/class/net/br-ex", "../../devices/virtual/net/br-ex");
  Write("sys/devices/virtual/net/veth1a2b/uevent", "INTERFACE=veth1a2b\n");
  Link("sys/class/net/veth1a2b", "../../devices/virtual/net/veth1a2b");
  const Inventory inventory = Collect();
  ASSERT_EQ(inventory.interfaces_size(), 2);
  EXPECT_EQ(inventory.interfaces(0).name(), "br-ex");
  EXPECT_EQ(inventory.interfaces(0).type(), "bridge");
  EXPECT_EQ(inventory.interfaces(1).name(), "enp1s0");
}

TEST_F(Variation, LocalhostStaysWithoutAnAddressedNic) {
  Use("vm");
  Write("etc/hostname", "localhost.localdomain\n");
  Write("assisted/addresses.json", "{}");
  Write("proc/net/if_inet6", "");
  EXPECT_EQ(Collect().hostname(), "localhost.localdomain");
}

}  // namespace
}  // namespace assisted::agent::hardware
