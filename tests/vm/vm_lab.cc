// File: tests/vm/vm_lab.cc

#include "tests/vm/vm_lab.h"

#include <fstream>
#include <iterator>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/http/content.h"
#include "lib/log/log.h"
#include "lib/status/status_macros.h"
#include "tests/harness/certificates.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/probes.h"

namespace assisted::testing {
namespace {

using nlohmann::json;

constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}})";
constexpr char kSshKey[] =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl vm";

}  // namespace

std::string WriteLabFile(const std::string& dir, const std::string& name,
                         const std::string& contents) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

StackOptions VmStackOptions(const std::string& images, const std::string& hw_requirements_file,
                            const std::vector<std::string>& orchestrator_flags) {
  StackOptions options = {
      .orchestrator_flags = {"--monitor-interval=500ms",
                             "--hw-requirements-file=" + hw_requirements_file},
      .authenticate_agents = true,
      .image = true,
      .image_base_iso = images + "/live.iso",
      .agents_dial_host = kOrchestratorGuestAddress,
      .gateway = true,
  };
  for (const std::string& flag : orchestrator_flags) options.orchestrator_flags.push_back(flag);
  return options;
}

std::vector<std::string> LabInstallerArgs() {
  std::vector<std::string> args;
  for (const char* argument : kLabKernelArguments) {
    args.push_back("--append-karg");
    args.push_back(argument);
  }
  return args;
}

std::string LabPrivateAddress(int machine) { return absl::StrCat("192.168.127.", 10 + machine); }

std::vector<std::string> HostProgress::Note(const json& listed, absl::Duration since_power_on) {
  std::vector<std::string> reached;
  host = listed;
  if (registered == absl::InfiniteDuration()) {
    registered = since_power_on;
    reached.push_back("registered");
  }
  if (inventoried == absl::InfiniteDuration() && !StringField(host, "inventory").empty()) {
    inventoried = since_power_on;
    reached.push_back("inventory received");
  }
  const std::string status = StringField(host, "status");
  const std::string validations = StringField(host, "validations_info");
  if (validated == absl::InfiniteDuration() && inventoried != absl::InfiniteDuration() &&
      (status == "known" || status == "insufficient") && HardwareValidated(validations) &&
      PendingChecks(validations).empty()) {
    validated = since_power_on;
    reached.push_back("validated");
  }
  if (known == absl::InfiniteDuration() && validated != absl::InfiniteDuration() &&
      status == "known") {
    known = since_power_on;
    reached.push_back("known");
  }
  if (installed == absl::InfiniteDuration() && status == "installed") {
    installed = since_power_on;
    reached.push_back("installed");
  }
  return reached;
}

absl::StatusOr<std::unique_ptr<FileServer>> FileServer::Start(const std::string& path,
                                                              const std::string& name) {
  ASSIGN_OR_RETURN(std::shared_ptr<const http::SharedFile> file, http::SharedFile::Open(path));
  http::Content content;
  content.body.Append(http::Segment::WholeFile(file));
  http::Router router;
  RETURN_IF_ERROR(router.Handle("GET", "/" + name, [content](const http::Request& request) {
    return http::ServeContent(request, content);
  }));
  std::unique_ptr<FileServer> server(new FileServer());
  ASSIGN_OR_RETURN(server->server_,
                   http::HttpServer::Start({.listen = "127.0.0.1:0", .io_threads = 1},
                                           std::move(router), nullptr, log::Logger::Discard()));
  return server;
}

FileServer::~FileServer() { server_->Shutdown(absl::Seconds(1)); }

absl::StatusOr<std::unique_ptr<LabInstallServers>> LabInstallServers::Start(
    const std::string& images, const std::string& dir) {
  std::ifstream manifest_file(images + "/manifest.json");
  const json manifest = json::parse(manifest_file, nullptr, /*allow_exceptions=*/false);
  std::unique_ptr<LabInstallServers> servers(new LabInstallServers());
  servers->disk_sha256_ = StringField(manifest, "disk_image_sha256");
  if (servers->disk_sha256_.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(images, "/manifest.json names no disk_image_sha256: run ./dev os-images"));
  }
  ASSIGN_OR_RETURN(servers->disk_, FileServer::Start(images + "/disk.raw", "disk.raw"));
  ASSIGN_OR_RETURN(servers->registry_, RegistryStandIn::Start(dir));
  return servers;
}

