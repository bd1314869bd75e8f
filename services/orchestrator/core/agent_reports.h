// File: services/orchestrator/core/agent_reports.h
//
// The agent's step reports as the validations read them: a view built from the Host's typed
// report fields (connectivity_report, ntp_sources_report, ... in
// assisted/types/v1/step_reports.proto) once per refresh, without any JSON. The agent sends
// these typed; text from older agents or older rows is parsed at the edges (the orchestrator's
// step results, the inventory's row reader), never here.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_AGENT_REPORTS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_AGENT_REPORTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "assisted/types/v1/host.pb.h"

namespace assisted::orchestrator::core {

// One probe from this host toward an address of another host.
struct L2Probe {
  std::string remote_ip;
  std::string outgoing_nic;
  bool successful = false;
};
struct L3Probe {
  std::string remote_ip;
  bool successful = false;
  double average_rtt_ms = 0;
  double packet_loss_percentage = 0;
};
struct MtuProbe {
  std::string remote_ip;
  std::string outgoing_nic;
  bool successful = false;
};
struct RemoteHostConnectivity {
  std::string host_id;
  std::vector<L2Probe> l2;
  std::vector<L3Probe> l3;
  std::vector<MtuProbe> mtu;
};
// connectivity-check (Host.connectivity_report).
struct ConnectivityReport {
  std::vector<RemoteHostConnectivity> remote_hosts;
};

// ntp-synchronizer (Host.ntp_sources_report): "synced" counts.
struct NtpSource {
  std::string name;
  std::string state;
};

// container-image-availability (Host.images_status_report).
struct ImageStatus {
  std::string name;
  bool success = false;
  std::optional<double> download_rate_mbps;  // absent when not measured
};

// installation-disk-speed-check, per disk (Host.disks_info_report).
struct DiskSpeed {
  std::string path;
  bool tested = false;
  int64_t speed_ms = 0;
  int64_t exit_code = 0;
};

// domain-resolution (Host.domain_name_resolutions_report).
struct DomainResolution {
  std::string domain;
  std::vector<std::string> ipv4;
  std::vector<std::string> ipv6;
  std::vector<std::string> cnames;

  bool Resolved() const { return !ipv4.empty() || !ipv6.empty() || !cnames.empty(); }
};

// api-vip-connectivity-check / tang-connectivity-check.
struct ReachabilityCheck {
  bool success = false;
  std::string error;  // the API VIP check's download_error; may be empty
};

// Everything parsed for one host. Absent values mean "not reported yet".
struct HostReports {
  std::optional<ConnectivityReport> connectivity;
  std::optional<std::vector<NtpSource>> ntp_sources;
  std::optional<std::vector<ImageStatus>> images;
  std::optional<std::vector<DiskSpeed>> disk_speeds;
  std::optional<std::vector<DomainResolution>> domains;
  std::optional<ReachabilityCheck> api_vip;
  std::optional<ReachabilityCheck> tang;

  // The speed result of the disk at `path`, or nullptr.
  const DiskSpeed* SpeedOf(absl::string_view path) const;
  // The resolution of `domain` (a trailing dot is ignored), or nullptr.
  const DomainResolution* Resolution(absl::string_view domain) const;
};

// The reports `host` carries, from its typed fields. An unset field is absent.
HostReports ReportsOf(const types::v1::Host& host);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_AGENT_REPORTS_H_
