// File: services/agent/steps/free_addresses.cc

#include "services/agent/steps/free_addresses.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/status/status_macros.h"
#include "services/agent/steps/json_args.h"
#include "services/agent/steps/parallel.h"

namespace assisted::agent::steps {

namespace {

using nlohmann::json;

struct Network {
  net::Cidr cidr;
  std::vector<net::IpAddress> hosts;
};

uint32_t ToUint32(const net::IpAddress& a) {
  const auto& b = a.bytes();
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

net::IpAddress FromUint32(uint32_t v) {
  // Dotted-quad text always parses.
  return *net::IpAddress::Parse(
      absl::StrFormat("%d.%d.%d.%d", v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff));
}

// The addresses a host may hold: all of a /31 or /32, else all but network and broadcast.
std::vector<net::IpAddress> HostAddresses(const net::Cidr& cidr) {
  const uint32_t first = ToUint32(cidr.network());
  const uint64_t size = static_cast<uint64_t>(cidr.Size());
  const uint64_t skip = cidr.prefix_length() <= 30 ? 1 : 0;
  std::vector<net::IpAddress> out;
  out.reserve(size);
  for (uint64_t i = skip; i + skip < size; ++i) out.push_back(FromUint32(first + i));
  return out;
}

absl::StatusOr<std::vector<Network>> ParseNetworks(const Step& step,
                                                   const FreeAddressesOptions& options,
                                                   const log::Logger& log) {
  RETURN_IF_ERROR(CheckArgCount(step, 1, 1));
  ASSIGN_OR_RETURN(json list, JsonArg(step, 0, JsonKind::kArray));
  ASSIGN_OR_RETURN(std::vector<std::string> texts,
                   StringList(list, "networks", options.max_networks, 64));
  std::vector<Network> out;
  uint64_t total = 0;
  for (const std::string& text : texts) {
    ASSIGN_OR_RETURN(net::Cidr cidr, net::Cidr::Parse(text));
    if (cidr.family() != net::Family::kIpv4) {
      log.Info("IPv6 network not scanned", {{"network", text}});
      continue;
    }
    total += static_cast<uint64_t>(cidr.Size());
    if (total > options.max_addresses) {
      return absl::InvalidArgumentError(absl::StrCat(
          "networks hold more than ", options.max_addresses, " addresses; scan smaller blocks"));
    }
    out.push_back({cidr, HostAddresses(cidr)});
  }
  return out;
}

}  // namespace

FreeAddresses::FreeAddresses(FreeAddressesOptions options)
    : options_(std::move(options)), prober_(options_.probe) {}

StepResult FreeAddresses::Run(const Step& step, StepContext& context) {
  absl::StatusOr<std::vector<Network>> networks = ParseNetworks(step, options_, context.log);
  if (!networks.ok()) return InvalidArgsResult(networks.status());

  std::vector<const net::IpAddress*> targets;
  for (const Network& n : *networks) {
    for (const net::IpAddress& a : n.hosts) targets.push_back(&a);
  }
  // vector<bool> packs bits, which concurrent writers would race on.
  std::vector<char> answered(targets.size(), 0);
  ParallelFor(targets.size(), options_.max_parallel, [&](size_t i) {
    const absl::Duration budget = context.Budget(options_.probe_timeout);
    if (context.cancelled() || budget <= absl::ZeroDuration()) return;
    answered[i] = prober_.Probe(*targets[i], budget, context).has_value();
  });
  if (context.cancelled()) return FailureResult(kExitInvalid, "address scan cancelled");

  const NeighbourTable neighbours = NeighbourTable::Load(options_.neighbour_table, context);
  StepResult result = SuccessResult();
  types::v1::FreeNetworksAddresses& report = *result.mutable_free_addresses();
  size_t i = 0;
  for (const Network& n : *networks) {
    types::v1::FreeNetworkAddresses& network = *report.add_networks();
    network.set_network(n.cidr.ToString());
    for (const net::IpAddress& a : n.hosts) {
      if (!answered[i++] && !neighbours.Find(a).has_value())
        network.add_free_addresses(a.ToString());
    }
  }
  return result;
}

}  // namespace assisted::agent::steps
