// File: services/orchestrator/core/agent_reports.cc

#include "services/orchestrator/core/agent_reports.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"

namespace assisted::orchestrator::core {

namespace {

using nlohmann::json;

// Exception-free readers: a missing or mistyped field yields the default.
std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
double Num(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}
bool Bool(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}
std::vector<std::string> Strings(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const json& s : *it) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}
// The array at `key` (or `j` itself when key is null); empty when absent.
const json& Array(const json& j, const char* key) {
  static const json* const kEmpty = new json(json::array());
  if (key == nullptr) return j.is_array() ? j : *kEmpty;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : *kEmpty;
}

absl::StatusOr<json> Document(absl::string_view text, absl::string_view what, bool array) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || (array ? !j.is_array() : !j.is_object())) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": expected a JSON ", array ? "array" : "object"));
  }
  return j;
}

}  // namespace

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

absl::StatusOr<ConnectivityReport> ParseConnectivity(absl::string_view text) {
  absl::StatusOr<json> j = Document(text, "connectivity report", false);
  if (!j.ok()) return j.status();
  ConnectivityReport report;
  for (const json& remote : Array(*j, "remote_hosts")) {
    RemoteHostConnectivity r;
    r.host_id = Str(remote, "host_id");
    for (const json& p : Array(remote, "l2_connectivity")) {
      r.l2.push_back({Str(p, "remote_ip_address"), Str(p, "outgoing_nic"), Bool(p, "successful")});
    }
    for (const json& p : Array(remote, "l3_connectivity")) {
      r.l3.push_back({Str(p, "remote_ip_address"), Bool(p, "successful"), Num(p, "average_rtt_ms"),
                      Num(p, "packet_loss_percentage")});
    }
    for (const json& p : Array(remote, "mtu_report")) {
      r.mtu.push_back(
          {Str(p, "remote_ip_address"), Str(p, "outgoing_nic"), Bool(p, "mtu_successful")});
    }
    report.remote_hosts.push_back(std::move(r));
  }
  return report;
}

absl::StatusOr<std::vector<NtpSource>> ParseNtpSources(absl::string_view text) {
  absl::StatusOr<json> j = Document(text, "ntp sources", true);
  if (!j.ok()) return j.status();
  std::vector<NtpSource> out;
  for (const json& s : Array(*j, nullptr)) {
    out.push_back({Str(s, "source_name"), Str(s, "source_state")});
  }
  return out;
}

absl::StatusOr<std::vector<ImageStatus>> ParseImagesStatus(absl::string_view text) {
  absl::StatusOr<json> j = Document(text, "images status", true);
  if (!j.ok()) return j.status();
  std::vector<ImageStatus> out;
  for (const json& s : Array(*j, nullptr)) {
    ImageStatus status{Str(s, "name"), Str(s, "result") == "success", std::nullopt};
    if (s.contains("download_rate")) status.download_rate_mbps = Num(s, "download_rate");
    out.push_back(std::move(status));
  }
  return out;
}

absl::StatusOr<std::vector<DiskSpeed>> ParseDisksInfo(absl::string_view text) {
  absl::StatusOr<json> j = Document(text, "disks info", true);
  if (!j.ok()) return j.status();
  std::vector<DiskSpeed> out;
  for (const json& d : Array(*j, nullptr)) {
    DiskSpeed speed;
    speed.path = Str(d, "path");
    if (auto it = d.find("disk_speed"); it != d.end() && it->is_object()) {
      speed.tested = Bool(*it, "tested");
      speed.speed_ms = static_cast<int64_t>(Num(*it, "speed_ms"));
      speed.exit_code = static_cast<int64_t>(Num(*it, "exit_code"));
    }
    out.push_back(std::move(speed));
  }
  return out;
}

absl::StatusOr<std::vector<DomainResolution>> ParseDomainResolutions(absl::string_view text) {
  absl::StatusOr<json> j = Document(text, "domain resolutions", false);
  if (!j.ok()) return j.status();
  std::vector<DomainResolution> out;
  for (const json& r : Array(*j, "resolutions")) {
    out.push_back({Str(r, "domain_name"), Strings(r, "ipv4_addresses"),
                   Strings(r, "ipv6_addresses"), Strings(r, "cnames")});
  }
  return out;
}

absl::StatusOr<ReachabilityCheck> ParseReachability(absl::string_view text) {
  absl::StatusOr<json> j = Document(text, "reachability check", false);
  if (!j.ok()) return j.status();
  std::string error = Str(*j, "download_error");
  if (error.empty()) error = Str(*j, "error");
  return ReachabilityCheck{Bool(*j, "is_success"), std::move(error)};
}

namespace {

template <typename T>
void ParseInto(const std::string& text, absl::StatusOr<T> (*parse)(absl::string_view),
               std::optional<T>* out, std::vector<std::string>* errors) {
  if (text.empty()) return;
  absl::StatusOr<T> value = parse(text);
  if (value.ok()) {
    *out = *std::move(value);
  } else if (errors != nullptr) {
    errors->emplace_back(value.status().message());
  }
}

}  // namespace

HostReports ParseHostReports(const types::v1::Host& host, std::vector<std::string>* errors) {
  HostReports r;
  ParseInto(host.connectivity(), ParseConnectivity, &r.connectivity, errors);
  ParseInto(host.ntp_sources(), ParseNtpSources, &r.ntp_sources, errors);
  ParseInto(host.images_status(), ParseImagesStatus, &r.images, errors);
  ParseInto(host.disks_info(), ParseDisksInfo, &r.disk_speeds, errors);
  ParseInto(host.domain_name_resolutions(), ParseDomainResolutions, &r.domains, errors);
  ParseInto(host.api_vip_connectivity(), ParseReachability, &r.api_vip, errors);
  ParseInto(host.tang_connectivity(), ParseReachability, &r.tang, errors);
  return r;
}

}  // namespace assisted::orchestrator::core
