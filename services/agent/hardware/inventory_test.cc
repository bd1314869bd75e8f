// File: services/agent/hardware/inventory_test.cc
//
// The inventory of each fixture machine (//tests/fixtures/hosts), field by field.

#include "services/agent/hardware/inventory.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/hardware/fixture_trees.h"

namespace assisted::agent::hardware {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;
using types::v1::Disk;
using types::v1::Interface;
using types::v1::Inventory;

constexpr int64_t kGiB = int64_t{1} << 30;

Inventory Collect(absl::string_view host, const CollectOptions& options = {}) {
  absl::StatusOr<std::string> root = testing::FixtureRoot(host);
  EXPECT_THAT(root, IsOk());
  if (!root.ok()) return {};
  absl::StatusOr<Inventory> inventory = CollectInventory(HostRoot(*root), options);
  EXPECT_THAT(inventory, IsOk());
  return inventory.ok() ? *std::move(inventory) : Inventory{};
}

template <typename Items>
std::vector<std::string> Names(const Items& items) {
  std::vector<std::string> names;
  for (const auto& item : items) names.push_back(item.name());
  return names;
}

const Disk& FindDisk(const Inventory& inventory, absl::string_view name) {
  for (const Disk& disk : inventory.disks()) {
    if (disk.name() == name) return disk;
  }
  ADD_FAILURE() << "no disk " << name;
  return Disk::default_instance();
}

const Interface& FindNic(const Inventory& inventory, absl::string_view name) {
  for (const Interface& nic : inventory.interfaces()) {
    if (nic.name() == name) return nic;
  }
  ADD_FAILURE() << "no interface " << name;
  return Interface::default_instance();
}

std::vector<std::string> Reasons(const Disk& disk) {
  const auto& reasons = disk.installation_eligibility().not_eligible_reasons();
  return {reasons.begin(), reasons.end()};
}

// The inventory of one machine, collected once for the tests of its suite.
template <const char* kHost>
class MachineTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { inventory_ = new Inventory(Collect(kHost)); }
  static void TearDownTestSuite() { delete inventory_; }
  static const Inventory& inventory() { return *inventory_; }

 private:
  static Inventory* inventory_;
};
template <const char* kHost>
Inventory* MachineTest<kHost>::inventory_ = nullptr;

// --- laptop ----------------------------------------------------------------------------------

constexpr char kLaptopHost[] = "laptop";
using Laptop = MachineTest<kLaptopHost>;

TEST_F(Laptop, LocalhostNameIsReplacedByTheFirstAddressedNicsMac) {
  EXPECT_EQ(inventory().hostname(), "8c-8c-aa-12-34-56");
}

TEST_F(Laptop, Cpu) {
  const types::v1::Cpu& cpu = inventory().cpu();
  EXPECT_EQ(cpu.count(), 8);
  EXPECT_EQ(cpu.model_name(), "11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz");
  EXPECT_DOUBLE_EQ(cpu.frequency(), 4700);  // cpufreq maximum, above every "cpu MHz"
  EXPECT_EQ(cpu.architecture(), "x86_64");  // inferred: long mode
  EXPECT_EQ(cpu.flags(0), "fpu");
  EXPECT_THAT(cpu.flags(), Contains("avx512f"));
  EXPECT_THAT(cpu.flags(), Contains("vmx"));
  EXPECT_THAT(cpu.flags(), Not(Contains("ept_x_only")));  // a "vmx flags" entry
  EXPECT_THAT(cpu.flags(), Not(Contains("hypervisor")));
}

TEST_F(Laptop, MemoryCountsOnlineBlocks) {
  EXPECT_EQ(inventory().memory().physical_bytes(), 16 * kGiB);
  EXPECT_EQ(inventory().memory().physical_bytes_method(), types::v1::PHYSICAL_MEMORY_METHOD_GHW);
  EXPECT_EQ(inventory().memory().usable_bytes(), int64_t{16113884} * 1024);
}

