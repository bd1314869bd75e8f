#include "tests/vm/vm_fleet.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "lib/status/status_macros.h"

namespace assisted::testing {
namespace {

namespace fs = std::filesystem;

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 32) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

// "52:54:00:xx:xx:xx" with hex bytes; returns the six bytes.
absl::StatusOr<std::vector<int>> ParseMac(const std::string& mac) {
  std::vector<std::string> parts = absl::StrSplit(mac, ':');
  std::vector<int> bytes;
  for (const std::string& part : parts) {
    if (part.size() != 2 || !std::isxdigit(part[0]) || !std::isxdigit(part[1])) break;
    bytes.push_back(std::stoi(part, nullptr, 16));
  }
  if (parts.size() != 6 || bytes.size() != 6 || (bytes[0] & 1) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("mac: \"", mac, "\" is not a unicast MAC like 52:54:00:12:34:56"));
  }
  return bytes;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

absl::Status MakeSparseFile(const std::string& path, uint64_t bytes) {
  { std::ofstream create(path, std::ios::binary | std::ios::trunc); }
  std::error_code error;
  fs::resize_file(path, bytes, error);
  if (error) return absl::InternalError(absl::StrCat("cannot size ", path, ": ", error.message()));
  return absl::OkStatus();
}

// Binds a unix datagram socket at `path`.
absl::StatusOr<int> BindDatagram(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("socket path too long: ", path));
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  unlink(path.c_str());
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    const int error = errno;
    close(fd);
    return absl::InternalError(absl::StrCat("bind ", path, ": ", std::strerror(error)));
  }
  return fd;
}

}  // namespace

std::string VmFleet::PrivateMac(const std::string& mac) {
  absl::StatusOr<std::vector<int>> bytes = ParseMac(mac);
  if (!bytes.ok()) return "";
  return absl::StrFormat("%02x:%02x:%02x:%02x:%02x:%02x", (*bytes)[0], (*bytes)[1], (*bytes)[2],
                         (*bytes)[3], (*bytes)[4], ((*bytes)[5] + 0x80) & 0xff);
}

std::string VmFleet::UplinkAddress(int vm) { return absl::StrCat("10.0.2.", 15 + vm); }

absl::StatusOr<std::unique_ptr<VmFleet>> VmFleet::Create(VmFleetOptions options) {
  for (const std::string& file : {options.ovmf_code, options.ovmf_vars}) {
    if (!fs::exists(file)) {
      return absl::FailedPreconditionError(
          absl::StrCat(file, " is missing: install the Debian package ovmf (./dev test does)"));
    }
  }
  std::error_code error;
  options.relay = fs::absolute(options.relay, error).string();
  if (error || !fs::exists(options.relay)) {
    return absl::FailedPreconditionError(
        absl::StrCat(options.relay, " is missing: the test needs //tests/vm:guest_forward_relay"));
  }
  fs::create_directories(options.dir, error);
  if (error) return absl::InternalError(absl::StrCat("cannot create ", options.dir));
  std::unique_ptr<VmFleet> fleet(new VmFleet(std::move(options)));
  char socket_dir[] = "/tmp/vm-fleet-XXXXXX";
  if (mkdtemp(socket_dir) == nullptr) {
    return absl::InternalError(absl::StrCat("mkdtemp: ", std::strerror(errno)));
  }
  fleet->socket_dir_ = socket_dir;
  ASSIGN_OR_RETURN(fleet->hub_fd_, BindDatagram(fleet->HubPath()));
  // The hub wakes up every 200 ms to notice the fleet stopping.
  timeval tick{0, 200000};
  setsockopt(fleet->hub_fd_, SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof(tick));
  fleet->hub_ = std::thread([f = fleet.get()] { f->RunHub(); });
  return fleet;
}

VmFleet::~VmFleet() {
  for (Machine& machine : machines_) {
    if (machine.qemu) machine.qemu->Stop(absl::Seconds(2));
  }
  stopping_ = true;
  if (hub_.joinable()) hub_.join();
  if (hub_fd_ >= 0) close(hub_fd_);
  if (!socket_dir_.empty()) {
    std::error_code error;
    fs::remove_all(socket_dir_, error);
  }
}

