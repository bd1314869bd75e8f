// File: services/agent/steps/neighbours.h
//
// The kernel's IPv4 neighbour (ARP) table as /proc/net/arp shows it, for L2 checks: an address
// whose entry is complete answered ARP from this host, and the MAC tells which machine it is.
// IPv6 neighbours are only visible over netlink and are not read here.

#ifndef ASSISTED_SERVICES_AGENT_STEPS_NEIGHBOURS_H_
#define ASSISTED_SERVICES_AGENT_STEPS_NEIGHBOURS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/net/ip.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

inline constexpr char kProcNetArp[] = "/proc/net/arp";

struct Neighbour {
  net::IpAddress address;
  std::string mac;     // lower case, "aa:bb:cc:dd:ee:ff"
  std::string device;  // the local interface it was learned on; empty when simulated
};

// Complete entries (flag ATF_COM, non-zero MAC) of a /proc/net/arp text; other lines skipped.
std::vector<Neighbour> ParseArpTable(absl::string_view text);

// Looks up neighbours for one step: from `path` on a real host (an unreadable table reads as
// empty, e.g. in a container without /proc/net), from SimulationHooks::neighbour_mac when
// simulating.
class NeighbourTable {
 public:
  // Reads the table now; call after probing, since probes are what fill it.
  static NeighbourTable Load(const std::string& path, const StepContext& context);

  // The neighbour holding `address`, if any.
  std::optional<Neighbour> Find(const net::IpAddress& address) const;

 private:
  std::vector<Neighbour> entries_;
  const StepContext* simulated_ = nullptr;  // set when answers come from the hooks
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_NEIGHBOURS_H_
