// File: services/agent/steps/install.h
//
// install (STEP_TYPE_INSTALL): writes the OS image and the host's Ignition to the installation
// disk, reports the installation stages, and hands the reboot over to the agent. THIS HEADER IS
// THE CONTRACT between the orchestrator (which builds the step) and the agent.
//
// args: exactly one JSON object (unknown keys are ignored, so the orchestrator may add some):
//   {
//     "cluster_id": "<uuid>",                       required
//     "host_id": "<uuid>",                          required
//     "role": "master" | "worker",                  required ("bootstrap" is accepted and means
//                                                   role master with bootstrap true)
//     "bootstrap": true | false,                    optional, default false
//     "boot_device": "/dev/...",                    required; the installation disk
//     "installer_args": ["--append-karg", "..."],  optional; --append-karg, --delete-karg,
//                                                   --copy-network (-n), --network-dir, applied
//                                                   as coreos-installer does (see below); any
//                                                   other argument is refused
//     "os_image": {"url": "https://...|http://...|file:///...",   required
//                  "sha256": "<64 hex>"},           optional; the image is refused on mismatch
//     "ignition": "<the host's full Ignition JSON text>",         required, non-empty
//     "high_availability_mode": "Full" | "None"     optional, default "Full"; "None" is SNO
//     "olm_operators": ["lvm", ...]                 optional; the OLM operators the cluster
//                                                   selected (at most 32 names), whose status
//                                                   the post-reboot reporter reports
//   }
// A bad argument gives exit code -1 and "invalid arguments: <field> ...".
//
// Progress (AgentMessage.progress, in this order; each stage once). Before the reboot, per role:
//   bootstrap master (HA): Starting installation, Installing, Writing image to disk,
//                          Waiting for control plane, Waiting for bootkube, Waiting for controller,
//                          Rebooting
//   other master:          Starting installation, Installing, Writing image to disk, Rebooting
//   worker:                Starting installation, Installing, Writing image to disk,
//                          Waiting for control plane, Rebooting
//   SNO (mode "None"):     Starting installation, Installing, Waiting for bootkube,
//                          Writing image to disk, Rebooting
// "Starting installation" and "Installing" carry the role as progress_info; "Writing image to
// disk" is repeated with progress_info "NN%" (stage_percentage NN) at least every 5 % and at
// 100 %. The agent does not wait for other hosts in the "Waiting for ..." stages (it has no view
// of the new cluster; the post-reboot reporter reports what follows). After the reboot the
// post-reboot reporter (services/agent/post_reboot.h: assisted-reporter on the installed OS, or
// a simulated host of the fleet) reports, through ControllerService.UpdateHostProgress (agent
// port, with Instruction.controller_token):
//   bootstrap, master: Configuring, Joined, Done
//   worker:            Waiting for ignition, Configuring, Joined, Done
//   SNO:               Joined, Done
// and, for the bootstrap host (an SNO's host too), the finalizing stages and the completion.
// A failure at any point: Progress "Failed" with the reason as progress_info, and a step
// result with exit code 1 (2 when the OS image cannot be fetched or does not match its sha256)
// and the reason in `error`.
//
// The step's own result (exit code 0, output {"boot_device","os_image_sha256",
// "ignition_sha256"}) is sent when the disk is written and verified, BEFORE "Rebooting"; the
// reboot then happens through InstallReporter::RebootAfterResult.
//
// Disk layout written (the same on a block device and on a simulated host's disk image file).
// The OS image is streamed to [0, S) (S its size), its sha256 checked, and read back. Then:
// - an OS disk image — a GPT with a partition named "boot" (./dev os-images' disk.raw, an RHCOS
//   metal image) — is finished the way `coreos-installer install` does (install_disk.h): the
//   backup GPT moves to the end of the disk; on the boot partition's ext4, written without
//   mounting: ignition/config.ign (mode 0600; the installed OS's initramfs applies it at first
//   boot), kargs.cfg with --append-karg/--delete-karg applied, coreos-firstboot-network/ with
//   the *.nmconnection keyfiles of --network-dir for --copy-network, and assisted/install.json,
//   the install record {"os_image_size","os_image_sha256","os_image_url","ignition_sha256",
//   "cluster_id","host_id","role","bootstrap","installer_args"}, and, when the agent holds the
//   install step's controller token (InstallReporter::PostRebootAccess), assisted/reporter.json
//   (mode 0600: it holds that token), what the installed OS's assisted-reporter needs
//   (reporter_settings.h: the agent's orchestrator address, TLS and CA bundle, the token, the
//   host's infra-env, cluster, id, role and mode); each file is read back;
// - any other image (a simulated host's placeholder bytes) is followed by the Ignition at
//   I = S rounded up to 1 MiB, and the record, with "ignition_offset" and "ignition_size", is a
//   footer in the disk's last 4096 bytes: "ASSISTED-INSTALL-1\n", one line of JSON, zeros.
// The boot order is then set with `efibootmgr -c -d <disk> -p 2 -L "Red Hat Enterprise Linux"
// -l \EFI\BOOT\BOOTX64.EFI` on UEFI hosts (failure only logged; skipped in simulation and on
// BIOS hosts): the removable-media loader every UEFI-bootable OS image carries on its EFI system
// partition (RHCOS's shim there, grub on ./dev os-images' disk.raw, which has no
// \EFI\redhat\shimx64.efi).