TEST_F(Laptop, OneNvmeSsd) {
  ASSERT_THAT(Names(inventory().disks()), ElementsAre("nvme0n1"));
  const Disk& disk = inventory().disks(0);
  EXPECT_EQ(disk.path(), "/dev/nvme0n1");
  EXPECT_EQ(disk.drive_type(), types::v1::DRIVE_TYPE_SSD);
  EXPECT_EQ(disk.size_bytes(), int64_t{2000409264} * 512);
  EXPECT_EQ(disk.by_id(), "/dev/disk/by-id/nvme-eui.002538b411b2c3d4");
  EXPECT_EQ(disk.by_path(), "/dev/disk/by-path/pci-0000:04:00.0-nvme-1");
  EXPECT_EQ(disk.id(), disk.by_id());
  EXPECT_EQ(disk.model(), "SAMSUNG MZVL21T0HCLR-00BL7");
  EXPECT_EQ(disk.vendor(), "");
  EXPECT_EQ(disk.serial(), "S64PNF0R123456");
  EXPECT_EQ(disk.wwn(), "eui.002538b411b2c3d4");
  EXPECT_TRUE(disk.has_uuid());
  EXPECT_TRUE(disk.bootable());  // GPT's protective MBR
  EXPECT_FALSE(disk.rotational());
  EXPECT_FALSE(disk.removable());
  EXPECT_FALSE(disk.is_installation_media());
  EXPECT_EQ(disk.partition_types(), "gpt");
  EXPECT_EQ(disk.hctl(), "");
  EXPECT_TRUE(disk.installation_eligibility().eligible());
  EXPECT_THAT(Reasons(disk), IsEmpty());
}

TEST_F(Laptop, EthernetAndWifiButNotTheTunnel) {
  ASSERT_THAT(Names(inventory().interfaces()), ElementsAre("enp0s31f6", "wlp0s20f3"));
  const Interface& wired = FindNic(inventory(), "enp0s31f6");
  EXPECT_EQ(wired.type(), "physical");
  EXPECT_EQ(wired.mac_address(), "8c:8c:aa:12:34:56");
  EXPECT_THAT(wired.ipv4_addresses(), ElementsAre("10.0.0.57/24"));
  EXPECT_THAT(wired.ipv6_addresses(), IsEmpty());  // link-local only
  EXPECT_EQ(wired.speed_mbps(), 1000);
  EXPECT_EQ(wired.mtu(), 1500);
  EXPECT_TRUE(wired.has_carrier());
  EXPECT_THAT(wired.flags(), ElementsAre("up", "broadcast", "multicast", "running"));
  EXPECT_EQ(wired.vendor(), "0x8086");
  EXPECT_EQ(wired.product(), "0x15fc");

  const Interface& wifi = FindNic(inventory(), "wlp0s20f3");
  EXPECT_EQ(wifi.type(), "physical");
  EXPECT_EQ(wifi.speed_mbps(), -1);
  EXPECT_EQ(wifi.product(), "0xa0f0");
  EXPECT_THAT(wifi.ipv4_addresses(), ElementsAre("192.168.1.42/24"));
  EXPECT_THAT(wifi.ipv6_addresses(), ElementsAre("2a01:e0a:1c3:5b70:a4c2:5f3d:9e81:1b2c/64",
                                                 "2a01:e0a:1c3:5b70:16a2:c3d9:8b7e:4f10/64"));
}

TEST_F(Laptop, PxeBootedUefiWithSecureBoot) {
  const types::v1::Boot& boot = inventory().boot();
  EXPECT_EQ(boot.current_boot_mode(), types::v1::BOOT_MODE_UEFI);
  EXPECT_EQ(boot.secure_boot_state(), types::v1::SECURE_BOOT_STATE_ENABLED);
  EXPECT_EQ(boot.pxe_interface(), "8c:8c:aa:12:34:56");
  EXPECT_EQ(boot.device_type(), types::v1::BOOT_DEVICE_TYPE_EPHEMERAL);
  EXPECT_THAT(boot.command_line(), ::testing::StartsWith("BOOT_IMAGE=(http)/boot/vmlinuz ip=dhcp"));
}