std::string VmFleet::HubPath() const { return absl::StrCat(socket_dir_, "/hub.sock"); }
std::string VmFleet::PortPath(int vm) const {
  return absl::StrCat(socket_dir_, "/", machines_[vm].spec.name, ".sock");
}
std::string VmFleet::DiskPath(int vm) const {
  return absl::StrCat(options_.dir, "/", machines_[vm].spec.name, ".disk.raw");
}
std::string VmFleet::ConsolePath(int vm) const {
  return absl::StrCat(options_.dir, "/", machines_[vm].spec.name, ".boot", machines_[vm].boots,
                      ".console.log");
}

// An Ethernet hub: every frame a machine sends goes to every other machine's port. The machines
// are few and the traffic small, so flooding costs nothing worth a switch's MAC learning.
void VmFleet::RunHub() {
  std::string frame(65536, '\0');
  while (!stopping_) {
    sockaddr_un from{};
    socklen_t from_size = sizeof(from);
    const ssize_t n = recvfrom(hub_fd_, frame.data(), frame.size(), 0,
                               reinterpret_cast<sockaddr*>(&from), &from_size);
    if (n <= 0) continue;
    std::vector<std::string> ports;
    {
      absl::MutexLock lock(&ports_mu_);
      ports = ports_;
    }
    for (const std::string& port : ports) {
      if (port == from.sun_path) continue;
      sockaddr_un to{};
      to.sun_family = AF_UNIX;
      std::memcpy(to.sun_path, port.c_str(), std::min(port.size() + 1, sizeof(to.sun_path) - 1));
      // A machine that is off has no socket: the frame is lost, as on a cable to nothing.
      sendto(hub_fd_, frame.data(), static_cast<size_t>(n), MSG_DONTWAIT,
             reinterpret_cast<sockaddr*>(&to), sizeof(to));
    }
  }
}

absl::StatusOr<int> VmFleet::Add(const VmSpec& spec) {
  if (!ValidName(spec.name)) {
    return absl::InvalidArgumentError(absl::StrCat("name: \"", spec.name, "\" is not [a-z0-9-]+"));
  }
  RETURN_IF_ERROR(ParseMac(spec.mac).status());
  for (const HostForward& forward : spec.host_forwards) {
    // The address goes into QEMU's -netdev option string: nothing but an IPv4 address.
    if (forward.guest_address.empty() ||
        forward.guest_address.find_first_not_of("0123456789.") != std::string::npos ||
        forward.host_port <= 0 || forward.host_port > 65535 || forward.guest_port <= 0 ||
        forward.guest_port > 65535) {
      return absl::InvalidArgumentError(absl::StrCat("host_forwards: \"", forward.guest_address,
                                                     "\" port ", forward.guest_port, " from ",
                                                     forward.host_port, " is not valid"));
    }
  }
  if (static_cast<int>(machines_.size()) >= kMaxMachines) {
    return absl::ResourceExhaustedError(
        absl::StrCat("a fleet holds at most ", kMaxMachines, " machines"));
  }
  for (const Machine& machine : machines_) {
    if (machine.spec.name == spec.name) {
      return absl::AlreadyExistsError(absl::StrCat("name: ", spec.name, " is taken"));
    }
  }
  machines_.push_back(Machine{spec});
  const int vm = static_cast<int>(machines_.size()) - 1;
  {
    absl::MutexLock lock(&ports_mu_);
    ports_.push_back(PortPath(vm));
  }
  RETURN_IF_ERROR(MakeSparseFile(DiskPath(vm), spec.disk_bytes));
  std::error_code error;
  fs::copy_file(options_.ovmf_vars, absl::StrCat(options_.dir, "/", spec.name, ".vars.fd"),
                fs::copy_options::overwrite_existing, error);
  if (error)
    return absl::InternalError(absl::StrCat("cannot copy OVMF variables: ", error.message()));
  return vm;
}

