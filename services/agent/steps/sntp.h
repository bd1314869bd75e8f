// File: services/agent/steps/sntp.h
//
// A one-shot SNTP client (RFC 4330): ask one server for its time over UDP and compute this
// host's clock offset from it. Used by ntp-synchronizer when chrony is not available.

#ifndef ASSISTED_SERVICES_AGENT_STEPS_SNTP_H_
#define ASSISTED_SERVICES_AGENT_STEPS_SNTP_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/time/clock.h"

namespace assisted::agent::steps {

inline constexpr int kNtpPort = 123;
inline constexpr size_t kNtpPacketSize = 48;
using NtpPacket = std::array<uint8_t, kNtpPacketSize>;

struct SntpAnswer {
  absl::Duration offset;  // server clock minus this host's clock
  absl::Duration delay;   // round trip, without the server's processing time
  int stratum = 0;
};

// Queries `server` (a name or an address literal) on UDP `port`, waiting at most `timeout`
// overall. `clock` stamps the request and the reply. NOT_FOUND: the name does not resolve;
// DEADLINE_EXCEEDED: no valid answer in time; UNAVAILABLE: the server answered but is
// unsynchronised or sent a kiss-o'-death.
absl::StatusOr<SntpAnswer> QuerySntp(const std::string& server, int port, absl::Duration timeout,
                                     const Clock& clock);

// Wire format helpers, shared with test servers.
// Writes `t` as a 64-bit NTP timestamp (seconds since 1900, 32-bit fraction) at `offset`.
void PutNtpTime(NtpPacket& packet, size_t offset, absl::Time t);
absl::Time GetNtpTime(const NtpPacket& packet, size_t offset);

// Field offsets within a packet.
inline constexpr size_t kNtpOriginateOffset = 24;
inline constexpr size_t kNtpReceiveOffset = 32;
inline constexpr size_t kNtpTransmitOffset = 40;

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_SNTP_H_