std::vector<std::string> LabInstallServers::OrchestratorFlags() const {
  return {absl::StrCat("--os-image-url=http://", kImagesGuestAddress, ":", kImagesGuestPort,
                       "/disk.raw"),
          "--os-image-sha256=" + disk_sha256_, "--release-images=" + StandInReleaseImages()};
}

std::vector<GuestForward> LabInstallServers::Forwards() const {
  return {{kImagesGuestAddress, kImagesGuestPort, disk_->port()}, registry_->Forward()};
}

absl::StatusOr<LabCluster> CreateLabCluster(const std::string& gateway, const std::string& token,
                                            const std::string& dir, int control_plane_count,
                                            const json& infra_env_fields) {
  const std::string pull_secret = WriteLabFile(dir, "pull-secret.json", kPullSecret);
  const std::string ssh_key = WriteLabFile(dir, "id.pub", kSshKey);
  auto run = [&](const std::vector<std::string>& args) -> absl::StatusOr<std::string> {
    const AictlOutcome outcome = RunAictl(gateway, token, args);
    if (outcome.code != 0) {
      return absl::InternalError(absl::StrCat("aictl ", absl::StrJoin(args, " "), " exited ",
                                              outcome.code, ": ", outcome.err));
    }
    return outcome.Trimmed();
  };
  std::vector<std::string> create = {"clusters",
                                     "create",
                                     "--name=vm",
                                     "--base-domain=example.com",
                                     "--openshift-version=4.16",
                                     absl::StrCat("--control-plane-count=", control_plane_count),
                                     "--pull-secret-file=" + pull_secret,
                                     "--ssh-key-file=" + ssh_key};
  if (control_plane_count == 1) {
    // The uplink's subnet (QEMU user-mode networking), as a user would pick the host's.
    for (const char* flag : {"--user-managed-networking", "--machine-networks=10.0.2.0/24"}) {
      create.push_back(flag);
    }
  } else {
    for (const std::string& flag : {absl::StrCat("--machine-networks=", kLabMachineNetwork),
                                    absl::StrCat("--api-vips=", kLabApiVip),
                                    absl::StrCat("--ingress-vips=", kLabIngressVip)}) {
      create.push_back(flag);
    }
  }
  LabCluster lab;
  ASSIGN_OR_RETURN(lab.cluster_id, run(create));
  ASSIGN_OR_RETURN(lab.infra_env_id,
                   run({"infra-envs", "create", "--cluster=" + lab.cluster_id,
                        "--pull-secret-file=" + pull_secret, "--ssh-key-file=" + ssh_key}));
  json fields = infra_env_fields.is_object() ? infra_env_fields : json::object();
  fields["kernel_arguments"] = json::array();
  for (const char* argument : kLabKernelArguments) {
    fields["kernel_arguments"].push_back({{"operation", "append"}, {"value", argument}});
  }
  RETURN_IF_ERROR(cli::RestClient({.server = gateway, .token = token})
                      .Call("PATCH", "/infra-envs/" + lab.infra_env_id, fields)
                      .status());
  lab.iso = dir + "/discovery.iso";
  RETURN_IF_ERROR(run({"iso", "download", lab.infra_env_id, "--output-file=" + lab.iso}).status());
  return lab;
}

json PrivateNicStaticNetwork(const std::string& mac, const std::string& address) {
  // "eth1" is a logical name: the discovery image's pre-network script and the host Ignition
  // put the real name of the NIC with this MAC in its place.
  const std::string yaml = absl::StrCat(
      "interfaces:\n"
      "- name: eth1\n"
      "  type: ethernet\n"
      "  state: up\n"
      "  ipv4:\n"
      "    enabled: true\n"
      "    dhcp: false\n"
      "    address:\n"
      "    - ip: ",
      address,
      "\n"
      "      prefix-length: 24\n"
      "  ipv6:\n"
      "    enabled: false\n");
  return {
      {"network_yaml", yaml},
      {"mac_interface_map",
       json::array({{{"mac_address", VmFleet::PrivateMac(mac)}, {"logical_nic_name", "eth1"}}})}};
}

