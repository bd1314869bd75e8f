// File: services/agent/steps/net_probe.h
//
// "Does this address answer, and how fast": one ICMP echo when this process may send one (an
// unprivileged ping socket, else a raw socket with CAP_NET_RAW), otherwise one TCP connection
// attempt to a port the other agents listen on (ProbeListener). A TCP reset also proves the
// peer is up at L3, so a refused connection counts as an answer unless told otherwise. Used by
// connectivity-check and free-network-addresses; in simulation SimulationHooks::probe answers.

#ifndef ASSISTED_SERVICES_AGENT_STEPS_NET_PROBE_H_
#define ASSISTED_SERVICES_AGENT_STEPS_NET_PROBE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "lib/net/ip.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

// The TCP port agents accept probe connections on unless configured otherwise.
inline constexpr int kDefaultProbePort = 9099;

enum class ProbeMethod {
  kAuto,  // ICMP where permitted, else TCP
  kIcmp,  // ICMP where permitted, else TCP (same as kAuto; kept for explicit configuration)
  kTcp,   // always TCP
};

struct ProbeOptions {
  ProbeMethod method = ProbeMethod::kAuto;
  int tcp_port = kDefaultProbePort;
  // A TCP reset (nobody listens on the port) counts as an answer: the host is up.
  bool refused_is_answer = true;
};

class Prober {
 public:
  // Finds out once, per address family, whether ICMP sockets can be opened.
  explicit Prober(ProbeOptions options);

  // Whether probes to `family` use ICMP (true) or TCP (false).
  bool UsesIcmp(net::Family family) const;

  // One probe to `address`: its round-trip time, or nullopt when nothing answered within
  // `timeout`. In simulation (context.simulation set) the probe hook answers instead.
  std::optional<absl::Duration> Probe(const net::IpAddress& address, absl::Duration timeout,
                                      const StepContext& context) const;

 private:
  enum class IcmpSocket { kNone, kDatagram, kRaw };
  std::optional<absl::Duration> Icmp(const net::IpAddress& address, IcmpSocket kind,
                                     absl::Duration timeout) const;
  std::optional<absl::Duration> Tcp(const net::IpAddress& address, absl::Duration timeout) const;

  const ProbeOptions options_;
  IcmpSocket icmp_v4_ = IcmpSocket::kNone;
  IcmpSocket icmp_v6_ = IcmpSocket::kNone;
  mutable std::atomic<uint32_t> sequence_{0};
};

// Accepts and immediately closes TCP connections on the probe port, so other agents' TCP
// probes toward this host complete. Runs a thread until destroyed.
class ProbeListener {
 public:
  // Listens on `address`:`port` (port 0: any free port). INTERNAL when the socket cannot be
  // bound.
  static absl::StatusOr<std::unique_ptr<ProbeListener>> Start(const std::string& address, int port);
  ~ProbeListener();

  int port() const { return port_; }

 private:
  ProbeListener(int fd, int port);
  void Loop();

  const int fd_;
  const int port_;
  absl::Notification stop_;
  std::thread thread_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_NET_PROBE_H_
