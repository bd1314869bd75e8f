// File: services/agent/hardware/routes.cc

#include "services/agent/hardware/routes.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/net/ip.h"
#include "services/agent/hardware/attributes.h"

namespace assisted::agent::hardware {
namespace {

// Route flags of <linux/route.h> and <linux/ipv6_route.h>.
constexpr uint64_t kRtfUp = 0x0001;
constexpr uint64_t kRtfReject = 0x0200;
constexpr uint64_t kRtfAnycast = 0x00100000;
constexpr uint64_t kRtfLocal = 0x80000000;

// Far more than the inventory keeps (CollectOptions::max_routes); bounds memory on routers.
constexpr size_t kMaxTableBytes = 16 << 20;

std::vector<absl::string_view> Fields(absl::string_view line) {
  return absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
}

int32_t Metric(uint64_t metric) {
  return static_cast<int32_t>(std::min<uint64_t>(metric, std::numeric_limits<int32_t>::max()));
}

// An IPv4 address as the kernel prints it: 8 hex digits of the value in host (little-endian)
// order, so 192.168.1.0 is "0001A8C0".
std::optional<std::string> Ipv4(absl::string_view hex) {
  std::optional<uint64_t> value = hex.size() == 8 ? ParseHex(hex) : std::nullopt;
  if (!value) return std::nullopt;
  return absl::StrFormat("%d.%d.%d.%d", *value & 0xff, (*value >> 8) & 0xff, (*value >> 16) & 0xff,
                         (*value >> 24) & 0xff);
}

// An IPv6 address as 32 hex digits in network order, in canonical text.
std::optional<net::IpAddress> Ipv6(absl::string_view hex) {
  if (hex.size() != 32) return std::nullopt;
  std::vector<absl::string_view> groups;
  for (size_t i = 0; i < 32; i += 4) groups.push_back(hex.substr(i, 4));
  absl::StatusOr<net::IpAddress> address = net::IpAddress::Parse(absl::StrJoin(groups, ":"));
  if (!address.ok()) return std::nullopt;
  return *address;
}

types::v1::Route MakeRoute(absl::string_view interface, std::string destination,
                           std::string gateway, types::v1::AddressFamily family, int32_t metric) {
  types::v1::Route route;
  route.set_interface(std::string(interface));
  route.set_destination(std::move(destination));
  route.set_gateway(std::move(gateway));
  route.set_family(family);
  route.set_metric(metric);
  return route;
}

// The table's complete rows; a full routing table can be large, so it is read up to a bound.
std::string ReadTable(const HostRoot& root, absl::string_view path) {
  absl::StatusOr<std::string> text = root.ReadPrefix(path, kMaxTableBytes);
  if (!text.ok()) return "";
  if (text->size() == kMaxTableBytes) text->resize(text->rfind('\n') + 1);  // npos + 1 == 0
  return *std::move(text);
}

}  // namespace

std::vector<types::v1::Route> ParseIpv4Routes(absl::string_view text) {
  // Iface Destination Gateway Flags RefCnt Use Metric Mask MTU Window IRTT
  std::vector<types::v1::Route> routes;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<absl::string_view> f = Fields(line);
    if (f.size() < 8 || f[0] == "Iface" || f[0] == "lo") continue;
    std::optional<std::string> destination = Ipv4(f[1]);
    std::optional<std::string> gateway = Ipv4(f[2]);
    std::optional<uint64_t> flags = ParseHex(f[3]);
    std::optional<int64_t> metric = ParseDecimal(f[6]);
    if (!destination || !gateway || !flags || !metric || *metric < 0) continue;
    if ((*flags & kRtfUp) == 0 || (*flags & kRtfReject) != 0) continue;
    routes.push_back(MakeRoute(f[0], *destination, *gateway, types::v1::ADDRESS_FAMILY_IPV4,
                               Metric(static_cast<uint64_t>(*metric))));
  }
  return routes;
}

std::vector<types::v1::Route> ParseIpv6Routes(absl::string_view text) {
  // dest dest_prefix src src_prefix next_hop metric refcnt use flags iface (hex, but iface)
  std::vector<types::v1::Route> routes;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<absl::string_view> f = Fields(line);
    if (f.size() < 10 || f[9] == "lo") continue;
    std::optional<net::IpAddress> destination = Ipv6(f[0]);
    std::optional<net::IpAddress> gateway = Ipv6(f[4]);
    std::optional<uint64_t> metric = ParseHex(f[5]);
    std::optional<uint64_t> flags = ParseHex(f[8]);
    if (!destination || !gateway || !metric || !flags) continue;
    if ((*flags & kRtfUp) == 0 || (*flags & (kRtfReject | kRtfAnycast | kRtfLocal)) != 0) continue;
    if (destination->bytes()[0] == 0xff) continue;  // multicast
    routes.push_back(MakeRoute(f[9], destination->ToString(), gateway->ToString(),
                               types::v1::ADDRESS_FAMILY_IPV6, Metric(*metric)));
  }
  return routes;
}

std::vector<types::v1::Route> CollectRoutes(const HostRoot& root) {
  std::vector<types::v1::Route> routes = ParseIpv4Routes(ReadTable(root, "proc/net/route"));
  std::vector<types::v1::Route> v6 = ParseIpv6Routes(ReadTable(root, "proc/net/ipv6_route"));
  routes.insert(routes.end(), std::make_move_iterator(v6.begin()),
                std::make_move_iterator(v6.end()));
  return routes;
}

}  // namespace assisted::agent::hardware
