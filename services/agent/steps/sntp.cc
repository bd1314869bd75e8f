// File: services/agent/steps/sntp.cc

#include "services/agent/steps/sntp.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "services/agent/steps/unique_fd.h"

namespace assisted::agent::steps {

namespace {

constexpr int64_t kNtpToUnixSeconds = 2'208'988'800;  // 1900-01-01 to 1970-01-01
constexpr uint8_t kModeClient = 3;
constexpr uint8_t kModeServer = 4;
constexpr uint8_t kVersion = 4;
constexpr uint8_t kLeapAlarm = 3;  // "clock not synchronised"

uint64_t GetU64(const NtpPacket& p, size_t offset) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = (v << 8) | p[offset + i];
  return v;
}

}  // namespace

void PutNtpTime(NtpPacket& packet, size_t offset, absl::Time t) {
  const absl::Duration since_unix = t - absl::UnixEpoch();
  const int64_t seconds = absl::ToInt64Seconds(since_unix);
  const absl::Duration rest = since_unix - absl::Seconds(seconds);
  const uint64_t fraction =
      static_cast<uint64_t>(absl::ToDoubleSeconds(rest) * 4294967296.0) & 0xffffffffu;
  const uint64_t value = (static_cast<uint64_t>(seconds + kNtpToUnixSeconds) << 32) | fraction;
  for (size_t i = 0; i < 8; ++i) packet[offset + i] = (value >> (56 - 8 * i)) & 0xff;
}

absl::Time GetNtpTime(const NtpPacket& packet, size_t offset) {
  const uint64_t value = GetU64(packet, offset);
  const int64_t seconds = static_cast<int64_t>(value >> 32) - kNtpToUnixSeconds;
  const double fraction = static_cast<double>(value & 0xffffffffu) / 4294967296.0;
  return absl::FromUnixSeconds(seconds) + absl::Seconds(fraction);
}

absl::StatusOr<SntpAnswer> QuerySntp(const std::string& server, int port, absl::Duration timeout,
                                     const Clock& clock) {
  const auto deadline = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(timeout);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(server.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) {
    return absl::NotFoundError(absl::StrCat("cannot resolve ", server, ": ", gai_strerror(rc)));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addresses(found, &freeaddrinfo);

  const UniqueFd socket_fd(socket(found->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const int fd = socket_fd.get();
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  // A connected socket only receives datagrams from the server.
  if (connect(fd, found->ai_addr, found->ai_addrlen) != 0) {
    return absl::UnavailableError(absl::StrCat(server, ": ", std::strerror(errno)));
  }

  NtpPacket request{};
  request[0] = (kVersion << 3) | kModeClient;
  const absl::Time t1 = clock.Now();
  PutNtpTime(request, kNtpTransmitOffset, t1);
  if (send(fd, request.data(), request.size(), 0) != static_cast<ssize_t>(request.size())) {
    return absl::UnavailableError(absl::StrCat(server, ": ", std::strerror(errno)));
  }
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    const int n = poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    NtpPacket reply{};
    const ssize_t got = recv(fd, reply.data(), reply.size(), 0);
    const absl::Time t4 = clock.Now();
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return absl::UnavailableError(absl::StrCat(server, ": ", std::strerror(errno)));
    }
    // Only a full server reply to this very request counts.
    if (got != static_cast<ssize_t>(reply.size()) || (reply[0] & 0x07) != kModeServer ||
        GetU64(reply, kNtpOriginateOffset) != GetU64(request, kNtpTransmitOffset)) {
      continue;
    }
    const int stratum = reply[1];
    if ((reply[0] >> 6) == kLeapAlarm || stratum == 0 || stratum > 15 ||
        GetU64(reply, kNtpTransmitOffset) == 0) {
      return absl::UnavailableError(absl::StrCat(server, " is not synchronised"));
    }
    const absl::Time t2 = GetNtpTime(reply, kNtpReceiveOffset);
    const absl::Time t3 = GetNtpTime(reply, kNtpTransmitOffset);
    return SntpAnswer{((t2 - t1) + (t3 - t4)) / 2, (t4 - t1) - (t3 - t2), stratum};
  }
  return absl::DeadlineExceededError(absl::StrCat("no answer from ", server));
}

}  // namespace assisted::agent::steps