TEST_F(Laptop, VendorGpuAndTpm) {
  EXPECT_EQ(inventory().system_vendor().manufacturer(), "LENOVO");
  EXPECT_EQ(inventory().system_vendor().product_name(), "20XWCTO1WW");
  EXPECT_EQ(inventory().system_vendor().serial_number(), "PF2ABCDE");
  EXPECT_FALSE(inventory().system_vendor().virtual_());
  ASSERT_EQ(inventory().gpus_size(), 1);
  const types::v1::Gpu& gpu = inventory().gpus(0);
  EXPECT_EQ(gpu.address(), "0000:00:02.0");
  EXPECT_EQ(gpu.vendor_id(), "8086");
  EXPECT_EQ(gpu.device_id(), "9a49");
  EXPECT_EQ(gpu.vendor(), "Intel Corporation");
  EXPECT_EQ(gpu.name(), "TigerLake-LP GT2 [Iris Xe Graphics]");
  EXPECT_EQ(inventory().tpm_version(), types::v1::TPM_VERSION_2_0);
}

std::vector<std::string> RouteTexts(const Inventory& inventory) {
  std::vector<std::string> texts;
  for (const types::v1::Route& r : inventory.routes()) {
    texts.push_back(absl::StrCat(r.interface(), " ", r.destination(), " via ", r.gateway(), " ",
                                 r.family() == types::v1::ADDRESS_FAMILY_IPV4 ? "v4" : "v6",
                                 " metric ", r.metric()));
  }
  return texts;
}

TEST_F(Laptop, RoutesWithoutLoopbackLocalOrMulticast) {
  EXPECT_THAT(RouteTexts(inventory()),
              ElementsAre("enp0s31f6 0.0.0.0 via 10.0.0.1 v4 metric 100",
                          "wlp0s20f3 0.0.0.0 via 192.168.1.1 v4 metric 600",
                          "enp0s31f6 10.0.0.0 via 0.0.0.0 v4 metric 100",
                          "wg0 10.200.0.0 via 0.0.0.0 v4 metric 0",
                          "wlp0s20f3 192.168.1.0 via 0.0.0.0 v4 metric 600",
                          "wlp0s20f3 2a01:e0a:1c3:5b70:: via :: v6 metric 600",
                          "enp0s31f6 fe80:: via :: v6 metric 1024",
                          "wlp0s20f3 fe80:: via :: v6 metric 1024",
                          "wlp0s20f3 :: via fe80::1 v6 metric 600"));
}

TEST_F(Laptop, NothingTruncated) {
  EXPECT_FALSE(inventory().has_truncation());
  EXPECT_EQ(inventory().bmc_address(), "");
}

// --- server ----------------------------------------------------------------------------------

constexpr char kServerHost[] = "server";
using Server = MachineTest<kServerHost>;

TEST_F(Server, HostnameCpuAndMemory) {
  EXPECT_EQ(inventory().hostname(), "sm-node03.lab.example.com");
  EXPECT_EQ(inventory().cpu().count(), 40);
  EXPECT_EQ(inventory().cpu().model_name(), "Intel(R) Xeon(R) Silver 4210R CPU @ 2.40GHz");
  EXPECT_DOUBLE_EQ(inventory().cpu().frequency(), 3200);  // highest "cpu MHz", no cpufreq
  EXPECT_EQ(inventory().memory().physical_bytes(), 384 * kGiB);
  EXPECT_EQ(inventory().memory().usable_bytes(), int64_t{394842176} * 1024);
}

TEST_F(Server, DisksWithoutLoopOrZram) {
  EXPECT_THAT(Names(inventory().disks()), ElementsAre("dm-0", "nvme0n1", "nvme1n1", "sda", "sdb",
                                                      "sdc", "sdd", "sde", "sdf", "sdg", "sr0"));
  using types::v1::DRIVE_TYPE_HDD;
  using types::v1::DRIVE_TYPE_SSD;
  std::vector<types::v1::DriveType> types;
  for (const Disk& disk : inventory().disks()) types.push_back(disk.drive_type());
  EXPECT_THAT(types, ElementsAre(types::v1::DRIVE_TYPE_MULTIPATH, DRIVE_TYPE_SSD, DRIVE_TYPE_SSD,
                                 DRIVE_TYPE_SSD, DRIVE_TYPE_SSD, DRIVE_TYPE_HDD, DRIVE_TYPE_HDD,
                                 DRIVE_TYPE_HDD, DRIVE_TYPE_HDD, DRIVE_TYPE_HDD,
                                 types::v1::DRIVE_TYPE_ODD));
}

