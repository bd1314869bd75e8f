// File: tests/vm/vm_lab.cc

#include "tests/vm/vm_lab.h"

#include <fstream>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/status/status_macros.h"
#include "services/gateway/cli/rest_client.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/probes.h"
#include "tests/vm/vm_fleet.h"

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
  return reached;
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
  LabCluster lab;
  ASSIGN_OR_RETURN(
      lab.cluster_id,
      run({"clusters", "create", "--name=vm", "--base-domain=example.com",
           "--openshift-version=4.16", absl::StrCat("--control-plane-count=", control_plane_count),
           "--user-managed-networking",
           // The uplink's subnet (QEMU user-mode networking), as a user would pick the host's.
           "--machine-networks=10.0.2.0/24", "--pull-secret-file=" + pull_secret,
           "--ssh-key-file=" + ssh_key}));
  ASSIGN_OR_RETURN(lab.infra_env_id,
                   run({"infra-envs", "create", "--cluster=" + lab.cluster_id,
                        "--pull-secret-file=" + pull_secret, "--ssh-key-file=" + ssh_key}));
  if (!infra_env_fields.empty()) {
    RETURN_IF_ERROR(cli::RestClient({.server = gateway, .token = token})
                        .Call("PATCH", "/infra-envs/" + lab.infra_env_id, infra_env_fields)
                        .status());
  }
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

}  // namespace assisted::testing