#ifndef ASSISTED_SERVICES_AGENT_STEPS_INSTALL_H_
#define ASSISTED_SERVICES_AGENT_STEPS_INSTALL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "assisted/types/v1/host.pb.h"
#include "lib/coreos/installer_args.h"
#include "services/agent/steps/reporter_settings.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

// The parsed install arguments.
struct InstallRequest {
  std::string cluster_id;
  std::string host_id;
  std::string role;  // "master" or "worker"
  bool bootstrap = false;
  std::string boot_device;
  std::vector<std::string> installer_args;
  std::string os_image_url;
  std::string os_image_sha256;  // lower-case hex, or empty
  std::string ignition;
  bool sno = false;  // high_availability_mode "None"
  std::vector<std::string> olm_operators;
};

// The installer_args the install step applies (lib/coreos/installer_args.h).
using coreos::InstallerArgs;
using coreos::ParseInstallerArgs;

// Parses and checks args[0]; INVALID_ARGUMENT naming the field.
absl::StatusOr<InstallRequest> ParseInstallRequest(const Step& step);

// The stages reported before the reboot (ending with REBOOTING) and after it (ending with
// DONE), per the lists above.
std::vector<types::v1::HostStage> StagesBeforeReboot(const InstallRequest& request);
std::vector<types::v1::HostStage> StagesAfterReboot(const InstallRequest& request);

// What the install step tells the agent. Implemented by the agent's session.
class InstallReporter {
 public:
  virtual ~InstallReporter() = default;
  // Sends a Progress message (kept until acknowledged, like results). percentage -1: unknown.
  virtual void Progress(types::v1::HostStage stage, const std::string& info, int percentage) = 0;
  // How the installed OS's post-reboot reporter reaches the orchestrator: what this agent knows
  // and the install step's controller token. nullopt (simulated hosts, tests): no
  // assisted/reporter.json is written.
  virtual std::optional<ControllerAccess> PostRebootAccess() { return std::nullopt; }
  // The install step succeeded: once its result has been handed to the session, report
  // Rebooting and reboot (a real host) or end the discovery session (a simulated host).
  virtual void RebootAfterResult(const InstallRequest& request) = 0;
};

struct InstallOptions {
  size_t chunk_bytes = 1 << 20;                       // write and read-back unit
  absl::Duration stage_delay = absl::ZeroDuration();  // simulated hosts: pause between stages
  absl::Duration download_timeout = absl::Minutes(30);
};

class InstallStep final : public StepExecutor {
 public:
  explicit InstallStep(InstallOptions options) : options_(options) {}
  StepType type() const override { return types::v1::STEP_TYPE_INSTALL; }
  absl::Duration default_timeout() const override { return absl::Hours(1); }
  StepResult Run(const Step& step, StepContext& context) override;

 private:
  const InstallOptions options_;
};

// The post-reboot reporter's settings for the host of `request`, reaching the orchestrator
// with `access`.
ReporterSettings ReporterSettingsFor(const InstallRequest& request, ControllerAccess access);

// What an installed disk holds, as read back from its install record and verified.
struct InstalledDisk {
  int64_t os_image_size = 0;
  std::string os_image_sha256;
  std::string os_image_url;
  std::string ignition;
  std::string ignition_sha256;
  std::string cluster_id;
  std::string host_id;
  std::string role;
  bool bootstrap = false;
  std::vector<std::string> installer_args;
};

// Reads the layout above from `path` (a disk or disk image) and checks the Ignition's digest, and
// for a placeholder image the image's (an installed disk image's GPT and boot partition were
// edited after its read-back). NOT_FOUND when there is no record (nothing installed);
// DATA_LOSS when a digest does not match or the GPT is damaged.
absl::StatusOr<InstalledDisk> ReadInstalledDisk(const std::string& path);

// Lower-case hex SHA-256 of `data` (shared by the writer, the reader and tests).
std::string Sha256Hex(absl::string_view data);

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_INSTALL_H_
