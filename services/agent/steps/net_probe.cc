// File: services/agent/steps/net_probe.cc

#include "services/agent/steps/net_probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/unique_fd.h"

namespace assisted::agent::steps {

namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr uint8_t kIcmpEchoRequest = 8;
constexpr uint8_t kIcmpEchoReply = 0;
constexpr uint8_t kIcmp6EchoRequest = 128;
constexpr uint8_t kIcmp6EchoReply = 129;
constexpr size_t kIcmpHeader = 8;
constexpr size_t kEchoPayload = 16;

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
};

SocketAddress ToSocketAddress(const net::IpAddress& address, int port) {
  SocketAddress out;
  if (address.family() == net::Family::kIpv4) {
    auto* in = reinterpret_cast<sockaddr_in*>(&out.storage);
    in->sin_family = AF_INET;
    in->sin_port = htons(static_cast<uint16_t>(port));
    std::memcpy(&in->sin_addr, address.bytes().data(), 4);
    out.length = sizeof(sockaddr_in);
  } else {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&out.storage);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(static_cast<uint16_t>(port));
    std::memcpy(&in6->sin6_addr, address.bytes().data(), 16);
    out.length = sizeof(sockaddr_in6);
  }
  return out;
}

int Domain(net::Family family) { return family == net::Family::kIpv4 ? AF_INET : AF_INET6; }
int IcmpProtocol(net::Family family) {
  return family == net::Family::kIpv4 ? static_cast<int>(IPPROTO_ICMP)
                                      : static_cast<int>(IPPROTO_ICMPV6);
}

uint16_t Checksum(const uint8_t* data, size_t length) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < length; i += 2) sum += (data[i] << 8) | data[i + 1];
  if (length % 2 == 1) sum += data[length - 1] << 8;
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

// Milliseconds left until `deadline`, rounded up so poll() never spins at zero too early.
int MillisLeft(SteadyClock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::microseconds>(deadline - SteadyClock::now());
  if (left.count() <= 0) return 0;
  return static_cast<int>((left.count() + 999) / 1000);
}

absl::Duration Since(SteadyClock::time_point start) {
  return absl::FromChrono(SteadyClock::now() - start);
}

// Waits for `events` on `fd` until `deadline`; false on timeout or error.
bool WaitFor(int fd, short events, SteadyClock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = poll(&p, 1, MillisLeft(deadline));
    if (n > 0) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

}  // namespace

Prober::Prober(ProbeOptions options) : options_(options) {
  if (options_.method == ProbeMethod::kTcp) return;
  auto detect = [](net::Family family) {
    for (auto [kind, type] :
         {std::pair{IcmpSocket::kDatagram, SOCK_DGRAM}, std::pair{IcmpSocket::kRaw, SOCK_RAW}}) {
      const int fd = socket(Domain(family), type | SOCK_CLOEXEC, IcmpProtocol(family));
      if (fd >= 0) {
        close(fd);
        return kind;
      }
    }
    return IcmpSocket::kNone;
  };
  icmp_v4_ = detect(net::Family::kIpv4);
  icmp_v6_ = detect(net::Family::kIpv6);
}

bool Prober::UsesIcmp(net::Family family) const {
  return (family == net::Family::kIpv4 ? icmp_v4_ : icmp_v6_) != IcmpSocket::kNone;
}

std::optional<absl::Duration> Prober::Probe(const net::IpAddress& address, absl::Duration timeout,
                                            const StepContext& context) const {
  if (context.simulation != nullptr) {
    const auto& hook = context.simulation->probe;
    return hook ? hook(address) : std::nullopt;
  }
  if (timeout <= absl::ZeroDuration()) return std::nullopt;
  const IcmpSocket icmp = address.family() == net::Family::kIpv4 ? icmp_v4_ : icmp_v6_;
  return icmp == IcmpSocket::kNone ? Tcp(address, timeout) : Icmp(address, icmp, timeout);
}

