#include "services/orchestrator/install/install_step.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"
#include "services/orchestrator/core/inventory_util.h"
#include "services/orchestrator/core/next_steps.h"
#include "services/orchestrator/install/ignition_configs.h"
#include "services/orchestrator/install/install_config.h"

namespace assisted::orchestrator::install {

absl::Status CheckOsImage(const OsImage& image) {
  if (!absl::StartsWith(image.url, "http://") && !absl::StartsWith(image.url, "https://") &&
      !absl::StartsWith(image.url, "file:///")) {
    return absl::InvalidArgumentError(
        absl::StrCat("os_image.url: \"", image.url, "\" is not an http(s):// or file:/// URL"));
  }
  const bool hex = image.sha256.size() == 64 &&
                   std::all_of(image.sha256.begin(), image.sha256.end(), [](char c) {
                     return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'f');
                   });
  if (!hex) {
    return absl::InvalidArgumentError("os_image.sha256: must be 64 lower-case hex digits");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> InstallStepBuilder::Args(const types::v1::Cluster& cluster,
                                                     const types::v1::Host& host,
                                                     absl::string_view ignition) const {
  if (ignition.empty()) return absl::InvalidArgumentError("ignition: empty");
  if (host.role() == types::v1::HOST_ROLE_AUTO_ASSIGN ||
      host.role() == types::v1::HOST_ROLE_UNSPECIFIED) {
    return absl::FailedPreconditionError(
        absl::StrCat("host ", host.id(), " has no role; roles are assigned at install time"));
  }
  std::string device = host.installation_disk_path();
  if (const types::v1::Disk* disk = core::InstallationDisk(host)) device = disk->path();
  if (!absl::StartsWith(device, "/dev/")) {
    return absl::FailedPreconditionError(
        absl::StrCat("host ", host.id(), " has no installation disk"));
  }
  nlohmann::json args = {
      {"cluster_id", cluster.id()},
      {"host_id", host.id()},
      {"role", std::string(PointerRole(host.role()))},
      {"bootstrap", host.bootstrap()},
      {"boot_device", device},
      {"installer_args", nlohmann::json::array()},
      {"os_image", {{"url", image_.url}, {"sha256", image_.sha256}}},
      {"ignition", std::string(ignition)},
      {"high_availability_mode", IsSingleNode(cluster) ? "None" : "Full"},
  };
  for (const std::string& arg : host.installer_args()) args["installer_args"].push_back(arg);
  // The operators whose status the bootstrap host's post-reboot reporter reports.
  args["olm_operators"] = nlohmann::json::array();
  for (const types::v1::MonitoredOperator& op : cluster.monitored_operators()) {
    if (op.operator_type() == types::v1::OPERATOR_TYPE_OLM)
      args["olm_operators"].push_back(op.name());
  }
  return args.dump();
}

absl::StatusOr<types::v1::Step> InstallStepBuilder::Step(const types::v1::Cluster& cluster,
                                                         const types::v1::Host& host,
                                                         absl::string_view ignition,
                                                         Random& random) const {
  ASSIGN_OR_RETURN(std::string args, Args(cluster, host, ignition));
  types::v1::Step step;
  step.set_step_type(types::v1::STEP_TYPE_INSTALL);
  step.set_step_id(core::NewStepId(types::v1::STEP_TYPE_INSTALL, random));
  step.add_args(std::move(args));
  return step;
}

}  // namespace assisted::orchestrator::install