absl::Status VmFleet::Boot(int vm, const BootOptions& boot) {
  Machine& machine = machines_.at(vm);
  if (Running(vm)) {
    return absl::FailedPreconditionError(absl::StrCat(machine.spec.name, " is already running"));
  }
  const VmSpec& spec = machine.spec;
  ++machine.boots;
  std::string uplink =
      absl::StrCat("user,id=uplink,restrict=on,net=10.0.2.0/24,dhcpstart=", UplinkAddress(vm));
  for (const GuestForward& forward : options_.forwards) {
    absl::StrAppend(&uplink, ",guestfwd=tcp:", forward.guest_address, ":", forward.guest_port,
                    "-cmd:", options_.relay, " ", forward.host_port);
  }
  for (const HostForward& forward : spec.host_forwards) {
    absl::StrAppend(&uplink, ",hostfwd=tcp:127.0.0.1:", forward.host_port, "-",
                    forward.guest_address, ":", forward.guest_port);
  }
  // TCG with one host thread for all vCPUs: a machine with the vCPUs a role requires must not
  // take more than one core of the host.
  std::vector<std::string> argv = {
      options_.qemu, "-accel", "tcg,thread=single", "-machine", "q35", "-m",
      absl::StrCat(spec.memory_mib), "-smp", absl::StrCat(spec.cpus), "-nographic", "-no-reboot",
      "-monitor", "none", "-serial", absl::StrCat("file:", ConsolePath(vm)), "-drive",
      absl::StrCat("if=pflash,format=raw,unit=0,readonly=on,file=", options_.ovmf_code), "-drive",
      absl::StrCat("if=pflash,format=raw,unit=1,file=", options_.dir, "/", spec.name, ".vars.fd"),
      "-smbios",
      absl::StrCat("type=1,manufacturer=QEMU,product=assisted-test-vm,serial=", spec.serial),
      "-drive",
      // cache=unsafe: the guest's flushes stop in the host's page cache, so a synchronous write
      // costs what the emulation costs, not what the loaded host's disk does (the install's
      // disk-speed check measures it). A killed QEMU loses nothing: the kernel holds the data.
      absl::StrCat("if=none,id=disk,format=raw,cache=unsafe,file=", DiskPath(vm)), "-device",
      "virtio-blk-pci,drive=disk,bootindex=2", "-netdev", uplink, "-device",
      absl::StrCat("virtio-net-pci,netdev=uplink,mac=", spec.mac), "-netdev",
      absl::StrCat("dgram,id=private,local.type=unix,local.path=", PortPath(vm),
                   ",remote.type=unix,remote.path=", HubPath()),
      "-device", absl::StrCat("virtio-net-pci,netdev=private,mac=", PrivateMac(spec.mac))};
  if (!boot.cdrom.empty()) {
    for (const std::string& arg :
         {std::string("-drive"),
          absl::StrCat("if=none,id=cd,media=cdrom,readonly=on,file=", boot.cdrom),
          std::string("-device"), std::string("ide-cd,drive=cd,bootindex=1")}) {
      argv.push_back(arg);
    }
  }
  unlink(PortPath(vm).c_str());
  ASSIGN_OR_RETURN(machine.qemu,
                   process::Subprocess::Start(
                       argv, {}, absl::StrCat(options_.dir, "/", spec.name, ".qemu.log")));
  return absl::OkStatus();
}

std::string VmFleet::ConsoleTail(int vm, size_t bytes) const {
  std::string text = ReadAll(ConsolePath(vm));
  if (text.size() > bytes) text = text.substr(text.size() - bytes);
  return text;
}

absl::Status VmFleet::WaitForConsole(int vm, const std::string& text, absl::Duration timeout) {
  Machine& machine = machines_.at(vm);
  const absl::Time deadline = absl::Now() + timeout;
  const std::string boot_log = ConsolePath(vm);
  while (true) {
    if (absl::StrContains(ReadAll(boot_log), text)) return absl::OkStatus();
    if (!Running(vm)) {
      return absl::AbortedError(absl::StrCat(machine.spec.name, " powered off before \"", text,
                                             "\"; console ", boot_log, ":\n", ConsoleTail(vm)));
    }
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          machine.spec.name, ": no \"", text, "\" within ", absl::FormatDuration(timeout),
          "; console ", boot_log, ":\n", ConsoleTail(vm)));
    }
    // Polling a file the guest writes to: there is nothing to block on.
    absl::SleepFor(absl::Milliseconds(250));
  }
}

absl::Status VmFleet::WaitForPowerOff(int vm, absl::Duration timeout) {
  Machine& machine = machines_.at(vm);
  if (!machine.qemu) return absl::OkStatus();
  absl::StatusOr<int> status = machine.qemu->Wait(timeout);
  if (!status.ok()) {
    return absl::DeadlineExceededError(absl::StrCat(machine.spec.name, " still running after ",
                                                    absl::FormatDuration(timeout), "; console:\n",
                                                    ConsoleTail(vm)));
  }
  return absl::OkStatus();
}

bool VmFleet::Running(int vm) {
  Machine& machine = machines_.at(vm);
  return machine.qemu != nullptr && !machine.qemu->Poll().has_value();
}

void VmFleet::PowerOff(int vm) {
  Machine& machine = machines_.at(vm);
  if (machine.qemu) machine.qemu->Stop(absl::Seconds(2));
}

}  // namespace assisted::testing