absl::StatusOr<std::string> LabHwRequirements() {
  const std::string kBuiltIn = RunfilePath("services/orchestrator/core/data/hw_requirements.json");
  std::ifstream in(kBuiltIn);
  json requirements = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!requirements.is_object() || !requirements["default"]["roles"].is_object()) {
    return absl::InternalError(absl::StrCat("cannot read the requirements in ", kBuiltIn));
  }
  for (auto& [role, needs] : requirements["default"]["roles"].items()) {
    needs["cpu_cores"] = kSnoCpus;
    needs["ram_mib"] = kLabRamMib;
    needs["installation_disk_speed_threshold_ms"] = kLabDiskSyncMs;
    if (needs.contains("network_latency_threshold_ms")) {
      needs["network_latency_threshold_ms"] = kLabNetworkLatencyMs;
      needs["packet_loss_percentage"] = kLabPacketLossPercent;
    }
  }
  requirements["overrides"] = json::array();
  return requirements.dump(2);
}

std::string BootTimeline(const std::string& console) {
  std::optional<double> init, root, last;
  int systemd_starts = 0;  // systemd announces itself in the initramfs, then from the root
  for (absl::string_view line : absl::StrSplit(console, '\n')) {
    // "[   12.629286] Run /init as init process": a kernel message and its timestamp.
    const size_t close = line.find(']');
    double seconds = 0;
    if (!absl::StartsWith(line, "[") || close == absl::string_view::npos ||
        !absl::SimpleAtod(absl::StripAsciiWhitespace(line.substr(1, close - 1)), &seconds)) {
      continue;
    }
    last = seconds;
    if (!init && absl::StrContains(line, "Run /init")) init = seconds;
    if (absl::StrContains(line, "running in system mode") && ++systemd_starts == 2) root = seconds;
  }
  std::vector<std::string> parts;
  if (init) parts.push_back(absl::StrFormat("kernel until %.1f s", *init));
  if (root) parts.push_back(absl::StrFormat("initramfs until %.1f s", *root));
  if (last) parts.push_back(absl::StrFormat("last kernel message at %.1f s", *last));
  return parts.empty() ? "no kernel timestamps" : absl::StrJoin(parts, ", ");
}

std::string StringField(const json& object, const std::string& name) {
  if (!object.is_object() || !object.contains(name) || !object[name].is_string()) return "";
  return object[name].get<std::string>();
}

bool HardwareValidated(const std::string& validations_info) {
  const json info = json::parse(validations_info, nullptr, false);
  if (!info.is_object()) return false;
  int passed = 0;
  for (const auto& [category, results] : info.items()) {
    for (const json& v : results) {
      const std::string id = v.value("id", "");
      if (id == "has-inventory" || id == "has-min-cpu-cores" || id == "has-min-memory" ||
          id == "has-min-valid-disks" || id == "has-cpu-cores-for-role" ||
          id == "has-memory-for-role") {
        if (v.value("status", "") != "success") return false;
        ++passed;
      }
    }
  }
  return passed == 6;
}

std::vector<std::string> PendingChecks(const std::string& validations_info) {
  const json info = json::parse(validations_info, nullptr, false);
  std::vector<std::string> pending;
  if (!info.is_object()) return {"(no validations)"};
  for (const auto& [category, results] : info.items()) {
    for (const json& v : results) {
      const std::string id = v.value("id", "");
      if (v.value("status", "") == "pending" && id != "sufficient-installation-disk-speed" &&
          id != "container-images-available" && id != "mtu-valid") {
        pending.push_back(id);
      }
    }
  }
  return pending;
}

std::string MachineStopped(VmFleet& fleet, int vm, bool failed_units) {
  if (!fleet.Running(vm)) {
    return absl::StrCat("the machine powered off; console: ", fleet.ConsolePath(vm));
  }
  // The whole boot's console: systemd and the kernel go on writing after either.
  const std::string console = fleet.ConsoleTail(vm, 1 << 20);
  // A panicked kernel stays on its last message and QEMU runs on (no panic= reboot).
  if (absl::StrContains(console, "Kernel panic - not syncing")) {
    return absl::StrCat("the machine's kernel panicked; console: ", fleet.ConsolePath(vm));
  }
  // systemd says the first when it isolates emergency.target itself, the second when a unit's
  // failure pulls it in.
  if (absl::StrContains(console, "Entering emergency mode") ||
      absl::StrContains(console, "You are in emergency mode")) {
    return absl::StrCat("the machine's boot failed (emergency mode); console: ",
                        fleet.ConsolePath(vm));
  }
  if (!failed_units) return "";
  // systemd's console line for a unit that failed: "[FAILED] Failed to start x.service - …".
  if (const size_t failed = console.find("[FAILED] "); failed != std::string::npos) {
    const size_t end = console.find('\n', failed);
    return absl::StrCat("a unit failed (", console.substr(failed, end - failed),
                        "); console: ", fleet.ConsolePath(vm));
  }
  return "";
}

