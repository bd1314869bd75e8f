// File: services/agent/hardware/addresses.cc

#include "services/agent/hardware/addresses.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <bitset>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/net/ip.h"
#include "nlohmann/json.hpp"
#include "services/agent/hardware/attributes.h"

namespace assisted::agent::hardware {
namespace {

constexpr char kIfInet6[] = "proc/net/if_inet6";
constexpr char kIpv4Json[] = "assisted/addresses.json";

bool Unreported(const net::IpAddress& ip) {
  const auto& b = ip.bytes();
  if (ip.family() == net::Family::kIpv4) {
    return b[0] == 127 || (b[0] == 169 && b[1] == 254);
  }
  const bool loopback = ip == *net::IpAddress::Parse("::1");
  return loopback || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80);
}

// "fd001101000000000000000000000023" -> "fd00:1101:0000:...:0023".
std::string Ipv6Text(absl::string_view hex) {
  std::vector<absl::string_view> groups;
  for (size_t i = 0; i + 4 <= hex.size(); i += 4) groups.push_back(hex.substr(i, 4));
  return absl::StrJoin(groups, ":");
}

void ReadIfInet6(const HostRoot& root, AddressMap* out) {
  absl::StatusOr<std::string> text = root.ReadFile(kIfInet6);
  if (!text.ok()) return;
  // address ifindex prefix_length scope flags name (all hex but the name)
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (f.size() < 6 || f[0].size() != 32) continue;
    std::optional<uint64_t> prefix = ParseHex(f[2]);
    if (!prefix || *prefix > 128) continue;
    AddAddress(Ipv6Text(f[0]), static_cast<int>(*prefix), &(*out)[std::string(f[5])]);
  }
}

void ReadIpv4Json(const HostRoot& root, AddressMap* out) {
  absl::StatusOr<std::string> text = root.ReadFile(kIpv4Json);
  if (!text.ok()) return;
  const nlohmann::json doc = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("ipv4") || !doc["ipv4"].is_object()) return;
  for (const auto& [nic, list] : doc["ipv4"].items()) {
    if (!list.is_array()) continue;
    for (const nlohmann::json& entry : list) {
      if (!entry.is_string()) continue;
      const std::string& cidr = entry.get_ref<const std::string&>();
      std::pair<absl::string_view, absl::string_view> parts =
          absl::StrSplit(cidr, absl::MaxSplits('/', 1));
      int prefix = 0;
      if (!absl::SimpleAtoi(parts.second, &prefix)) continue;
      AddAddress(parts.first, prefix, &(*out)[nic]);
    }
  }
}

int PrefixLength(const sockaddr* netmask, size_t bytes) {
  if (netmask == nullptr) return static_cast<int>(bytes * 8);
  const unsigned char* mask = netmask->sa_family == AF_INET
                                  ? reinterpret_cast<const unsigned char*>(
                                        &reinterpret_cast<const sockaddr_in*>(netmask)->sin_addr)
                                  : reinterpret_cast<const unsigned char*>(
                                        &reinterpret_cast<const sockaddr_in6*>(netmask)->sin6_addr);
  int length = 0;
  for (size_t i = 0; i < bytes; ++i) length += std::bitset<8>(mask[i]).count();
  return length;
}

}  // namespace

void AddAddress(absl::string_view ip, int prefix_length, NicAddresses* nic) {
  absl::StatusOr<net::IpAddress> address = net::IpAddress::Parse(ip);
  if (!address.ok() || Unreported(*address)) return;
  if (!net::Cidr::Containing(*address, prefix_length).ok()) return;  // prefix out of range
  std::string text = absl::StrCat(address->ToString(), "/", prefix_length);
  (address->family() == net::Family::kIpv4 ? nic->ipv4 : nic->ipv6).push_back(std::move(text));
}

AddressMap RootAddressSource::Addresses() const {
  AddressMap addresses;
  ReadIpv4Json(root_, &addresses);
  ReadIfInet6(root_, &addresses);
  return addresses;
}

AddressMap SystemAddressSource::Addresses() const {
  AddressMap addresses;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return addresses;
  for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_name == nullptr) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const int family = entry->ifa_addr->sa_family;
    if (family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(entry->ifa_addr)->sin_addr, text,
                sizeof(text));
      AddAddress(text, PrefixLength(entry->ifa_netmask, 4), &addresses[entry->ifa_name]);
    } else if (family == AF_INET6) {
      inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(entry->ifa_addr)->sin6_addr, text,
                sizeof(text));
      AddAddress(text, PrefixLength(entry->ifa_netmask, 16), &addresses[entry->ifa_name]);
    }
  }
  freeifaddrs(list);
  return addresses;
}

}  // namespace assisted::agent::hardware
