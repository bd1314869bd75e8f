// File: services/agent/hardware/host_id.h
//
// The host id a machine registers with: stable across reboots and re-installs of the discovery
// image, derived from the hardware exactly as the reference agent does, so a host that boots
// the image again is recognised. First valid source wins:
//   1. the baseboard serial (sys/class/dmi/id/board_serial) unless it is a placeholder such as
//      "Default string" -> MD5 of it, laid out as a UUID;
//   2. the system UUID (product_uuid) unless malformed, all zero or the well-known
//      03000200-0400-0500-0006-000700080009 of some firmware;
//   3. MD5 of the lowest-sorting MAC address of a physical NIC, laid out as a UUID;
//   4. deaddead-dead-dead-dead-deaddeaddead.
// The result is always lower case (the inventory service rejects upper-case UUIDs).

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_HOST_ID_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_HOST_ID_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

// The id that is used when no hardware source is valid.
inline constexpr absl::string_view kFallbackHostId = "deaddead-dead-dead-dead-deaddeaddead";

// What the host id is derived from; empty strings mean "not available".
struct HostIdSources {
  std::string board_serial;
  std::string product_uuid;
  // MAC addresses of the physical NICs, any order and case.
  std::vector<std::string> macs;
};

// The rules above, over already-read values.
std::string DeriveHostId(const HostIdSources& sources);

// Reads the sources from `root` (DMI attributes, physical NICs) and derives the id.
std::string HostId(const HostRoot& root);

// MD5 of `text` as 32 lower-case hex digits in the 8-4-4-4-12 UUID layout.
std::string Md5Uuid(absl::string_view text);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_HOST_ID_H_