TEST_F(Server, SataDiskFromUdevAndSysfs) {
  const Disk& sda = FindDisk(inventory(), "sda");
  EXPECT_EQ(sda.size_bytes(), int64_t{937703088} * 512);
  EXPECT_EQ(sda.vendor(), "ATA");
  EXPECT_EQ(sda.model(), "SAMSUNG_MZ7LH480HAHQ-00005");
  EXPECT_EQ(sda.serial(), "S45PNA0M812345");
  EXPECT_EQ(sda.wwn(), "0x5002538e40a1b2c3");
  EXPECT_EQ(sda.hctl(), "0:0:0:0");
  EXPECT_EQ(sda.by_id(), "/dev/disk/by-id/wwn-0x5002538e40a1b2c3");
  // udev's ID_PATH wins over the ATA compatibility link.
  EXPECT_EQ(sda.by_path(), "/dev/disk/by-path/pci-0000:00:17.0-ata-1");
  EXPECT_TRUE(sda.bootable());  // the old install's protective MBR
  EXPECT_TRUE(sda.installation_eligibility().eligible());
  EXPECT_TRUE(FindDisk(inventory(), "sdc").rotational());
  EXPECT_FALSE(FindDisk(inventory(), "sdb").rotational());
}

TEST_F(Server, MultipathDeviceAndItsPaths) {
  const Disk& mpath = FindDisk(inventory(), "dm-0");
  EXPECT_EQ(mpath.path(), "/dev/dm-0");
  EXPECT_EQ(mpath.id(), "/dev/disk/by-id/wwn-0x5000c500a1b2c3d7");
  EXPECT_EQ(mpath.size_bytes(), int64_t{2344225968} * 512);
  EXPECT_EQ(mpath.vendor(), "SEAGATE");  // from its first path
  EXPECT_EQ(mpath.model(), "ST1200MM0099");
  EXPECT_EQ(mpath.wwn(), "0x5000c500a1b2c3d7");
  EXPECT_TRUE(mpath.installation_eligibility().eligible());
  for (absl::string_view name : {"sde", "sdf"}) {
    const Disk& path = FindDisk(inventory(), name);
    EXPECT_EQ(path.holders(), "dm-0");
    EXPECT_EQ(path.by_id(), "");  // the multipath device holds the WWN links
    EXPECT_EQ(path.id(), path.by_path());
    EXPECT_FALSE(path.installation_eligibility().eligible());
    EXPECT_THAT(Reasons(path),
                ElementsAre("Disk is a path of multipath device dm-0; choose the multipath "
                            "device instead"));
  }
  EXPECT_NE(FindDisk(inventory(), "sde").by_path(), FindDisk(inventory(), "sdf").by_path());
}

TEST_F(Server, UsbStickHoldingTheIsoIsTheInstallationMedia) {
  const Disk& usb = FindDisk(inventory(), "sdg");
  EXPECT_TRUE(usb.is_installation_media());
  EXPECT_TRUE(usb.removable());
  EXPECT_TRUE(usb.bootable());  // isohybrid MBR
  EXPECT_EQ(usb.vendor(), "SanDisk");
  EXPECT_EQ(usb.serial(), "4C530001230921113253");
  EXPECT_EQ(usb.id(), "/dev/disk/by-path/pci-0000:00:14.0-usb-0:3:1.0-scsi-0:0:0:0");
  EXPECT_THAT(Reasons(usb),
              ElementsAre("Disk is too small (disk only has 15 GB, but 20 GB are required)",
                          "Disk holds the installation media (the discovery image was booted "
                          "from it)",
                          "Disk is removable"));
}

