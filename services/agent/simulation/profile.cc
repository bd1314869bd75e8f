#include "services/agent/simulation/profile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/file/read_file.h"
#include "lib/nmstate/uuid5.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"
#include "services/agent/hardware/host_root.h"
#include "services/agent/hardware/inventory.h"
#include "services/agent/steps/json_args.h"

namespace assisted::agent::simulation {
namespace {

using nlohmann::json;
using steps::Need;

// Namespace of simulated host ids (a fixed random UUID).
constexpr char kHostIdNamespace[] = "5a0c1f3e-7d42-4b8e-9b1a-3c6d2e4f8a90";

constexpr absl::string_view kKnownKeys[] = {
    "name",         "hardware_root", "cpu_count",
    "memory_bytes", "ipv4",          "disk_size_bytes",
    "probe_rtt_ms", "disk_sync_ms",  "ntp",
    "dns",          "registry",      "reboot_into_discovery"};

absl::Status CheckKeys(const json& object, absl::Span<const absl::string_view> known,
                       absl::string_view where) {
  for (const auto& item : object.items()) {
    if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown key \"", item.key(), "\" in ", where));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<int64_t>> PositiveInt(const json& object, absl::string_view key) {
  ASSIGN_OR_RETURN(std::optional<double> value, steps::NumberField(object, key, Need::kOptional));
  if (!value.has_value()) return std::optional<int64_t>();
  if (*value < 1 || *value > 9.0e18 ||
      *value != static_cast<double>(static_cast<int64_t>(*value))) {
    return absl::InvalidArgumentError(absl::StrCat(key, " must be a positive whole number"));
  }
  return std::optional<int64_t>(static_cast<int64_t>(*value));
}

// "a.b.c.d/len" -> (host-order address, prefix length).
absl::StatusOr<std::pair<uint32_t, int>> ParseIpv4Interface(absl::string_view text) {
  std::pair<absl::string_view, absl::string_view> parts = absl::StrSplit(text, '/');
  absl::StatusOr<net::IpAddress> address = net::IpAddress::Parse(parts.first);
  int prefix = 0;
  if (!address.ok() || address->family() != net::Family::kIpv4 ||
      !absl::SimpleAtoi(parts.second, &prefix) || prefix < 1 || prefix > 30) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" is not an IPv4 interface address like 10.0.0.5/24 (/1-/30)"));
  }
  const auto& b = address->bytes();
  const uint32_t value =
      (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
  return std::make_pair(value, prefix);
}

std::string Ipv4Text(uint32_t value) {
  return absl::StrFormat("%d.%d.%d.%d", value >> 24, (value >> 16) & 0xff, (value >> 8) & 0xff,
                         value & 0xff);
}

absl::Status ParseNtp(const json& root, Profile& profile) {
  ASSIGN_OR_RETURN(json sources, steps::ArrayField(root, "ntp", Need::kOptional, 64));
  for (const json& source : sources) {
    if (!source.is_object()) return absl::InvalidArgumentError("ntp entries must be objects");
    RETURN_IF_ERROR(CheckKeys(source, {"name", "state"}, "an ntp entry"));
    steps::NtpSourceState state;
    ASSIGN_OR_RETURN(state.name, steps::StringField(source, "name", Need::kRequired));
    ASSIGN_OR_RETURN(state.state, steps::StringField(source, "state", Need::kRequired));
    static constexpr absl::string_view kStates[] = {"synced",      "combined", "not_combined",
                                                    "unreachable", "error",    "variable"};
    if (std::find(std::begin(kStates), std::end(kStates), state.state) == std::end(kStates)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ntp state \"", state.state, "\" is not one of ", absl::StrJoin(kStates, ", ")));
    }
    profile.ntp.push_back(std::move(state));
  }
  return absl::OkStatus();
}

