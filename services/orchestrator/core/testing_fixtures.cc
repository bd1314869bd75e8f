// File: services/orchestrator/core/testing_fixtures.cc

#include "services/orchestrator/core/testing_fixtures.h"

#include <utility>

#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator::core::testing {

namespace {

ValidationResults Passing(const std::vector<absl::string_view>& ids) {
  ValidationResults results;
  for (absl::string_view id : ids) {
    results.Set({std::string(id), types::v1::VALIDATION_STATUS_SUCCESS,
                 types::v1::VALIDATION_CATEGORY_UNSPECIFIED, absl::StrCat(id, " passed")});
  }
  return results;
}

}  // namespace

google::protobuf::Timestamp Ts(absl::Time t) {
  google::protobuf::Timestamp ts;
  ts.set_seconds(absl::ToUnixSeconds(t));
  return ts;
}

std::string Ip(int i) { return absl::StrCat("10.0.0.", 10 + i); }

types::v1::Host HealthyHost(int i) {
  types::v1::Host h;
  h.set_id(absl::StrCat("h", i));
  h.set_cluster_id("c1");
  h.set_role(types::v1::HOST_ROLE_MASTER);
  h.set_status(types::v1::HOST_STATUS_KNOWN);
  *h.mutable_checked_in_at() = Ts(kNow);
  *h.mutable_timestamp() = Ts(kNow);
  h.set_media_status(types::v1::MEDIA_STATUS_CONNECTED);
  h.set_discovery_agent_version("quay.io/agent:1");
  h.set_installation_disk_id("wwn-sda");
  h.set_installation_disk_path("/dev/sda");
  types::v1::Inventory* inv = h.mutable_inventory();
  inv->set_hostname(absl::StrCat("master-", i));
  inv->mutable_cpu()->set_count(8);
  inv->mutable_cpu()->set_architecture("x86_64");
  inv->mutable_memory()->set_physical_bytes(int64_t{32} << 30);
  inv->mutable_memory()->set_physical_bytes_method(types::v1::PHYSICAL_MEMORY_METHOD_DMIDECODE);
  types::v1::Disk* d = inv->add_disks();
  d->set_id("wwn-sda");
  d->set_name("sda");
  d->set_path("/dev/sda");
  d->set_drive_type(types::v1::DRIVE_TYPE_SSD);
  d->set_size_bytes(int64_t{200} * 1'000'000'000);
  d->set_has_uuid(true);
  d->mutable_installation_eligibility()->set_eligible(true);
  types::v1::Interface* nic = inv->add_interfaces();
  nic->set_name("eth0");
  nic->set_mac_address(absl::StrCat("52:54:00:00:00:0", i));
  nic->add_ipv4_addresses(Ip(i) + "/24");
  types::v1::Route* route = inv->add_routes();
  route->set_destination("0.0.0.0");
  route->set_gateway("10.0.0.1");
  route->set_interface("eth0");
  inv->mutable_system_vendor()->set_manufacturer("Dell Inc.");
  inv->mutable_system_vendor()->set_product_name("PowerEdge R640");
  inv->set_tpm_version(types::v1::TPM_VERSION_2_0);
  inv->mutable_boot()->set_device_type(types::v1::BOOT_DEVICE_TYPE_EPHEMERAL);
  return h;
}

types::v1::ContainerImageAvailabilityResponse PulledImagesStatus() {
  types::v1::ContainerImageAvailabilityResponse report;
  types::v1::ContainerImageAvailability* image = report.add_images();
  image->set_name("quay.io/release");
  image->set_result("success");
  image->set_download_rate(50);
  return report;
}

types::v1::DisksInfo FastDisksInfo() {
  types::v1::DisksInfo report;
  types::v1::DiskInfo* disk = report.add_disks();
  disk->set_path("/dev/sda");
  disk->mutable_disk_speed()->set_tested(true);
  disk->mutable_disk_speed()->set_speed_ms(3);
  return report;
}

// Everything a healthy host reports; host i reaches every other host of `n`.
HostReports HealthyReports(int i, int n) {
  HostReports r;
  ConnectivityReport c;
  for (int j = 0; j < n; ++j) {
    if (j == i) continue;
    RemoteHostConnectivity remote;
    remote.host_id = absl::StrCat("h", j);
    remote.l2.push_back({Ip(j), "eth0", true});
    remote.l3.push_back({Ip(j), true, 1.5, 0});
    remote.mtu.push_back({Ip(j), "eth0", true});
    c.remote_hosts.push_back(std::move(remote));
  }
  r.connectivity = std::move(c);
  r.ntp_sources = std::vector<NtpSource>{{"pool.ntp.org", "synced"}};
  r.images = std::vector<ImageStatus>{{"quay.io/release", true, 50.0}};
  r.disk_speeds = std::vector<DiskSpeed>{{"/dev/sda", true, 3, 0}};
  r.domains = std::vector<DomainResolution>{
      {"api.c.example.com", {"10.0.0.5"}, {}, {}},
      {"api-int.c.example.com", {"10.0.0.5"}, {}, {}},
      {"*.apps.c.example.com", {"10.0.0.6"}, {}, {}},
      {"quay.io", {"3.3.3.3"}, {}, {}},
  };
  r.api_vip = ReachabilityCheck{true, ""};
  r.tang = ReachabilityCheck{true, ""};
  return r;
}

types::v1::Cluster HealthyCluster() {
  types::v1::Cluster cluster;
  cluster.set_id("c1");
  cluster.set_name("c");
  cluster.set_base_dns_domain("example.com");
  cluster.set_openshift_version("4.16.3");
  cluster.set_ocp_release_image("quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64");
  cluster.set_control_plane_count(3);
  cluster.mutable_platform()->set_type(types::v1::PLATFORM_TYPE_BAREMETAL);
  cluster.add_machine_networks()->set_cidr("10.0.0.0/24");
  types::v1::ClusterNetwork* pods = cluster.add_cluster_networks();
  pods->set_cidr("10.128.0.0/14");
  pods->set_host_prefix(23);
  cluster.add_service_networks()->set_cidr("172.30.0.0/16");
  cluster.add_api_vips()->set_ip("10.0.0.5");
  cluster.add_ingress_vips()->set_ip("10.0.0.6");
  cluster.set_pull_secret_set(true);
  cluster.set_network_type(types::v1::NETWORK_TYPE_OVN_KUBERNETES);
  return cluster;
}

ValidationResults PassingHostValidations() { return Passing(CoreHostValidationIds()); }

ValidationResults PassingClusterValidations() { return Passing(CoreClusterValidationIds()); }

void SetStatus(ValidationResults* results, absl::string_view id, types::v1::ValidationStatus status,
               std::string message) {
  ValidationOutcome outcome;
  if (const ValidationOutcome* old = results->Find(id)) outcome = *old;
  outcome.id = std::string(id);
  outcome.status = status;
  if (message.empty()) message = absl::StrCat(id, " is ", static_cast<int>(status));
  outcome.message = std::move(message);
  results->Set(std::move(outcome));
}

}  // namespace assisted::orchestrator::core::testing