TEST_F(Server, BmcVirtualCdromIsNeverEligible) {
  const Disk& cd = FindDisk(inventory(), "sr0");
  EXPECT_EQ(cd.vendor(), "AMI");
  EXPECT_EQ(cd.size_bytes(), 0);
  EXPECT_TRUE(cd.is_installation_media());  // every optical drive is
  EXPECT_THAT(Reasons(cd), ElementsAre("Disk is too small (disk only has 0 GB, but 20 GB are "
                                       "required)",
                                       "Disk is an optical drive",
                                       "Disk holds the installation media (the discovery image "
                                       "was booted from it)",
                                       "Disk is removable", "Disk is read-only"));
}

TEST_F(Server, OtherDisksAreEligible) {
  for (absl::string_view name : {"nvme0n1", "nvme1n1", "sda", "sdb", "sdc", "sdd"}) {
    EXPECT_TRUE(FindDisk(inventory(), name).installation_eligibility().eligible()) << name;
    EXPECT_FALSE(FindDisk(inventory(), name).is_installation_media()) << name;
  }
}

TEST_F(Server, BondVlanAndPhysicalNics) {
  EXPECT_THAT(Names(inventory().interfaces()),
              ElementsAre("bond0", "bond0.100", "eno1", "eno2", "eno3", "ens1f0"));
  const Interface& bond = FindNic(inventory(), "bond0");
  EXPECT_EQ(bond.type(), "bond");
  EXPECT_EQ(bond.mac_address(), "ac:1f:6b:b4:c2:d8");
  EXPECT_THAT(bond.ipv4_addresses(), ElementsAre("192.168.111.23/24"));
  EXPECT_THAT(bond.ipv6_addresses(), ElementsAre("fd00:1101::23/64"));
  EXPECT_EQ(bond.mtu(), 9000);
  EXPECT_EQ(bond.vendor(), "");
  const Interface& vlan = FindNic(inventory(), "bond0.100");
  EXPECT_EQ(vlan.type(), "vlan");
  EXPECT_THAT(vlan.ipv4_addresses(), ElementsAre("10.10.100.23/24"));
  // A bond member reports its permanent MAC, not the bond's.
  EXPECT_EQ(FindNic(inventory(), "eno2").mac_address(), "ac:1f:6b:b4:c2:d9");
  EXPECT_EQ(FindNic(inventory(), "eno2").type(), "physical");
  EXPECT_EQ(FindNic(inventory(), "eno1").speed_mbps(), 10000);
  const Interface& down = FindNic(inventory(), "eno3");
  EXPECT_FALSE(down.has_carrier());
  EXPECT_EQ(down.speed_mbps(), -1);
  EXPECT_THAT(down.flags(), ElementsAre("up", "broadcast", "multicast"));
  EXPECT_THAT(down.ipv4_addresses(), IsEmpty());  // 169.254/16 is link-local
  const Interface& mlx = FindNic(inventory(), "ens1f0");
  EXPECT_EQ(mlx.vendor(), "0x15b3");
  EXPECT_EQ(mlx.product(), "0x1017");
  EXPECT_EQ(mlx.speed_mbps(), 25000);
}

TEST_F(Server, BiosBootFromTheIsoWithoutTpm) {
  const types::v1::Boot& boot = inventory().boot();
  EXPECT_EQ(boot.current_boot_mode(), types::v1::BOOT_MODE_BIOS);
  EXPECT_EQ(boot.secure_boot_state(), types::v1::SECURE_BOOT_STATE_NOT_SUPPORTED);
  EXPECT_EQ(boot.pxe_interface(), "");
  EXPECT_EQ(boot.device_type(), types::v1::BOOT_DEVICE_TYPE_EPHEMERAL);
  EXPECT_EQ(inventory().tpm_version(), types::v1::TPM_VERSION_NONE);
}