std::optional<absl::Duration> Prober::Icmp(const net::IpAddress& address, IcmpSocket kind,
                                           absl::Duration timeout) const {
  const bool v4 = address.family() == net::Family::kIpv4;
  UniqueFd fd(
      socket(Domain(address.family()),
             (kind == IcmpSocket::kDatagram ? SOCK_DGRAM : SOCK_RAW) | SOCK_CLOEXEC | SOCK_NONBLOCK,
             IcmpProtocol(address.family())));
  if (fd.get() < 0) return std::nullopt;

  // A ping socket gets its identifier from the kernel, which also routes the replies to it; a
  // raw socket sees every ICMP packet, so replies are matched on identifier and sequence.
  const uint32_t serial = sequence_++;
  const uint16_t id = static_cast<uint16_t>((getpid() ^ (serial >> 16)) & 0xffff);
  const uint16_t seq = static_cast<uint16_t>(serial & 0xffff);
  uint8_t packet[kIcmpHeader + kEchoPayload] = {};
  packet[0] = v4 ? kIcmpEchoRequest : kIcmp6EchoRequest;
  packet[4] = id >> 8;
  packet[5] = id & 0xff;
  packet[6] = seq >> 8;
  packet[7] = seq & 0xff;
  std::memcpy(packet + kIcmpHeader, "assisted-probe!!", kEchoPayload);
  if (v4) {  // the kernel fills in ICMPv6 checksums itself
    const uint16_t sum = Checksum(packet, sizeof(packet));
    packet[2] = sum >> 8;
    packet[3] = sum & 0xff;
  }

  const SocketAddress to = ToSocketAddress(address, 0);
  const auto start = SteadyClock::now();
  const auto deadline = start + absl::ToChronoNanoseconds(timeout);
  if (sendto(fd.get(), packet, sizeof(packet), 0, to.get(), to.length) < 0) return std::nullopt;
  uint8_t reply[1500];
  while (WaitFor(fd.get(), POLLIN, deadline)) {
    sockaddr_storage from{};
    socklen_t from_length = sizeof(from);
    const ssize_t n = recvfrom(fd.get(), reply, sizeof(reply), 0,
                               reinterpret_cast<sockaddr*>(&from), &from_length);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return std::nullopt;  // e.g. an ICMP error reported on a ping socket
    }
    size_t offset = 0;
    if (v4 && kind == IcmpSocket::kRaw) offset = (reply[0] & 0x0f) * 4u;  // skip the IP header
    if (static_cast<size_t>(n) < offset + kIcmpHeader) continue;
    const uint8_t* icmp = reply + offset;
    const uint16_t reply_id = (icmp[4] << 8) | icmp[5];
    const uint16_t reply_seq = (icmp[6] << 8) | icmp[7];
    if (icmp[0] != (v4 ? kIcmpEchoReply : kIcmp6EchoReply) || reply_seq != seq) continue;
    if (kind == IcmpSocket::kRaw && reply_id != id) continue;
    const bool from_target = v4 ? std::memcmp(&reinterpret_cast<sockaddr_in*>(&from)->sin_addr,
                                              address.bytes().data(), 4) == 0
                                : std::memcmp(&reinterpret_cast<sockaddr_in6*>(&from)->sin6_addr,
                                              address.bytes().data(), 16) == 0;
    if (!from_target) continue;
    return Since(start);
  }
  return std::nullopt;
}

std::optional<absl::Duration> Prober::Tcp(const net::IpAddress& address,
                                          absl::Duration timeout) const {
  UniqueFd fd(socket(Domain(address.family()), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) return std::nullopt;
  // Close with a reset: thousands of probes must not leave sockets in TIME_WAIT.
  const linger no_linger{1, 0};
  setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &no_linger, sizeof(no_linger));
  const SocketAddress to = ToSocketAddress(address, options_.tcp_port);
  const auto start = SteadyClock::now();
  int error = 0;
  if (connect(fd.get(), to.get(), to.length) != 0) {
    error = errno;
    if (error == EINPROGRESS) {
      if (!WaitFor(fd.get(), POLLOUT, start + absl::ToChronoNanoseconds(timeout))) {
        return std::nullopt;
      }
      socklen_t length = sizeof(error);
      if (getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0) return std::nullopt;
    }
  }
  if (error == 0 || (error == ECONNREFUSED && options_.refused_is_answer)) return Since(start);
  return std::nullopt;
}

absl::StatusOr<std::unique_ptr<ProbeListener>> ProbeListener::Start(const std::string& address,
                                                                    int port) {
  absl::StatusOr<net::IpAddress> ip = net::IpAddress::Parse(address);
  if (!ip.ok()) return ip.status();
  const int fd = socket(Domain(ip->family()), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  SocketAddress at = ToSocketAddress(*ip, port);
  if (bind(fd, at.get(), at.length) != 0 || listen(fd, 128) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&at.storage), &at.length) != 0) {
    const int err = errno;
    close(fd);
    return absl::InternalError(
        absl::StrCat("probe listener on ", address, ":", port, ": ", std::strerror(err)));
  }
  const int bound = ntohs(ip->family() == net::Family::kIpv4
                              ? reinterpret_cast<sockaddr_in*>(&at.storage)->sin_port
                              : reinterpret_cast<sockaddr_in6*>(&at.storage)->sin6_port);
  return std::unique_ptr<ProbeListener>(new ProbeListener(fd, bound));
}

ProbeListener::ProbeListener(int fd, int port)
    : fd_(fd), port_(port), thread_([this] { Loop(); }) {}

ProbeListener::~ProbeListener() {
  stop_.Notify();
  thread_.join();
  close(fd_);
}

void ProbeListener::Loop() {
  while (!stop_.HasBeenNotified()) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    const int client = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client >= 0) close(client);
  }
}

}  // namespace assisted::agent::steps