absl::Status ParseDns(const json& root, Profile& profile) {
  ASSIGN_OR_RETURN(json rules, steps::ArrayField(root, "dns", Need::kOptional, 256));
  for (const json& entry : rules) {
    if (!entry.is_object()) return absl::InvalidArgumentError("dns entries must be objects");
    RETURN_IF_ERROR(CheckKeys(entry, {"suffix", "ipv4", "ipv6"}, "a dns entry"));
    DnsRule rule;
    ASSIGN_OR_RETURN(rule.suffix, steps::StringField(entry, "suffix", Need::kRequired, 253));
    RETURN_IF_ERROR(steps::CheckHostName(rule.suffix, "dns suffix"));
    ASSIGN_OR_RETURN(json v4, steps::ArrayField(entry, "ipv4", Need::kOptional, 16));
    ASSIGN_OR_RETURN(rule.ipv4, steps::StringList(v4, "dns ipv4", 16));
    ASSIGN_OR_RETURN(json v6, steps::ArrayField(entry, "ipv6", Need::kOptional, 16));
    ASSIGN_OR_RETURN(rule.ipv6, steps::StringList(v6, "dns ipv6", 16));
    for (const std::string& a : rule.ipv4) {
      absl::StatusOr<net::IpAddress> parsed = net::IpAddress::Parse(a);
      if (!parsed.ok() || parsed->family() != net::Family::kIpv4) {
        return absl::InvalidArgumentError(absl::StrCat("dns ipv4 \"", a, "\" is not IPv4"));
      }
    }
    for (const std::string& a : rule.ipv6) {
      absl::StatusOr<net::IpAddress> parsed = net::IpAddress::Parse(a);
      if (!parsed.ok() || parsed->family() != net::Family::kIpv6) {
        return absl::InvalidArgumentError(absl::StrCat("dns ipv6 \"", a, "\" is not IPv6"));
      }
    }
    profile.dns.push_back(std::move(rule));
  }
  return absl::OkStatus();
}

absl::Status ParseRegistry(const json& root, Profile& profile) {
  if (!root.contains("registry")) return absl::OkStatus();
  const json& registry = root["registry"];
  if (!registry.is_object()) return absl::InvalidArgumentError("registry must be an object");
  RETURN_IF_ERROR(CheckKeys(registry, {"http_status", "time_ms", "bytes", "error"}, "registry"));
  ASSIGN_OR_RETURN(std::optional<double> status,
                   steps::NumberField(registry, "http_status", Need::kOptional));
  ASSIGN_OR_RETURN(std::optional<double> time_ms,
                   steps::NumberField(registry, "time_ms", Need::kOptional));
  ASSIGN_OR_RETURN(std::optional<double> bytes,
                   steps::NumberField(registry, "bytes", Need::kOptional));
  ASSIGN_OR_RETURN(profile.registry.error, steps::StringField(registry, "error", Need::kOptional));
  if (status.has_value()) {
    if (*status < 0 || *status > 599) {
      return absl::InvalidArgumentError("registry.http_status must be 0-599");
    }
    profile.registry.http_status = static_cast<long>(*status);
  }
  if (time_ms.has_value()) {
    if (*time_ms < 0) return absl::InvalidArgumentError("registry.time_ms must not be negative");
    profile.registry.time = absl::Milliseconds(*time_ms);
  }
  if (bytes.has_value()) {
    if (*bytes < 0) return absl::InvalidArgumentError("registry.bytes must not be negative");
    profile.registry.bytes = static_cast<int64_t>(*bytes);
  }
  return absl::OkStatus();
}

absl::Status ParseFields(const json& root, const std::string& base_dir, Profile& profile) {
  RETURN_IF_ERROR(CheckKeys(root, kKnownKeys, "the profile"));
  ASSIGN_OR_RETURN(profile.name, steps::StringField(root, "name", Need::kRequired, 40));
  RETURN_IF_ERROR(steps::CheckId(profile.name, "name"));
  ASSIGN_OR_RETURN(std::string tree,
                   steps::StringField(root, "hardware_root", Need::kRequired, 4096));
  if (tree.empty()) return absl::InvalidArgumentError("hardware_root must not be empty");
  profile.hardware_root =
      std::filesystem::path(tree).is_absolute()
          ? tree
          : (std::filesystem::path(base_dir) / tree).lexically_normal().string();
  ASSIGN_OR_RETURN(profile.cpu_count, PositiveInt(root, "cpu_count"));
  ASSIGN_OR_RETURN(profile.memory_bytes, PositiveInt(root, "memory_bytes"));
  ASSIGN_OR_RETURN(std::optional<int64_t> disk_size, PositiveInt(root, "disk_size_bytes"));
  if (disk_size.has_value()) profile.disk_size_bytes = *disk_size;
  if (root.contains("ipv4")) {
    if (!root["ipv4"].is_object()) {
      return absl::InvalidArgumentError("ipv4 must be an object of NIC name to \"ip/prefix\"");
    }
    for (const auto& item : root["ipv4"].items()) {
      if (!item.value().is_string()) {
        return absl::InvalidArgumentError(absl::StrCat("ipv4.", item.key(), " must be a string"));
      }
      const std::string text = item.value().get<std::string>();
      absl::Status valid = ParseIpv4Interface(text).status();
      if (!valid.ok())
        return absl::InvalidArgumentError(absl::StrCat("ipv4.", item.key(), ": ", valid.message()));
      profile.ipv4[item.key()] = text;
    }
  }
  ASSIGN_OR_RETURN(std::optional<double> rtt,
                   steps::NumberField(root, "probe_rtt_ms", Need::kOptional));
  if (rtt.has_value()) {
    if (*rtt < 0 || *rtt > 60000) return absl::InvalidArgumentError("probe_rtt_ms must be 0-60000");
    profile.probe_rtt = absl::Microseconds(static_cast<int64_t>(*rtt * 1000));
  }
  ASSIGN_OR_RETURN(std::optional<double> sync_ms,
                   steps::NumberField(root, "disk_sync_ms", Need::kOptional));
  if (sync_ms.has_value()) {
    if (*sync_ms < 0 || *sync_ms > 60000) {
      return absl::InvalidArgumentError("disk_sync_ms must be 0-60000");
    }
    profile.disk_sync_latency = absl::Microseconds(static_cast<int64_t>(*sync_ms * 1000));
  }
  RETURN_IF_ERROR(ParseNtp(root, profile));
  RETURN_IF_ERROR(ParseDns(root, profile));
  RETURN_IF_ERROR(ParseRegistry(root, profile));
  ASSIGN_OR_RETURN(profile.reboot_into_discovery,
                   steps::BoolField(root, "reboot_into_discovery", Need::kOptional));
  return absl::OkStatus();
}