TEST_F(Server, VendorAndGpus) {
  EXPECT_EQ(inventory().system_vendor().manufacturer(), "Supermicro");
  EXPECT_EQ(inventory().system_vendor().product_name(), "SYS-2029U-TR4");
  EXPECT_EQ(inventory().system_vendor().serial_number(), "S292837X9A05112");
  EXPECT_FALSE(inventory().system_vendor().virtual_());
  ASSERT_EQ(inventory().gpus_size(), 2);
  EXPECT_EQ(inventory().gpus(0).name(), "ASPEED Graphics Family");  // the BMC's display
  EXPECT_EQ(inventory().gpus(0).vendor(), "ASPEED Technology, Inc.");
  EXPECT_EQ(inventory().gpus(1).address(), "0000:d8:00.0");
  EXPECT_EQ(inventory().gpus(1).vendor_id(), "10de");
  EXPECT_EQ(inventory().gpus(1).device_id(), "1eb8");
  EXPECT_EQ(inventory().gpus(1).name(), "TU104GL [Tesla T4]");
  EXPECT_EQ(inventory().gpus(1).vendor(), "NVIDIA Corporation");
}

TEST_F(Server, DefaultRoutesOverTheBond) {
  EXPECT_THAT(RouteTexts(inventory()), Contains("bond0 0.0.0.0 via 192.168.111.1 v4 metric 300"));
  EXPECT_THAT(RouteTexts(inventory()), Contains("bond0 :: via fd00:1101::1 v6 metric 300"));
  EXPECT_EQ(inventory().routes_size(), 9);
}

// --- vm --------------------------------------------------------------------------------------

constexpr char kVmHost[] = "vm";
using Vm = MachineTest<kVmHost>;

TEST_F(Vm, HostnameFromEtcAndVirtualCpu) {
  EXPECT_EQ(inventory().hostname(), "vm-master-0");
  EXPECT_EQ(inventory().cpu().count(), 4);
  EXPECT_EQ(inventory().cpu().model_name(), "Intel Xeon Processor (Icelake)");
  EXPECT_DOUBLE_EQ(inventory().cpu().frequency(), 2593.904);
  EXPECT_EQ(inventory().cpu().architecture(), "x86_64");
  EXPECT_THAT(inventory().cpu().flags(), Contains("hypervisor"));
}

TEST_F(Vm, MemoryFromMeminfo) {
  EXPECT_EQ(inventory().memory().usable_bytes(), int64_t{16369480} * 1024);
  EXPECT_EQ(inventory().memory().physical_bytes(), inventory().memory().usable_bytes());
  EXPECT_EQ(inventory().memory().physical_bytes_method(),
            types::v1::PHYSICAL_MEMORY_METHOD_MEMINFO);
}

TEST_F(Vm, VirtioDisksOneTooSmall) {
  EXPECT_THAT(Names(inventory().disks()), ElementsAre("sr0", "vda", "vdb"));
  const Disk& vda = FindDisk(inventory(), "vda");
  EXPECT_EQ(vda.drive_type(), types::v1::DRIVE_TYPE_HDD);
  EXPECT_EQ(vda.size_bytes(), 120 * kGiB);
  EXPECT_EQ(vda.id(), "/dev/disk/by-path/pci-0000:04:00.0");
  EXPECT_EQ(vda.vendor(), "0x1af4");
  EXPECT_EQ(vda.serial(), "");
  EXPECT_FALSE(vda.has_uuid());
  EXPECT_TRUE(vda.installation_eligibility().eligible());
  const Disk& vdb = FindDisk(inventory(), "vdb");
  EXPECT_EQ(vdb.serial(), "data-disk-01");
  EXPECT_THAT(Reasons(vdb),
              ElementsAre("Disk is too small (disk only has 10 GB, but 20 GB are required)"));
  const Disk& dvd = FindDisk(inventory(), "sr0");
  EXPECT_EQ(dvd.drive_type(), types::v1::DRIVE_TYPE_ODD);
  EXPECT_TRUE(dvd.is_installation_media());
  EXPECT_TRUE(dvd.bootable());
  EXPECT_EQ(dvd.model(), "QEMU_DVD-ROM");
}

TEST_F(Vm, VirtioNic) {
  ASSERT_THAT(Names(inventory().interfaces()), ElementsAre("enp1s0"));
  const Interface& nic = inventory().interfaces(0);
  EXPECT_EQ(nic.mac_address(), "52:54:00:6b:3c:58");
  EXPECT_EQ(nic.vendor(), "0x1af4");
  EXPECT_EQ(nic.product(), "0x0001");
  EXPECT_THAT(nic.ipv4_addresses(), ElementsAre("192.168.122.50/24"));
  EXPECT_THAT(nic.ipv6_addresses(), ElementsAre("fd2e:6f44:5dd8:c956::32/128"));
}