std::string StandInReleaseImages() {
  const std::string release = absl::StrCat(kRegistryGuestAddress, ":", kRegistryGuestPort,
                                           "/openshift-release-dev/ocp-release:4.16.3-x86_64");
  return json::array({{{"openshift_version", "4.16"},
                       {"cpu_architecture", "x86_64"},
                       {"url", release},
                       {"version", "4.16.3"}}})
      .dump();
}

absl::StatusOr<std::unique_ptr<RegistryStandIn>> RegistryStandIn::Start(const std::string& dir) {
  ASSIGN_OR_RETURN(TestCa ca, TestCa::Create(dir + "/registry-pki", "registry"));
  std::unique_ptr<RegistryStandIn> registry(new RegistryStandIn());
  std::ifstream in(ca.ca_file(), std::ios::binary);
  registry->ca_pem_.assign(std::istreambuf_iterator<char>(in), {});
  ASSIGN_OR_RETURN(auto cert, ca.Issue("registry", {kRegistryGuestAddress}));
  ASSIGN_OR_RETURN(registry->port_, FreePort());
  ASSIGN_OR_RETURN(registry->server_,
                   process::Subprocess::Start({"openssl", "s_server", "-quiet", "-www", "-accept",
                                               absl::StrCat("127.0.0.1:", registry->port_), "-cert",
                                               cert.cert, "-key", cert.key},
                                              {}, dir + "/registry.log"));
  return registry;
}

std::string InstallationFailed(const std::string& cluster_status, const json& host) {
  const std::string host_status = StringField(host, "status");
  const std::string info = StringField(host, "status_info");
  if (host_status == "error" || host_status == "insufficient" || cluster_status == "error" ||
      cluster_status == "insufficient" || absl::StrContains(info, "failed to prepare")) {
    return absl::StrCat("cluster ", cluster_status, ", host ", host_status, ": ", info);
  }
  return "";
}

namespace {

// The machine among `machines` one of whose NICs `host`'s inventory lists; -1 when none (yet).
int MachineOf(VmFleet& fleet, const std::vector<int>& machines, const json& host) {
  const json inventory = json::parse(StringField(host, "inventory"), nullptr, false);
  if (!inventory.is_object() || !inventory.contains("interfaces") ||
      !inventory["interfaces"].is_array()) {
    return -1;
  }
  for (const json& nic : inventory["interfaces"]) {
    const std::string mac = absl::AsciiStrToLower(StringField(nic, "mac_address"));
    for (int vm : machines) {
      if (!mac.empty() &&
          (mac == fleet.spec(vm).mac || mac == VmFleet::PrivateMac(fleet.spec(vm).mac))) {
        return vm;
      }
    }
  }
  return -1;
}

std::string Stage(const json& host) {
  return StringField(host.value("progress", json::object()), "current_stage");
}

// RunLabInstall's view of the cluster through the REST API: each host's milestones, its machine,
// and the cluster's status, refreshed by Look().
class LabWatch {
 public:
  LabWatch(VmFleet& fleet, const std::vector<int>& machines, cli::RestClient& rest,
           const std::string& cluster_id, absl::Time power_on,
           const std::function<void(const std::string&)>& say)
      : fleet_(fleet),
        machines_(machines),
        rest_(rest),
        cluster_id_(cluster_id),
        power_on_(power_on),
        say_(say) {}

  // Reads the cluster and its hosts and says what changed: the cluster's status, each host's
  // new milestones and installation stages.
  void Look() {
    absl::StatusOr<json> cluster = rest_.Call("GET", "/clusters/" + cluster_id_);
    absl::StatusOr<json> listed = rest_.Call("GET", "/clusters/" + cluster_id_ + "/hosts");
    if (cluster.ok()) {
      const std::string status = StringField(*cluster, "status");
      if (status != cluster_status_) say_("cluster " + status);
      cluster_status_ = status;
    }
    if (!listed.ok() || !listed->is_array()) return;
    for (const json& host : *listed) {
      const std::string id = StringField(host, "id");
      if (id.empty()) continue;
      if (machine_of_.count(id) == 0) {
        if (const int vm = MachineOf(fleet_, machines_, host); vm >= 0) machine_of_[id] = vm;
      }
      HostProgress& progress = hosts_[id];
      for (const std::string& milestone : progress.Note(host, absl::Now() - power_on_)) {
        say_(absl::StrCat(
            Name(id), ": ", milestone, " after ",
            absl::StrFormat("%.0f", absl::ToDoubleSeconds(absl::Now() - power_on_)), " s",
            milestone == "validated" ? absl::StrCat(", ", StringField(host, "status"), ": ",
                                                    StringField(host, "status_info"))
                                     : ""));
      }
      const std::string stage = Stage(host);
      if (!stage.empty() && stage != stages_[id]) {
        say_(absl::StrCat(Name(id), ": ", StringField(host, "status"), ", stage ", stage, " ",
                          StringField(host.value("progress", json::object()), "progress_info")));
      }
      stages_[id] = stage;
    }
  }