// Replaces `nic`'s IPv4 addresses with host #index's address and its MAC with the simulated one.
absl::Status OverrideNic(types::v1::Interface& nic, const std::string& first_address, int index) {
  ASSIGN_OR_RETURN(std::string address, OffsetAddress(first_address, index));
  nic.clear_ipv4_addresses();
  nic.add_ipv4_addresses(address);
  nic.clear_ipv6_addresses();  // the tree's would be the same on every host of a fleet
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Profile> ParseProfile(absl::string_view text, const std::string& base_dir) {
  const json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return absl::InvalidArgumentError("the profile is not a JSON object");
  }
  Profile profile;
  RETURN_IF_ERROR(ParseFields(root, base_dir, profile));
  return profile;
}

absl::StatusOr<Profile> LoadProfile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path, "simulation profile"));
  // Relative trees are found next to the file's real location: a Bazel runfile is a link to the
  // source file, and the trees' own links and ":" paths exist only there.
  std::error_code ignored;
  const std::filesystem::path real = std::filesystem::weakly_canonical(path, ignored);
  absl::StatusOr<Profile> profile = ParseProfile(text, real.parent_path().string());
  if (!profile.ok()) {
    return absl::Status(profile.status().code(), absl::StrCat("simulation profile ", path, ": ",
                                                              profile.status().message()));
  }
  std::error_code error;
  if (!std::filesystem::is_directory(profile->hardware_root, error)) {
    return absl::NotFoundError(absl::StrCat("simulation profile ", path, ": hardware_root ",
                                            profile->hardware_root, " is not a directory"));
  }
  return profile;
}

