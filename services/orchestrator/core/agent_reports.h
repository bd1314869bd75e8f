// File: services/orchestrator/core/agent_reports.h
//
// The agent's step outputs the validations read, as typed values, and their parsers from the
// JSON the agent sends (the reference's formats, which Host stores verbatim in connectivity,
// ntp_sources, images_status, disks_info, domain_name_resolutions, api_vip_connectivity and
// tang_connectivity). Parse once when a result arrives or when a cluster is loaded, then validate
// many times without touching JSON.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_AGENT_REPORTS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_AGENT_REPORTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
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
// connectivity-check output: {"remote_hosts": [{"host_id", "l2_connectivity": [...],
// "l3_connectivity": [...], "mtu_report": [...]}]}.
struct ConnectivityReport {
  std::vector<RemoteHostConnectivity> remote_hosts;
};

// ntp-synchronizer output: [{"source_name", "source_state"}] ("synced" counts).
struct NtpSource {
  std::string name;
  std::string state;
};

// container-image-availability output: [{"name", "result": "success"|"failure",
// "download_rate" (MB/s)}].
struct ImageStatus {
  std::string name;
  bool success = false;
  std::optional<double> download_rate_mbps;
};

// installation-disk-speed-check output, stored per disk in disks_info:
// [{"path", "disk_speed": {"tested", "speed_ms", "exit_code"}}].
struct DiskSpeed {
  std::string path;
  bool tested = false;
  int64_t speed_ms = 0;
  int64_t exit_code = 0;
};

// domain-resolution output: {"resolutions": [{"domain_name", "ipv4_addresses",
// "ipv6_addresses", "cnames"}]}.
struct DomainResolution {
  std::string domain;
  std::vector<std::string> ipv4;
  std::vector<std::string> ipv6;
  std::vector<std::string> cnames;

  bool Resolved() const { return !ipv4.empty() || !ipv6.empty() || !cnames.empty(); }
};

// api-vip-connectivity-check / tang-connectivity-check output: {"is_success", ...}.
struct ReachabilityCheck {
  bool success = false;
  std::string error;  // "download_error" (API VIP) or "error"; may be empty
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

// Parsers: INVALID_ARGUMENT naming the report when the JSON does not have the expected shape.
absl::StatusOr<ConnectivityReport> ParseConnectivity(absl::string_view json);
absl::StatusOr<std::vector<NtpSource>> ParseNtpSources(absl::string_view json);
absl::StatusOr<std::vector<ImageStatus>> ParseImagesStatus(absl::string_view json);
absl::StatusOr<std::vector<DiskSpeed>> ParseDisksInfo(absl::string_view json);
absl::StatusOr<std::vector<DomainResolution>> ParseDomainResolutions(absl::string_view json);
absl::StatusOr<ReachabilityCheck> ParseReachability(absl::string_view json);

// Parses every non-empty report field of `host`. A field that does not parse is left absent
// (the validations then pend) and its error is appended to `errors` when given.
HostReports ParseHostReports(const types::v1::Host& host,
                             std::vector<std::string>* errors = nullptr);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_AGENT_REPORTS_H_
