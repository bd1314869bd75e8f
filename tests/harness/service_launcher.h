// File: tests/harness/service_launcher.h
//
// Starts one of the real service binaries as a child process on free loopback ports and waits
// until its gRPC health check answers SERVING, the way an orchestrator's readiness probe would.
// What the child writes goes to a log file that failing tests print.

#ifndef ASSISTED_TESTS_HARNESS_SERVICE_LAUNCHER_H_
#define ASSISTED_TESTS_HARNESS_SERVICE_LAUNCHER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/grpc/channel.h"
#include "lib/process/subprocess.h"
#include "tests/harness/tcp_front.h"

namespace assisted::testing {

struct LaunchOptions {
  // Runfile path of the binary, e.g. "services/inventory/assisted-inventory".
  std::string binary;
  // Flags beyond the listen addresses the launcher chooses.
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  absl::Duration ready_timeout = absl::Seconds(20);
  // The gRPC port to listen on; 0 picks a free one (set it to restart a service in place).
  int grpc_port = 0;
  // Also give the binary an internal listener (--internal-grpc-listen on a loopback port: the
  // orchestrator's management API) and wait for it to serve as well.
  bool internal_grpc = false;
  // Its port; 0 picks a free one.
  int internal_grpc_port = 0;
  // How the readiness probe reaches the gRPC port and the internal one (TLS and a client
  // certificate for a listener started with --tls-* or --internal-tls-*; plaintext by default).
  grpcutil::ChannelOptions probe_channel;
  grpcutil::ChannelOptions internal_probe_channel;
};

class LaunchedService {
 public:
  // Starts the binary with --grpc-listen and --metrics-listen (and --internal-grpc-listen when
  // asked) on free 127.0.0.1 ports and waits for SERVING. On failure the error carries the tail
  // of the child's log.
  static absl::StatusOr<std::unique_ptr<LaunchedService>> Launch(const LaunchOptions& options);

  std::string grpc_target() const { return absl::StrCat("127.0.0.1:", grpc_port_); }
  std::string metrics_url() const {
    return absl::StrCat("http://127.0.0.1:", metrics_port_, "/metrics");
  }
  int grpc_port() const { return grpc_port_; }
  // The internal listener (LaunchOptions::internal_grpc), e.g. the orchestrator's management API.
  std::string internal_grpc_target() const {
    return absl::StrCat("127.0.0.1:", internal_grpc_port_);
  }
  int internal_grpc_port() const { return internal_grpc_port_; }
  // The child's process id (for /proc figures in benches).
  pid_t pid() const { return process_->pid(); }

  // What the child has written so far.
  std::string Log() const;

  // SIGTERM, then wait up to `grace`; returns the exit status (negative: killed by signal).
  int Stop(absl::Duration grace = absl::Seconds(15));

  // Sends `signal` (SIGSTOP, SIGCONT, ...) without waiting.
  void Signal(int signal);

  // kill -9 and reap: the crash fault tests need (no shutdown code runs).
  void Kill();

 private:
  // One start on freshly chosen ports (the caller's where given).
  static absl::StatusOr<std::unique_ptr<LaunchedService>> LaunchOnce(const LaunchOptions& options);
  LaunchedService(std::unique_ptr<process::Subprocess> process, std::string log_path, int grpc_port,
                  int internal_grpc_port, int metrics_port)
      : process_(std::move(process)),
        log_path_(std::move(log_path)),
        grpc_port_(grpc_port),
        internal_grpc_port_(internal_grpc_port),
        metrics_port_(metrics_port) {}

  std::unique_ptr<process::Subprocess> process_;
  std::string log_path_;
  int grpc_port_;
  int internal_grpc_port_;  // 0: none
  int metrics_port_;
};

// The ports of `replicas` (their internal ports if `internal`) from replica `first` round.
std::vector<int> ReplicaPorts(const std::vector<std::unique_ptr<LaunchedService>>& replicas,
                              int first, bool internal = false);

// The address by which replica `first` of a caller reaches `replicas` of a service (their
// internal port if `internal`): the one replica's "127.0.0.1:PORT"; with several, that of a
// new TcpFront (kFirstThatAccepts, kept in `fronts`) over them from replica `first` round. The
// services take one host:port, as a Kubernetes Service gives them; this front lets replica i
// of each caller start at replica i of its peer and move to the next when that one dies.
absl::StatusOr<std::string> ReplicasAddress(
    const std::vector<std::unique_ptr<LaunchedService>>& replicas, int first, bool internal,
    std::vector<std::unique_ptr<TcpFront>>& fronts);

// The gRPC target by which a client that takes gRPC targets reaches `replicas` (their internal
// port if `internal`): the one replica's "127.0.0.1:PORT", or
// "ipv4:///127.0.0.1:P<first>,127.0.0.1:P<first+1>,…" from replica `first` round, as a DNS name
// with one address per pod resolves. An agent (pick_first) dials replica `first` and, when that
// goes away, the next that answers; a service's internal channel (round_robin) spreads its calls
// over all of them.
std::string ReplicasTarget(const std::vector<std::unique_ptr<LaunchedService>>& replicas, int first,
                           bool internal = false);

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_SERVICE_LAUNCHER_H_
