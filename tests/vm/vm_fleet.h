// File: tests/vm/vm_fleet.h
//
// Runs N QEMU virtual machines for a test (TCG only: KVM hangs on these machines, see
// docs in /work/shared/design/vm-testing.md) and tears them down with the fleet.
//
//   ASSIGN_OR_RETURN(auto fleet, VmFleet::Create({.dir = dir, .forwards = {{"10.0.2.100",
//                                                 9090, orchestrator_port}}}));
//   ASSIGN_OR_RETURN(int vm, fleet->Add({.name = "master-0", .mac = "52:54:00:aa:00:01",
//                                        .serial = "VM-SERIAL-0", .disk_bytes = 8 << 30}));
//   RETURN_IF_ERROR(fleet->Boot(vm, {.cdrom = "discovery.iso"}));
//   RETURN_IF_ERROR(fleet->WaitForConsole(vm, "login:", absl::Minutes(3)));
//
// Each machine has:
// - UEFI firmware (OVMF) with its own variable store, so boot entries survive its reboots;
// - a sparse raw virtio disk (`disk_bytes`) and, per boot, an optional CD-ROM booted first;
// - NIC 1, "uplink": QEMU user-mode networking with restrict=on, so the guest reaches nothing
//   but the `forwards` (guest address:port → a port on the host's 127.0.0.1, one host connection
//   per guest connection, made when the guest connects) and gets its address by DHCP:
//   10.0.2.15 for the first machine added, 10.0.2.16 for the second, and so on (UplinkAddress).
//   Each uplink is a network of its own, but hosts of one cluster with the same address are a
//   collision to the orchestrator (no-ip-collisions-in-network), as they would be on one LAN;
//   the machine's `host_forwards` lead the other way, from the host's loopback into the guest;
// - NIC 2, "private": a virtual Ethernet segment shared by the fleet's machines only, carried
//   as unix datagrams through a hub thread of the fleet (no IP address of the host is used);
// - both NICs with fixed MACs (`mac`, and `mac` with its last byte + 0x80 for the private one);
// - the SMBIOS system serial `serial` (dmidecode's "Serial Number", /sys/class/dmi/id);
// - its serial console in <dir>/<name>.boot<N>.console.log, one file per boot (N = 1, 2, ...).
// Nothing a machine does can reach an address other than loopback and the private segment.
//
// A machine powers off instead of rebooting (-no-reboot): a test sees the reboot as the QEMU
// process exiting (WaitForPowerOff) and boots it again, e.g. from its disk only.

#ifndef ASSISTED_TESTS_VM_VM_FLEET_H_
#define ASSISTED_TESTS_VM_VM_FLEET_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/process/subprocess.h"

namespace assisted::testing {

// A TCP port of the host's loopback that guests reach at guest_address:guest_port.
struct GuestForward {
  std::string guest_address;  // in 10.0.2.0/24, not .2/.3/.15
  int guest_port = 0;
  int host_port = 0;  // on 127.0.0.1
};

// A TCP port of the host's loopback that leads to guest_address:guest_port inside one machine
// (QEMU's hostfwd on the uplink). The guest address may be one of the machine's addresses on
// another NIC, e.g. its static address on the private segment: the uplink's router asks for it
// by ARP and the guest answers for any address it holds.
struct HostForward {
  int host_port = 0;  // on 127.0.0.1
  std::string guest_address;
  int guest_port = 0;
};

struct VmFleetOptions {
  std::string dir;  // disks, firmware variables, console logs
  std::vector<GuestForward> forwards;
  std::string qemu = "qemu-system-x86_64";
  std::string ovmf_code = "/usr/share/OVMF/OVMF_CODE_4M.fd";
  std::string ovmf_vars = "/usr/share/OVMF/OVMF_VARS_4M.fd";
  // tests/vm/guest_forward_relay: QEMU runs it once per guest connection to a forward (relative
  // paths are taken from the working directory, a test's runfiles).
  std::string relay = "tests/vm/guest_forward_relay";
};

struct VmSpec {
  std::string name;    // [a-z0-9-]+; names its files
  std::string mac;     // "52:54:00:xx:xx:xx"
  std::string serial;  // SMBIOS system serial number
  uint64_t disk_bytes = uint64_t{8} << 30;
  int memory_mib = 2048;
  int cpus = 1;
  std::vector<HostForward> host_forwards;  // how the test reaches services the machine runs
};

struct BootOptions {
  std::string cdrom;  // ISO booted before the disk; empty: the disk only
};

class VmFleet {
 public:
  // Creates `dir` and the private segment's hub. FAILED_PRECONDITION when QEMU or OVMF is
  // missing (install qemu-system-x86 and ovmf; ./dev test does).
  static absl::StatusOr<std::unique_ptr<VmFleet>> Create(VmFleetOptions options);
  ~VmFleet();  // powers every machine off and stops the hub

  // Defines a machine (its disk and variable store are created now); returns its index.
  // INVALID_ARGUMENT for a bad name or MAC, RESOURCE_EXHAUSTED beyond kMaxMachines.
  absl::StatusOr<int> Add(const VmSpec& spec);

  // Powers machine `vm` on. FAILED_PRECONDITION when it is already running.
  absl::Status Boot(int vm, const BootOptions& boot);
  // Waits until `text` appears in the machine's console output of the current boot.
  // DEADLINE_EXCEEDED after `timeout`, ABORTED when the machine powers off first; both name
  // the console log and carry its end.
  absl::Status WaitForConsole(int vm, const std::string& text, absl::Duration timeout);
  // Waits until the machine powers off (or reboots: see above).
  absl::Status WaitForPowerOff(int vm, absl::Duration timeout);
  // Pulls the plug.
  void PowerOff(int vm);
  // Whether the machine is powered on.
  bool Running(int vm);

  const VmSpec& spec(int vm) const { return machines_[vm].spec; }
  std::string DiskPath(int vm) const;
  // The console log of the machine's current (or last) boot.
  std::string ConsolePath(int vm) const;
  std::string ConsoleTail(int vm, size_t bytes = 4000) const;
  // The MAC of the machine's NIC on the private segment.
  static std::string PrivateMac(const std::string& mac);
  // The address machine `vm` gets on its uplink by DHCP: 10.0.2.(15 + vm).
  static std::string UplinkAddress(int vm);
  // How many machines a fleet holds: their uplink addresses stay below the forwards' (.100).
  static constexpr int kMaxMachines = 64;

 private:
  struct Machine {
    VmSpec spec;
    std::unique_ptr<process::Subprocess> qemu;
    int boots = 0;
  };
  explicit VmFleet(VmFleetOptions options) : options_(std::move(options)) {}
  std::string HubPath() const;
  std::string PortPath(int vm) const;
  void RunHub();

  VmFleetOptions options_;
  // The private segment's sockets: a short folder under /tmp (a unix socket path has at most
  // 107 bytes, which test folders exceed).
  std::string socket_dir_;
  std::vector<Machine> machines_;  // used by the test's thread only
  absl::Mutex ports_mu_;
  std::vector<std::string> ports_ ABSL_GUARDED_BY(ports_mu_);  // the hub's view: socket paths
  int hub_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread hub_;
};

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_VM_VM_FLEET_H_