  // Every machine's host is listed and `status` now (or, with `ever_known`, was known once).
  bool AllHosts(const std::string& status, bool ever_known = false) const {
    if (machine_of_.size() < machines_.size()) return false;
    for (const auto& [id, progress] : hosts_) {
      const bool there = ever_known ? progress.known != absl::InfiniteDuration()
                                    : StringField(progress.host, "status") == status;
      if (!there) return false;
    }
    return true;
  }

  // The host of machine `vm` ("" before its inventory named it).
  std::string HostOf(int vm) const {
    for (const auto& [id, machine] : machine_of_) {
      if (machine == vm) return id;
    }
    return "";
  }
  HostProgress& progress(const std::string& id) { return hosts_[id]; }
  const std::map<std::string, HostProgress>& hosts() const { return hosts_; }
  const std::string& cluster_status() const { return cluster_status_; }

  // The machine's name, or the host id while its machine is unknown.
  std::string Name(const std::string& id) const {
    auto it = machine_of_.find(id);
    return it == machine_of_.end() ? "host " + id : fleet_.spec(it->second).name;
  }

  // Every host's status, why, its stage and the validations that do not pass; every console.
  std::string Summary() const {
    std::string text = absl::StrCat("; cluster ", cluster_status_, ", ", hosts_.size(), " of ",
                                    machines_.size(), " hosts registered");
    for (const auto& [id, progress] : hosts_) {
      absl::StrAppend(&text, "\n  ", Name(id), " (", id, ") ", StringField(progress.host, "status"),
                      ": ", StringField(progress.host, "status_info"), "; stage ",
                      Stage(progress.host));
      const json info = json::parse(StringField(progress.host, "validations_info"), nullptr, false);
      if (!info.is_object()) continue;
      for (const auto& [category, results] : info.items()) {
        for (const json& v : results) {
          const std::string status = v.value("status", "");
          if (status != "success") {
            absl::StrAppend(&text, "\n    ", v.value("id", ""), " ", status, ": ",
                            v.value("message", ""));
          }
        }
      }
    }
    for (int vm : machines_) {
      absl::StrAppend(&text, "\n  console of ", fleet_.spec(vm).name, ": ", fleet_.ConsolePath(vm));
    }
    return text;
  }

 private:
  VmFleet& fleet_;
  const std::vector<int>& machines_;
  cli::RestClient& rest_;
  const std::string cluster_id_;
  const absl::Time power_on_;
  const std::function<void(const std::string&)>& say_;
  std::string cluster_status_;
  std::map<std::string, HostProgress> hosts_;  // by host id
  std::map<std::string, int> machine_of_;      // host id -> machine
  std::map<std::string, std::string> stages_;  // host id -> last stage said
};

// The first machine that can no longer get anywhere, and why; "" when none.
std::string AnyStopped(VmFleet& fleet, const std::vector<int>& machines) {
  for (int vm : machines) {
    if (std::string why = MachineStopped(fleet, vm); !why.empty()) {
      return absl::StrCat(fleet.spec(vm).name, ": ", why);
    }
  }
  return "";
}

// The wait between two looks at the REST API: it has no watch (aictl wait polls it too).
constexpr absl::Duration kPollInterval = absl::Seconds(1);
// How long a machine may stay off before its host shows the Rebooting stage: the agent reports
// the stage, waits for its acknowledgement and only then reboots.
constexpr absl::Duration kRebootingReportGrace = absl::Minutes(1);

}  // namespace

