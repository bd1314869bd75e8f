#include "tests/harness/service_launcher.h"

#include <signal.h>

#include <fstream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/grpc/health_client.h"
#include "lib/random/random.h"
#include "lib/status/status_macros.h"
#include "tests/harness/probes.h"

namespace assisted::testing {
namespace {

std::string Tail(const std::string& text, size_t bytes = 4000) {
  return text.size() <= bytes ? text : text.substr(text.size() - bytes);
}

// The inventory refuses to start without a key sealing its secrets at rest. Tests get one key per
// test process (kept across restarts of the inventory, as a deployment keeps its key), unless
// they choose their own.
absl::Status AddSecretsKey(const LaunchOptions& options, std::map<std::string, std::string>& env) {
  constexpr char kVariable[] = "ASSISTED_SECRETS_KEY_FILE";
  if (!absl::EndsWith(options.binary, "/assisted-inventory") || env.count(kVariable) > 0) {
    return absl::OkStatus();
  }
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/inventory-secrets-", getpid(), ".key");
  if (!ReadFile(path, "secrets key").ok()) {
    ASSIGN_OR_RETURN(std::string key, SecureRandomBytes(32));
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << absl::Base64Escape(key) << "\n";
    if (!out.flush()) return absl::InternalError(absl::StrCat("cannot write ", path));
  }
  env[kVariable] = path;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<LaunchedService>> LaunchedService::Launch(
    const LaunchOptions& options) {
  // A port FreePort found bindable can be taken by another test process before the service
  // binds it; the service then exits saying so, and is started again on other ports. Ports the
  // caller chose are its own to keep free.
  constexpr int kAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    absl::StatusOr<std::unique_ptr<LaunchedService>> service = LaunchOnce(options);
    const bool lost_a_port = absl::IsFailedPrecondition(service.status()) &&
                             absl::StrContains(service.status().message(), "already in use");
    const bool ports_ours =
        options.grpc_port == 0 && (!options.internal_grpc || options.internal_grpc_port == 0);
    if (!lost_a_port || !ports_ours || attempt == kAttempts) return service;
  }
}

absl::StatusOr<std::unique_ptr<LaunchedService>> LaunchedService::LaunchOnce(
    const LaunchOptions& options) {
  int grpc_port = options.grpc_port;
  if (grpc_port == 0) {
    ASSIGN_OR_RETURN(grpc_port, FreePort());
  }
  int internal_grpc_port = options.internal_grpc_port;
  if (options.internal_grpc && internal_grpc_port == 0) {
    ASSIGN_OR_RETURN(internal_grpc_port, FreePort());
  }
  ASSIGN_OR_RETURN(int metrics_port, FreePort());
  std::vector<std::string> argv = {RunfilePath(options.binary),
                                   absl::StrCat("--grpc-listen=127.0.0.1:", grpc_port),
                                   absl::StrCat("--metrics-listen=127.0.0.1:", metrics_port)};
  if (options.internal_grpc) {
    argv.push_back(absl::StrCat("--internal-grpc-listen=127.0.0.1:", internal_grpc_port));
  }
  argv.insert(argv.end(), options.args.begin(), options.args.end());
  static int launches = 0;  // distinct log names within one test process
  const std::string log_path =
      absl::StrCat(::testing::TempDir(), "/", options.binary.substr(options.binary.rfind('/') + 1),
                   "-", getpid(), "-", launches++, ".log");
  std::map<std::string, std::string> env = options.env;
  RETURN_IF_ERROR(AddSecretsKey(options, env));
  ASSIGN_OR_RETURN(std::unique_ptr<process::Subprocess> process,
                   process::Subprocess::Start(argv, env, log_path));
  std::unique_ptr<LaunchedService> service(
      new LaunchedService(std::move(process), log_path, grpc_port,
                          options.internal_grpc ? internal_grpc_port : 0, metrics_port));
  auto serving = [](const std::string& target, const grpcutil::ChannelOptions& options) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = grpcutil::MakeChannel(target, options);
    if (!channel.ok()) return false;
    absl::StatusOr<std::string> health =
        grpcutil::CheckHealth(*channel, "", absl::Milliseconds(500));
    return health.ok() && *health == "SERVING";
  };

  const absl::Time deadline = absl::Now() + options.ready_timeout;
  while (true) {
    if (std::optional<int> exited = service->process_->Poll(); exited.has_value()) {
      return absl::FailedPreconditionError(absl::StrCat(options.binary, " exited with ", *exited,
                                                        " before serving; its log:\n",
                                                        Tail(service->Log())));
    }
    if (serving(service->grpc_target(), options.probe_channel) &&
        (!options.internal_grpc ||
         serving(service->internal_grpc_target(), options.internal_probe_channel))) {
      return service;
    }
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat(options.binary, " not SERVING after ",
                                                      absl::FormatDuration(options.ready_timeout),
                                                      "; its log:\n", Tail(service->Log())));
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
}

std::string LaunchedService::Log() const { return ReadFile(log_path_, "service log").value_or(""); }

int LaunchedService::Stop(absl::Duration grace) { return process_->Stop(grace); }

void LaunchedService::Signal(int signal) { process_->Signal(signal); }

void LaunchedService::Kill() {
  process_->Signal(SIGKILL);
  // SIGKILL cannot be caught: the wait ends as soon as the kernel has torn the process down.
  (void)process_->Wait(absl::Seconds(30));
}

std::vector<int> ReplicaPorts(const std::vector<std::unique_ptr<LaunchedService>>& replicas,
                              int first, bool internal) {
  std::vector<int> ports;
  for (size_t i = 0; i < replicas.size(); ++i) {
    const LaunchedService& replica = *replicas[(first + i) % replicas.size()];
    ports.push_back(internal ? replica.internal_grpc_port() : replica.grpc_port());
  }
  return ports;
}

absl::StatusOr<std::string> ReplicasAddress(
    const std::vector<std::unique_ptr<LaunchedService>>& replicas, int first, bool internal,
    std::vector<std::unique_ptr<TcpFront>>& fronts) {
  const std::vector<int> ports = ReplicaPorts(replicas, first, internal);
  if (ports.size() == 1) return absl::StrCat("127.0.0.1:", ports[0]);
  ASSIGN_OR_RETURN(std::unique_ptr<TcpFront> front,
                   TcpFront::Start(TcpFront::Policy::kFirstThatAccepts));
  for (int port : ports) front->AddBackend(port);
  fronts.push_back(std::move(front));
  return fronts.back()->address();
}

std::string ReplicasTarget(const std::vector<std::unique_ptr<LaunchedService>>& replicas, int first,
                           bool internal) {
  const std::vector<int> ports = ReplicaPorts(replicas, first, internal);
  if (ports.size() == 1) return absl::StrCat("127.0.0.1:", ports[0]);
  std::vector<std::string> addresses;
  for (int port : ports) addresses.push_back(absl::StrCat("127.0.0.1:", port));
  return absl::StrCat("ipv4:///", absl::StrJoin(addresses, ","));
}

}  // namespace assisted::testing
