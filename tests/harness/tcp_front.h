// File: tests/harness/tcp_front.h
//
// One loopback address in front of several replicas of a service, as a Kubernetes Service (or
// any layer-4 load balancer) puts one in front of its pods: each accepted TCP connection is
// relayed, bytes as they are and end of stream as a half close, to a backend; a backend that
// refuses the connection (a killed replica) is skipped for the next one. Two ways to choose:
//   - kRoundRobin: the next backend in turn. A client that opens a new connection per request
//     alternates between the replicas; one that keeps its connection (gRPC) stays where it
//     landed until that replica dies, as behind kube-proxy.
//   - kFirstThatAccepts: the backends in the order added, the first that accepts. A caller
//     given its own front over replicas ordered from its own index spreads deterministically
//     and falls over to the next replica when its own dies (gRPC's pick_first over a list).
//
//   ASSIGN_OR_RETURN(std::unique_ptr<TcpFront> front, TcpFront::Start());
//   front->AddBackend(gateway0_port);   // backends may be added after Start, e.g. when they
//   front->AddBackend(gateway1_port);   // must be told the front's address when they start
//   curl http://127.0.0.1:<front->port()>/...
//
// Test-only: a thread per relayed connection. Thread-safe. The destructor closes the listener
// and every relayed connection and joins their threads.

#ifndef ASSISTED_TESTS_HARNESS_TCP_FRONT_H_
#define ASSISTED_TESTS_HARNESS_TCP_FRONT_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace assisted::testing {

class TcpFront {
 public:
  enum class Policy { kRoundRobin, kFirstThatAccepts };

  // Listens on a free 127.0.0.1 port; relays nothing until a backend is added.
  static absl::StatusOr<std::unique_ptr<TcpFront>> Start(Policy policy = Policy::kRoundRobin);
  ~TcpFront();
  TcpFront(const TcpFront&) = delete;
  TcpFront& operator=(const TcpFront&) = delete;

  int port() const { return port_; }
  // "127.0.0.1:PORT".
  std::string address() const;
  // Adds the backend at 127.0.0.1:`port` to the rotation.
  void AddBackend(int port);
  // Connections accepted so far, and how many reached each backend (in AddBackend order).
  std::vector<int> RelayedPerBackend() const;

 private:
  TcpFront(int listener, int port, Policy policy);
  void AcceptLoop();
  // Connects to the next backend that accepts; -1 when none does.
  int ConnectToNextBackend();
  // Copies bytes both ways until both sides ended (byte_relay.h); owns both descriptors.
  void Relay(int client, int backend);

  const int listener_;
  const int port_;
  const Policy policy_;
  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<int> backends_ ABSL_GUARDED_BY(mu_);
  std::vector<int> relayed_ ABSL_GUARDED_BY(mu_);
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;
  // Descriptors of relays in progress (shut down on destruction) and their threads.
  std::vector<int> open_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> relays_ ABSL_GUARDED_BY(mu_);
  std::thread acceptor_;
};

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_TCP_FRONT_H_