absl::StatusOr<std::vector<HostProgress>> RunLabInstall(
    VmFleet& fleet, const std::vector<int>& machines, cli::RestClient& rest,
    const std::string& cluster_id, const std::string& infra_env_id, absl::Time power_on,
    const LabInstallOptions& options, const std::function<void(const std::string&)>& say) {
  LabWatch watch(fleet, machines, rest, cluster_id, power_on, say);
  auto by_machine = [&] {
    std::vector<HostProgress> result;
    for (int vm : machines) result.push_back(watch.progress(watch.HostOf(vm)));
    return result;
  };

  // Discovery: every machine's host registered and known (and the cluster ready to install).
  bool args_given = false;
  while (true) {
    watch.Look();
    if (std::string why = AnyStopped(fleet, machines); !why.empty()) {
      return absl::AbortedError(why + watch.Summary());
    }
    if (options.discovery_only && watch.AllHosts("known", /*ever_known=*/true)) {
      return by_machine();
    }
    if (!options.discovery_only && !args_given && watch.AllHosts("known")) {
      for (const auto& [id, progress] : watch.hosts()) {
        RETURN_IF_ERROR(
            rest.Call("PATCH",
                      absl::StrCat("/infra-envs/", infra_env_id, "/hosts/", id, "/installer-args"),
                      json{{"args", LabInstallerArgs()}})
                .status());
      }
      args_given = true;
    }
    if (args_given && watch.AllHosts("known") && watch.cluster_status() == "ready") break;
    if (absl::Now() - power_on > options.discovery_timeout) {
      return absl::DeadlineExceededError(absl::StrCat(
          "not every host known and the cluster ready within ",
          absl::FormatDuration(options.discovery_timeout), " of power-on", watch.Summary()));
    }
    absl::SleepFor(kPollInterval);
  }

  // Installation: each machine writes its disk and powers off to reboot; it is booted from its
  // disk, whose first boot applies the host's Ignition and reports until the cluster is
  // installed.
  RETURN_IF_ERROR(rest.Call("POST", "/clusters/" + cluster_id + "/actions/install").status());
  say("installation started");
  const absl::Time install_started = absl::Now();
  std::map<int, absl::Time> off_since;  // machines off, not yet seen Rebooting
  while (true) {
    watch.Look();
    if (watch.cluster_status() == "installed") break;
    for (const auto& [id, progress] : watch.hosts()) {
      if (std::string failed = InstallationFailed(watch.cluster_status(), progress.host);
          !failed.empty()) {
        return absl::AbortedError(absl::StrCat(watch.Name(id), ": ", failed, watch.Summary()));
      }
    }
    for (int vm : machines) {
      const std::string id = watch.HostOf(vm);
      if (id.empty()) continue;  // every host was known before the install
      HostProgress& progress = watch.progress(id);
      if (fleet.Running(vm)) {
        if (std::string why = MachineStopped(fleet, vm); !why.empty()) {
          return absl::AbortedError(absl::StrCat(fleet.spec(vm).name, ": ", why, watch.Summary()));
        }
        continue;
      }
      if (progress.rebooted != absl::InfiniteDuration() || Stage(progress.host) != "Rebooting") {
        const absl::Time since = off_since.emplace(vm, absl::Now()).first->second;
        if (absl::Now() - since > kRebootingReportGrace) {
          return absl::AbortedError(absl::StrCat(
              fleet.spec(vm).name, " powered off and its host does not show a reboot; console ",
              fleet.ConsolePath(vm), watch.Summary()));
        }
        continue;
      }
      off_since.erase(vm);
      progress.rebooted = absl::Now() - power_on;
      say(absl::StrCat(fleet.spec(vm).name, ": wrote its disk and rebooted after ",
                       absl::StrFormat("%.0f", absl::ToDoubleSeconds(progress.rebooted)),
                       " s; its console so far: ", BootTimeline(fleet.ConsoleTail(vm, 1 << 20))));
      RETURN_IF_ERROR(fleet.Boot(vm, {}));
      say(absl::StrCat(fleet.spec(vm).name, ": booting the installed OS from its disk; console ",
                       fleet.ConsolePath(vm)));
    }
    if (absl::Now() - install_started > options.install_timeout) {
      return absl::DeadlineExceededError(absl::StrCat("the cluster was not installed within ",
                                                      absl::FormatDuration(options.install_timeout),
                                                      " of the install", watch.Summary()));
    }
    absl::SleepFor(kPollInterval);
  }
  return by_machine();
}

}  // namespace assisted::testing
