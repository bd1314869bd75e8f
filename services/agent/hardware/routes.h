// File: services/agent/hardware/routes.h
//
// The main routing tables, IPv4 from /proc/net/route and IPv6 from /proc/net/ipv6_route, as the
// reference reports them from netlink: destination and gateway as plain addresses ("0.0.0.0" /
// "::" for a default route or an on-link gateway), the outgoing interface and the metric.
// Routes through "lo", local and anycast entries, rejected and multicast (ff00::/8) routes are
// left out, as they are not part of how the host reaches other machines.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_ROUTES_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_ROUTES_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "assisted/types/v1/hardware.pb.h"
#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

// Rows of /proc/net/route text; malformed rows are skipped.
std::vector<types::v1::Route> ParseIpv4Routes(absl::string_view text);

// Rows of /proc/net/ipv6_route text; malformed rows are skipped.
std::vector<types::v1::Route> ParseIpv6Routes(absl::string_view text);

// IPv4 then IPv6 routes of the host, in table order; empty when the files are missing.
std::vector<types::v1::Route> CollectRoutes(const HostRoot& root);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_ROUTES_H_
