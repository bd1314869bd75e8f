// File: services/orchestrator/core/agent_reports.cc

#include "services/orchestrator/core/agent_reports.h"

#include <utility>

#include "absl/strings/strip.h"

namespace assisted::orchestrator::core {

const DiskSpeed* HostReports::SpeedOf(absl::string_view path) const {
  if (!disk_speeds) return nullptr;
  for (const DiskSpeed& d : *disk_speeds) {
    if (d.path == path) return &d;
  }
  return nullptr;
}

const DomainResolution* HostReports::Resolution(absl::string_view domain) const {
  if (!domains) return nullptr;
  domain = absl::StripSuffix(domain, ".");
  for (const DomainResolution& r : *domains) {
    if (absl::StripSuffix(r.domain, ".") == domain) return &r;
  }
  return nullptr;
}

namespace {

std::vector<std::string> Strings(const google::protobuf::RepeatedPtrField<std::string>& list) {
  return {list.begin(), list.end()};
}

ConnectivityReport ViewOf(const types::v1::ConnectivityReport& report) {
  ConnectivityReport view;
  view.remote_hosts.reserve(report.remote_hosts_size());
  for (const types::v1::ConnectivityRemoteHost& remote : report.remote_hosts()) {
    RemoteHostConnectivity& r = view.remote_hosts.emplace_back();
    r.host_id = remote.host_id();
    for (const types::v1::L2Connectivity& p : remote.l2_connectivity()) {
      r.l2.push_back({p.remote_ip_address(), p.outgoing_nic(), p.successful()});
    }
    for (const types::v1::L3Connectivity& p : remote.l3_connectivity()) {
      r.l3.push_back(
          {p.remote_ip_address(), p.successful(), p.average_rtt_ms(), p.packet_loss_percentage()});
    }
    for (const types::v1::MtuReport& p : remote.mtu_report()) {
      r.mtu.push_back({p.remote_ip_address(), p.outgoing_nic(), p.mtu_successful()});
    }
  }
  return view;
}

std::vector<NtpSource> ViewOf(const types::v1::NtpSynchronizationResponse& report) {
  std::vector<NtpSource> view;
  for (const types::v1::NtpSource& s : report.ntp_sources()) {
    view.push_back({s.source_name(), s.source_state()});
  }
  return view;
}

std::vector<ImageStatus> ViewOf(const types::v1::ContainerImageAvailabilityResponse& report) {
  std::vector<ImageStatus> view;
  for (const types::v1::ContainerImageAvailability& image : report.images()) {
    ImageStatus& status = view.emplace_back();
    status.name = image.name();
    status.success = image.result() == "success";
    if (image.download_rate() != 0) status.download_rate_mbps = image.download_rate();
  }
  return view;
}

std::vector<DiskSpeed> ViewOf(const types::v1::DisksInfo& report) {
  std::vector<DiskSpeed> view;
  for (const types::v1::DiskInfo& disk : report.disks()) {
    view.push_back({disk.path(), disk.disk_speed().tested(), disk.disk_speed().speed_ms(),
                    disk.disk_speed().exit_code()});
  }
  return view;
}

std::vector<DomainResolution> ViewOf(const types::v1::DomainResolutionResponse& report) {
  std::vector<DomainResolution> view;
  for (const types::v1::DomainResolution& r : report.resolutions()) {
    view.push_back({r.domain_name(), Strings(r.ipv4_addresses()), Strings(r.ipv6_addresses()),
                    Strings(r.cnames())});
  }
  return view;
}

ReachabilityCheck ViewOf(const types::v1::ApiVipConnectivityResponse& report) {
  return {report.is_success(), report.download_error()};
}

ReachabilityCheck ViewOf(const types::v1::TangConnectivityResponse& report) {
  return {report.is_success(), ""};
}

}  // namespace

HostReports ReportsOf(const types::v1::Host& host) {
  HostReports r;
  if (host.has_connectivity_report()) r.connectivity = ViewOf(host.connectivity_report());
  if (host.has_ntp_sources_report()) r.ntp_sources = ViewOf(host.ntp_sources_report());
  if (host.has_images_status_report()) r.images = ViewOf(host.images_status_report());
  if (host.has_disks_info_report()) r.disk_speeds = ViewOf(host.disks_info_report());
  if (host.has_domain_name_resolutions_report()) {
    r.domains = ViewOf(host.domain_name_resolutions_report());
  }
  if (host.has_api_vip_connectivity_report())
    r.api_vip = ViewOf(host.api_vip_connectivity_report());
  if (host.has_tang_connectivity_report()) r.tang = ViewOf(host.tang_connectivity_report());
  return r;
}

}  // namespace assisted::orchestrator::core