std::string SimulatedMac(const net::IpAddress& address) {
  const auto& b = address.bytes();
  return absl::StrFormat("02:00:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3]);
}

std::string SimulatedHostId(const Profile& profile, absl::string_view seed, int index) {
  return nmstate::Uuid5(kHostIdNamespace, absl::StrCat(profile.name, "/", seed, "/", index));
}

absl::StatusOr<std::string> OffsetAddress(absl::string_view address, int offset) {
  ASSIGN_OR_RETURN(auto parsed, ParseIpv4Interface(address));
  const auto [value, prefix] = parsed;
  const uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
  const int64_t shifted = int64_t{value} + offset;
  if (offset < 0 || shifted > 0xffffffffLL ||
      (static_cast<uint32_t>(shifted) & mask) != (value & mask) ||
      (static_cast<uint32_t>(shifted) & ~mask) == 0 ||
      (static_cast<uint32_t>(shifted) & ~mask) == ~mask) {
    return absl::OutOfRangeError(absl::StrCat("host #", offset, " would leave the subnet of ",
                                              address, "; use a larger subnet in the profile"));
  }
  return absl::StrCat(Ipv4Text(static_cast<uint32_t>(shifted)), "/", prefix);
}

absl::StatusOr<types::v1::Inventory> CollectTreeInventory(const Profile& profile) {
  const hardware::HostRoot root(profile.hardware_root);
  return hardware::CollectInventory(root, hardware::CollectOptions());
}

absl::StatusOr<SimulatedHost> SimulatedHost::Create(const Profile& profile,
                                                    const types::v1::Inventory& tree_inventory,
                                                    const HostOverrides& overrides,
                                                    std::string disk_image) {
  if (overrides.index < 0) return absl::InvalidArgumentError("host index must not be negative");
  SimulatedHost host;
  host.profile_ = profile;
  host.disk_image_ = std::move(disk_image);
  host.host_id_ = overrides.host_id.empty()
                      ? SimulatedHostId(profile, overrides.seed, overrides.index)
                      : overrides.host_id;
  types::v1::Inventory& inventory = host.inventory_;
  inventory = tree_inventory;
  inventory.set_hostname(overrides.hostname.empty()
                             ? absl::StrCat(profile.name, "-", overrides.index)
                             : overrides.hostname);
  inventory.mutable_system_vendor()->set_serial_number(host.host_id_);
  if (profile.cpu_count.has_value()) inventory.mutable_cpu()->set_count(*profile.cpu_count);
  if (profile.memory_bytes.has_value()) {
    inventory.mutable_memory()->set_physical_bytes(*profile.memory_bytes);
    inventory.mutable_memory()->set_usable_bytes(*profile.memory_bytes);
  }
  for (const auto& [name, address] : profile.ipv4) {
    bool found = false;
    for (types::v1::Interface& nic : *inventory.mutable_interfaces()) {
      if (nic.name() != name) continue;
      found = true;
      RETURN_IF_ERROR(OverrideNic(nic, address, overrides.index));
    }
    if (!found) {
      return absl::InvalidArgumentError(absl::StrCat("profile ", profile.name, ": ipv4 names NIC ",
                                                     name, ", which the hardware tree lacks"));
    }
  }
  // Every NIC with an IPv4 address: the MAC that simulated neighbours derive from the address.
  for (types::v1::Interface& nic : *inventory.mutable_interfaces()) {
    if (nic.ipv4_addresses().empty()) continue;
    std::pair<absl::string_view, absl::string_view> parts =
        absl::StrSplit(nic.ipv4_addresses(0), '/');
    ASSIGN_OR_RETURN(net::IpAddress address, net::IpAddress::Parse(parts.first));
    nic.set_mac_address(SimulatedMac(address));
    ASSIGN_OR_RETURN(net::Cidr subnet, net::Cidr::ParseInterface(nic.ipv4_addresses(0)));
    host.subnets_.push_back(subnet);
  }
  host.BuildHooks();
  return host;
}

void SimulatedHost::BuildHooks() {
  // The hooks capture copies, never `this`: a SimulatedHost may be moved.
  const std::vector<net::Cidr> subnets = subnets_;
  const absl::Duration rtt = profile_.probe_rtt;
  auto on_our_subnets = [subnets](const net::IpAddress& address) {
    for (const net::Cidr& subnet : subnets) {
      if (subnet.Contains(address)) return true;
    }
    return false;
  };
  hooks_.probe = [on_our_subnets, rtt](const net::IpAddress& address) {
    return on_our_subnets(address) ? std::optional<absl::Duration>(rtt) : std::nullopt;
  };
  hooks_.neighbour_mac = [on_our_subnets](const net::IpAddress& address) {
    if (address.family() != net::Family::kIpv4 || !on_our_subnets(address)) {
      return std::optional<std::string>();
    }
    return std::optional<std::string>(SimulatedMac(address));
  };
  hooks_.resolve = [rules = profile_.dns](const std::string& name) {
    for (const DnsRule& rule : rules) {
      if (name == rule.suffix || absl::EndsWith(name, absl::StrCat(".", rule.suffix))) {
        return steps::ResolvedName{rule.ipv4, rule.ipv6, {}};
      }
    }
    return steps::ResolvedName{};
  };
  hooks_.ntp = [sources = profile_.ntp](const std::vector<std::string>& requested) {
    std::vector<steps::NtpSourceState> out = sources;
    for (const std::string& name : requested) {
      const bool known = std::any_of(
          out.begin(), out.end(), [&](const steps::NtpSourceState& s) { return s.name == name; });
      if (!known) out.push_back({name, "synced"});
    }
    return out;
  };
  hooks_.registry = [answer = profile_.registry](const std::string&) { return answer; };
  if (profile_.disk_sync_latency.has_value()) {
    hooks_.disk_sync_latency = [latency = *profile_.disk_sync_latency]() {
      return std::optional<absl::Duration>(latency);
    };
  }
  hooks_.disk_image = [image = disk_image_](const std::string& device) {
    return absl::StartsWith(device, "/dev/") ? image : std::string();
  };
}

absl::Status PrepareDiskImage(const std::string& path, int64_t size_bytes) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot create disk image ", path, ": ", std::strerror(errno)));
  }
  const int rc = ::ftruncate(fd, size_bytes);
  const int saved = errno;
  ::close(fd);
  if (rc != 0) {
    return absl::InternalError(
        absl::StrCat("cannot size disk image ", path, ": ", std::strerror(saved)));
  }
  return absl::OkStatus();
}

}  // namespace assisted::agent::simulation
