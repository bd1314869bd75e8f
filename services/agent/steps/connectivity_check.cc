// File: services/agent/steps/connectivity_check.cc

#include "services/agent/steps/connectivity_check.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "services/agent/steps/json_args.h"
#include "services/agent/steps/parallel.h"

namespace assisted::agent::steps {

namespace {

using nlohmann::json;

struct RemoteHost {
  std::string host_id;
  std::set<std::string> macs;             // lower case
  std::vector<net::IpAddress> addresses;  // sorted, unique
};

// "10.0.0.5/24" or "10.0.0.5" -> 10.0.0.5.
absl::StatusOr<net::IpAddress> AddressOf(absl::string_view text) {
  const size_t slash = text.find('/');
  if (slash != absl::string_view::npos) {
    RETURN_IF_ERROR(net::Cidr::ParseInterface(text).status());
  }
  return net::IpAddress::Parse(text.substr(0, slash));
}

absl::StatusOr<std::vector<RemoteHost>> ParseHosts(const Step& step,
                                                   const ConnectivityCheckOptions& options) {
  RETURN_IF_ERROR(CheckArgCount(step, 1, 1));
  ASSIGN_OR_RETURN(json hosts, JsonArg(step, 0, JsonKind::kArray));
  if (hosts.size() > options.max_hosts) {
    return absl::InvalidArgumentError(
        absl::StrCat(hosts.size(), " hosts, at most ", options.max_hosts));
  }
  std::vector<RemoteHost> out;
  std::set<std::string> seen;
  size_t addresses = 0;
  for (const json& host : hosts) {
    RemoteHost remote;
    ASSIGN_OR_RETURN(remote.host_id, StringField(host, "host_id", Need::kRequired, 64));
    RETURN_IF_ERROR(CheckId(remote.host_id, "host_id"));
    if (!seen.insert(remote.host_id).second) {
      return absl::InvalidArgumentError(absl::StrCat("host ", remote.host_id, " listed twice"));
    }
    ASSIGN_OR_RETURN(json nics, ArrayField(host, "nics", Need::kOptional, 256));
    for (const json& nic : nics) {
      ASSIGN_OR_RETURN(std::string mac, StringField(nic, "mac", Need::kOptional, 64));
      if (!mac.empty()) remote.macs.insert(absl::AsciiStrToLower(mac));
      RETURN_IF_ERROR(StringField(nic, "name", Need::kOptional, 64).status());
      ASSIGN_OR_RETURN(json ips, ArrayField(nic, "ip_addresses", Need::kOptional, 256));
      ASSIGN_OR_RETURN(std::vector<std::string> texts, StringList(ips, "ip_addresses", 256, 64));
      for (const std::string& text : texts) {
        absl::StatusOr<net::IpAddress> address = AddressOf(text);
        if (!address.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("host ", remote.host_id, ": ", address.status().message()));
        }
        remote.addresses.push_back(*address);
      }
    }
    std::sort(remote.addresses.begin(), remote.addresses.end());
    remote.addresses.erase(std::unique(remote.addresses.begin(), remote.addresses.end()),
                           remote.addresses.end());
    addresses += remote.addresses.size();
    out.push_back(std::move(remote));
  }
  if (addresses > options.max_addresses) {
    return absl::InvalidArgumentError(
        absl::StrCat(addresses, " addresses to check, at most ", options.max_addresses));
  }
  std::sort(out.begin(), out.end(),
            [](const RemoteHost& a, const RemoteHost& b) { return a.host_id < b.host_id; });
  return out;
}

struct L3Outcome {
  int sent = 0;
  int answered = 0;
  absl::Duration total_rtt;
};

// This host's IPv4 address on `device` in the same /prefix as `remote`, as the ARP request
// would have used; empty when none is found.
std::string LocalAddressOn(const std::string& device, const net::IpAddress& remote) {
  if (device.empty() || remote.family() != net::Family::kIpv4) return "";
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string found;
  for (ifaddrs* a = list; a != nullptr && found.empty(); a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_netmask == nullptr || a->ifa_addr->sa_family != AF_INET ||
        device != a->ifa_name) {
      continue;
    }
    uint32_t local, mask, other;
    std::memcpy(&local, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, 4);
    std::memcpy(&mask, &reinterpret_cast<sockaddr_in*>(a->ifa_netmask)->sin_addr, 4);
    std::memcpy(&other, remote.bytes().data(), 4);
    if ((local & mask) != (other & mask)) continue;
    char text[INET_ADDRSTRLEN];
    if (inet_ntop(AF_INET, &local, text, sizeof(text)) != nullptr) found = text;
  }
  freeifaddrs(list);
  return found;
}

}  // namespace

