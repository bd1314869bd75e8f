// File: services/agent/steps/neighbours.cc

#include "services/agent/steps/neighbours.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "lib/file/read_file.h"
#include "services/agent/steps/simulation.h"

namespace assisted::agent::steps {

namespace {

constexpr unsigned kAtfComplete = 0x2;  // ATF_COM in <net/if_arp.h>

}  // namespace

std::vector<Neighbour> ParseArpTable(absl::string_view text) {
  std::vector<Neighbour> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    // IP address, HW type, Flags, HW address, Mask, Device.
    std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (fields.size() < 6) continue;
    absl::StatusOr<net::IpAddress> address = net::IpAddress::Parse(fields[0]);
    unsigned flags = 0;
    if (!address.ok() || !absl::SimpleHexAtoi(fields[2], &flags)) continue;
    const std::string mac = absl::AsciiStrToLower(fields[3]);
    if ((flags & kAtfComplete) == 0 || mac == "00:00:00:00:00:00") continue;
    out.push_back({*address, mac, std::string(fields[5])});
  }
  return out;
}

NeighbourTable NeighbourTable::Load(const std::string& path, const StepContext& context) {
  NeighbourTable table;
  if (context.simulation != nullptr) {
    table.simulated_ = &context;
    return table;
  }
  absl::StatusOr<std::string> text = ReadFile(path, "neighbour table");
  if (text.ok()) {
    table.entries_ = ParseArpTable(*text);
  } else {
    context.log.Debug("no neighbour table", {{"error", text.status().message()}});
  }
  return table;
}

std::optional<Neighbour> NeighbourTable::Find(const net::IpAddress& address) const {
  if (simulated_ != nullptr) {
    const auto& hook = simulated_->simulation->neighbour_mac;
    std::optional<std::string> mac = hook ? hook(address) : std::nullopt;
    if (!mac.has_value()) return std::nullopt;
    return Neighbour{address, absl::AsciiStrToLower(*mac), ""};
  }
  for (const Neighbour& n : entries_) {
    if (n.address == address) return n;
  }
  return std::nullopt;
}

}  // namespace assisted::agent::steps
