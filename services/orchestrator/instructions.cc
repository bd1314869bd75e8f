// File: services/orchestrator/instructions.cc

#include "services/orchestrator/instructions.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "absl/algorithm/container.h"
#include "absl/hash/hash.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "lib/net/ip.h"
#include "nlohmann/json.hpp"
#include "services/orchestrator/core/cluster_facts.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/next_steps.h"

namespace assisted::orchestrator {
namespace {

using nlohmann::json;

// The reference's limits: 8 minutes for the disk check, 16 for all images.
constexpr int kDiskSpeedTimeoutSeconds = 480;
constexpr int kImagesTimeoutSeconds = 960;

absl::Status Missing(types::v1::StepType type, absl::string_view what) {
  return absl::NotFoundError(absl::StrCat(core::StepTypeName(type), ": ", what));
}

// free-network-addresses: the cluster's IPv4 machine networks, else the host's own IPv4
// networks, canonical and without duplicates.
json FreeAddressNetworks(const InstructionInput& input) {
  std::set<std::string> networks;
  if (input.cluster != nullptr) {
    for (const types::v1::MachineNetwork& network : input.cluster->machine_networks()) {
      absl::StatusOr<net::Cidr> cidr = net::Cidr::ParseInterface(network.cidr());
      if (cidr.ok() && cidr->family() == net::Family::kIpv4) networks.insert(cidr->ToString());
    }
  }
  if (networks.empty()) {
    for (const types::v1::Interface& nic : input.host.inventory().interfaces()) {
      for (const std::string& address : nic.ipv4_addresses()) {
        absl::StatusOr<net::Cidr> cidr = net::Cidr::ParseInterface(address);
        // Larger blocks are the agent's to refuse; a /22 is the reference's largest scan.
        if (cidr.ok() && cidr->prefix_length() >= 22) networks.insert(cidr->ToString());
      }
    }
  }
  return json(std::vector<std::string>(networks.begin(), networks.end()));
}

}  // namespace

ConnectivityTargets::ConnectivityTargets(const std::vector<types::v1::Host>& cluster_hosts) {
  for (const types::v1::Host& host : cluster_hosts) {
    if (!host.has_inventory()) continue;
    json nics = json::array();
    for (const types::v1::Interface& nic : host.inventory().interfaces()) {
      json addresses = json::array();
      for (const std::string& a : nic.ipv4_addresses()) addresses.push_back(a);
      for (const std::string& a : nic.ipv6_addresses()) addresses.push_back(a);
      if (addresses.empty()) continue;
      nics.push_back(
          {{"name", nic.name()}, {"mac", nic.mac_address()}, {"ip_addresses", addresses}});
    }
    entries_.emplace_back(host.id(), json{{"host_id", host.id()}, {"nics", nics}}.dump());
  }
  absl::c_sort(entries_);
}

std::string ConnectivityTargets::For(const std::string& host_id) const {
  std::string list;
  for (const auto& [id, entry] : entries_) {
    if (id == host_id) continue;
    absl::StrAppend(&list, list.empty() ? "[" : ",", entry);
  }
  return list.empty() ? list : list + "]";
}

absl::StatusOr<std::vector<std::string>> StepArgs(types::v1::StepType type,
                                                  const InstructionInput& input) {
  const types::v1::Cluster* cluster = input.cluster;
  switch (type) {
    case types::v1::STEP_TYPE_INVENTORY:
      return std::vector<std::string>{input.host.id()};
    case types::v1::STEP_TYPE_CONNECTIVITY_CHECK: {
      std::string targets = input.connectivity != nullptr
                                ? input.connectivity->For(input.host.id())
                                : ConnectivityTargets(input.cluster_hosts).For(input.host.id());
      if (targets.empty()) return Missing(type, "no other host to check");
      return std::vector<std::string>{std::move(targets)};
    }
    case types::v1::STEP_TYPE_FREE_NETWORK_ADDRESSES: {
      json networks = FreeAddressNetworks(input);
      if (networks.empty()) return Missing(type, "no IPv4 network to scan");
      return std::vector<std::string>{networks.dump()};
    }
    case types::v1::STEP_TYPE_NTP_SYNCHRONIZER:
      if (cluster == nullptr || cluster->additional_ntp_source().empty()) {
        return std::vector<std::string>{};
      }
      return std::vector<std::string>{
          json{{"ntp_source", cluster->additional_ntp_source()}}.dump()};
    case types::v1::STEP_TYPE_DOMAIN_RESOLUTION: {
      if (cluster == nullptr || cluster->base_dns_domain().empty()) {
        return Missing(type, "the cluster has no base DNS domain");
      }
      const core::ClusterDomains domains = core::DomainsOf(*cluster);
      json names = json::array();
      for (const std::string* name : {&domains.api, &domains.api_int, &domains.apps,
                                      &domains.wildcard_probe, &domains.release}) {
        if (!name->empty()) names.push_back({{"domain_name", *name}});
      }
      return std::vector<std::string>{json{{"domains", names}}.dump()};
    }
    case types::v1::STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY: {
      const std::string& release = !input.release_image.empty() ? input.release_image
                                   : cluster != nullptr         ? cluster->ocp_release_image()
                                                                : input.release_image;
      if (release.empty()) return Missing(type, "the release image is not known");
      return std::vector<std::string>{
          json{{"images", {release}}, {"timeout", kImagesTimeoutSeconds}}.dump()};
    }
    case types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK:
      if (input.host.installation_disk_path().empty()) {
        return Missing(type, "no installation disk chosen");
      }
      return std::vector<std::string>{json{{"path", input.host.installation_disk_path()}}.dump(),
                                      std::to_string(kDiskSpeedTimeoutSeconds)};
    case types::v1::STEP_TYPE_API_VIP_CONNECTIVITY_CHECK: {
      // Day-2: the machine config server of the existing cluster, as the host's first boot
      // will reach it (the user's ignition endpoint when set).
      if (cluster == nullptr) return Missing(type, "the host is in no cluster");
      const std::string pool = input.host.machine_config_pool_name().empty()
                                   ? std::string("worker")
                                   : input.host.machine_config_pool_name();
      json args;
      if (std::optional<std::string> url = core::UserIgnitionEndpointUrl(*cluster, pool)) {
        args["url"] = *url;
        if (!cluster->ignition_endpoint().ca_certificate().empty()) {
          args["ca_certificate"] =
              absl::Base64Escape(cluster->ignition_endpoint().ca_certificate());
        }
      } else {
        const std::string host = !cluster->api_vip_dns_name().empty()
                                     ? cluster->api_vip_dns_name()
                                     : core::DomainsOf(*cluster).api;
        if (host.empty()) return Missing(type, "the cluster's API name is not known");
        args["url"] = absl::StrCat("http://", host, ":22623/config/", pool);
      }
      return std::vector<std::string>{args.dump()};
    }
    case types::v1::STEP_TYPE_LOGS_GATHER:
      return std::vector<std::string>{json{
          {"cluster_id", input.host.cluster_id()},
          {"host_id", input.host.id()},
          {"infra_env_id", input.host.infra_env_id()},
          {"bootstrap", input.host.bootstrap()},
          {"installer_gather", true},
          {"master_ips", json::array()}}.dump()};
    case types::v1::STEP_TYPE_STOP_INSTALLATION:
      return std::vector<std::string>{};
    default:
      return Missing(type, "the default instruction source has no arguments for it");
  }
}

absl::StatusOr<std::vector<types::v1::Step>> DefaultInstructions::StepsFor(
    const InstructionInput& input) {
  core::NextStepsInput next;
  next.status = input.host.status();
  next.kind = input.cluster == nullptr ? core::StepsKind::kUnbound
              : input.cluster->kind() == types::v1::CLUSTER_KIND_ADD_HOSTS_CLUSTER
                  ? core::StepsKind::kDay2
                  : core::StepsKind::kDay1;
  next.disk_speed_measured =
      absl::c_any_of(input.host.disks_info_report().disks(), [&](const types::v1::DiskInfo& disk) {
        return disk.path() == input.host.installation_disk_path();
      });
  next.persistent_boot =
      input.host.inventory().boot().device_type() == types::v1::BOOT_DEVICE_TYPE_PERSISTENT;
  core::NextSteps selected;
  {
    absl::MutexLock lock(&mu_);
    selected = core::SelectNextSteps(next, random_);
  }
  InstructionInput resolved = input;
  if (input.cluster != nullptr && resolved.release_image.empty()) {
    resolved.release_image = ReleaseImageFor(*input.cluster, release_images_);
  }
  std::vector<types::v1::Step> steps;
  for (types::v1::Step& step : selected.steps) {
    absl::StatusOr<std::vector<std::string>> args = StepArgs(step.step_type(), resolved);
    if (!args.ok()) continue;  // nothing the agent could run yet
    for (std::string& arg : *args) step.add_args(std::move(arg));
    steps.push_back(std::move(step));
  }
  return steps;
}

SentStep Sent(const types::v1::Step& step) {
  const std::vector<absl::string_view> args(step.args().begin(), step.args().end());
  return SentStep{step.step_type(), absl::Hash<std::vector<absl::string_view>>{}(args)};
}

std::vector<types::v1::Step> NewWork(const std::vector<SentStep>& before,
                                     const std::vector<types::v1::Step>& now) {
  std::vector<types::v1::Step> fresh;
  for (const types::v1::Step& step : now) {
    if (!absl::c_linear_search(before, Sent(step))) fresh.push_back(step);
  }
  return fresh;
}

absl::Status LoggingProgressSink::OnProgress(const types::v1::Host& host,
                                             const agent::v1::Progress& progress) {
  log_.Info("install progress", {{"host_id", host.id()},
                                 {"stage", core::HostStageName(progress.current_stage())},
                                 {"info", progress.progress_info()}});
  return absl::OkStatus();
}

}  // namespace assisted::orchestrator