TEST_F(Vm, QemuUefiWithoutSecureBoot) {
  EXPECT_EQ(inventory().system_vendor().manufacturer(), "QEMU");
  EXPECT_EQ(inventory().system_vendor().product_name(), "Standard PC (Q35 + ICH9, 2009)");
  EXPECT_TRUE(inventory().system_vendor().virtual_());
  EXPECT_EQ(inventory().boot().current_boot_mode(), types::v1::BOOT_MODE_UEFI);
  EXPECT_EQ(inventory().boot().secure_boot_state(), types::v1::SECURE_BOOT_STATE_DISABLED);
  EXPECT_EQ(inventory().tpm_version(), types::v1::TPM_VERSION_NONE);
  ASSERT_EQ(inventory().gpus_size(), 1);
  EXPECT_EQ(inventory().gpus(0).name(), "QEMU Virtual Video Controller");  // usr/share/misc
  EXPECT_THAT(RouteTexts(inventory()),
              Contains("enp1s0 :: via fe80::5054:ff:fe8a:2b3c v6 metric 100"));
}

// --- options ---------------------------------------------------------------------------------

TEST(CollectOptions, ArchitectureAndMinimumDiskSize) {
  CollectOptions options;
  options.architecture = "aarch64";
  options.min_disk_size_gb = 10;
  const Inventory inventory = Collect("vm", options);
  EXPECT_EQ(inventory.cpu().architecture(), "aarch64");
  EXPECT_TRUE(FindDisk(inventory, "vdb").installation_eligibility().eligible());
}

class FakeAddresses final : public AddressSource {
 public:
  AddressMap Addresses() const override {
    AddressMap map;
    map["enp1s0"].ipv4.push_back("10.9.8.7/16");
    return map;
  }
};

TEST(CollectOptions, AddressesComeFromTheGivenSource) {
  FakeAddresses addresses;
  CollectOptions options;
  options.addresses = &addresses;
  const Inventory inventory = Collect("vm", options);
  ASSERT_EQ(inventory.interfaces_size(), 1);
  EXPECT_THAT(inventory.interfaces(0).ipv4_addresses(), ElementsAre("10.9.8.7/16"));
  EXPECT_THAT(inventory.interfaces(0).ipv6_addresses(), IsEmpty());
}

TEST(CollectOptions, LimitsCutListsAndSayWhat) {
  CollectOptions options;
  options.max_disks = 3;
  options.max_interfaces = 2;
  options.max_routes = 1;
  const Inventory inventory = Collect("server", options);
  EXPECT_THAT(Names(inventory.disks()), ElementsAre("dm-0", "nvme0n1", "nvme1n1"));
  EXPECT_THAT(Names(inventory.interfaces()), ElementsAre("bond0", "bond0.100"));
  EXPECT_EQ(inventory.routes_size(), 1);
  EXPECT_EQ(inventory.truncation().type(), types::v1::TRUNCATION_TYPE_PARTIAL);
  EXPECT_THAT(inventory.truncation().reasons(),
              ElementsAre("disks: 11 found, 3 kept", "interfaces: 6 found, 2 kept",
                          "routes: 9 found, 1 kept"));
}

TEST(CollectOptions, LimitsThatFitCutNothing) {
  CollectOptions options;
  options.max_disks = 11;
  options.max_interfaces = 6;
  options.max_routes = 9;
  EXPECT_FALSE(Collect("server", options).has_truncation());
}

TEST(CollectOptions, OutOfRangeOptionsAreRejected) {
  CollectOptions negative;
  negative.max_disks = -1;
  EXPECT_THAT(CollectInventory(HostRoot("/nonexistent"), negative),
              StatusIs(absl::StatusCode::kInvalidArgument));
  CollectOptions huge;
  huge.min_disk_size_gb = int64_t{1} << 60;
  EXPECT_THAT(CollectInventory(HostRoot("/nonexistent"), huge),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace assisted::agent::hardware