ConnectivityCheck::ConnectivityCheck(ConnectivityCheckOptions options)
    : options_(std::move(options)), prober_(options_.probe) {}

StepResult ConnectivityCheck::Run(const Step& step, StepContext& context) {
  absl::StatusOr<std::vector<RemoteHost>> hosts = ParseHosts(step, options_);
  if (!hosts.ok()) return InvalidArgsResult(hosts.status());

  std::vector<std::pair<size_t, net::IpAddress>> targets;  // (host index, address)
  for (size_t h = 0; h < hosts->size(); ++h) {
    for (const net::IpAddress& a : (*hosts)[h].addresses) targets.emplace_back(h, a);
  }
  std::vector<L3Outcome> l3(targets.size());
  ParallelFor(targets.size(), options_.max_parallel, [&](size_t i) {
    for (int n = 0; n < options_.probes_per_address && !context.cancelled(); ++n) {
      if (n > 0 && context.cancellation.SleepUnlessCancelled(options_.probe_interval)) break;
      const absl::Duration budget = context.Budget(options_.probe_timeout);
      if (budget <= absl::ZeroDuration()) break;
      std::optional<absl::Duration> rtt = prober_.Probe(targets[i].second, budget, context);
      ++l3[i].sent;
      if (rtt.has_value()) {
        ++l3[i].answered;
        l3[i].total_rtt += *rtt;
      }
    }
  });
  if (context.cancelled()) return FailureResult(kExitInvalid, "connectivity check cancelled");

  const NeighbourTable neighbours = NeighbourTable::Load(options_.neighbour_table, context);
  StepResult result = SuccessResult();
  types::v1::ConnectivityReport& report = *result.mutable_connectivity();
  for (const auto& host : *hosts) report.add_remote_hosts()->set_host_id(host.host_id);
  for (size_t i = 0; i < targets.size(); ++i) {
    const auto& [h, address] = targets[i];
    const L3Outcome& o = l3[i];
    const double loss = o.sent == 0 ? 100.0 : 100.0 * (o.sent - o.answered) / o.sent;
    const double rtt_ms =
        o.answered == 0 ? 0.0 : absl::ToDoubleMilliseconds(o.total_rtt) / o.answered;
    types::v1::ConnectivityRemoteHost& remote = *report.mutable_remote_hosts(static_cast<int>(h));
    types::v1::L3Connectivity& l3_report = *remote.add_l3_connectivity();
    l3_report.set_remote_ip_address(address.ToString());
    l3_report.set_successful(o.answered > 0);
    l3_report.set_average_rtt_ms(rtt_ms);
    l3_report.set_packet_loss_percentage(loss);
    // Targets are sorted by address within a host and one MAC per address is known, so the
    // L2 list comes out sorted by address and MAC.
    if (std::optional<Neighbour> n = neighbours.Find(address)) {
      types::v1::L2Connectivity& l2 = *remote.add_l2_connectivity();
      l2.set_outgoing_nic(n->device);
      l2.set_remote_ip_address(address.ToString());
      l2.set_remote_mac(n->mac);
      l2.set_successful((*hosts)[h].macs.count(n->mac) > 0);
      l2.set_outgoing_ip_address(LocalAddressOn(n->device, address));
    }
  }
  return result;
}

}  // namespace assisted::agent::steps
