#include "services/agent/agent.h"

#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "lib/grpc/channel.h"
#include "lib/status/status_macros.h"

namespace assisted::agent {
namespace {

// Keeps the channel to the orchestrator connecting, and logs each change of reachability.
class ConnectionLoop final : public service::RunningService {
 public:
  ConnectionLoop(std::shared_ptr<grpc::Channel> channel, log::Logger log)
      : channel_(std::move(channel)), log_(std::move(log)), thread_([this] { Run(); }) {}

  ~ConnectionLoop() override { Shutdown(absl::ZeroDuration()); }

  void Shutdown(absl::Duration) override {
    if (!stop_.HasBeenNotified()) stop_.Notify();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Run() {
    absl::Duration retry = kFirstRetry;
    bool connected = false;
    while (!stop_.HasBeenNotified()) {
      const bool now_connected =
          channel_->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(1));
      if (now_connected != connected) {
        connected = now_connected;
        if (connected) {
          log_.Info("orchestrator reachable");
        } else {
          log_.Warning("orchestrator unreachable, retrying");
        }
      }
      if (connected) {
        retry = kFirstRetry;
        stop_.WaitForNotificationWithTimeout(absl::Seconds(1));
      } else {
        stop_.WaitForNotificationWithTimeout(retry);
        retry = std::min(retry * 1.6, kMaxRetry);
      }
    }
  }

  static constexpr absl::Duration kFirstRetry = absl::Seconds(1);
  static constexpr absl::Duration kMaxRetry = absl::Seconds(120);

  std::shared_ptr<grpc::Channel> channel_;
  log::Logger log_;
  absl::Notification stop_;
  std::thread thread_;  // last: starts once everything above is ready
};

}  // namespace

void Config::Register(config::Parser& parser) {
  parser
      .String("orchestrator-address", &orchestrator_address, "orchestrator AgentService host:port")
      .Check(config::HostPort);
  parser.String("infra-env-id", &infra_env_id, "infra-env (discovery image) this host booted")
      .Required()
      .Check(config::Uuid);
  parser.String("host-id", &host_id, "host id to use instead of the one derived from hardware")
      .Check(config::OptionalUuid);
  parser.String("agent-token", &agent_token, "infra-env scoped agent token").Secret();
  parser.Bool("tls", &tls, "use TLS towards the orchestrator, verified with system roots");
  parser.String("ca-bundle", &ca_bundle,
                "PEM CA bundle that signs the orchestrator (implies --tls)");
  parser.String("root", &root, "root of the file system the hardware inventory is read from");
  parser.String("simulate", &simulate, "simulated host profile (fixture tree); empty = real host");
}

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context) {
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::Channel> channel,
                   grpcutil::MakeChannel(config.orchestrator_address,
                                         {.tls = config.tls, .ca_bundle_file = config.ca_bundle}));
  log::Logger log = context.log.With("infra_env_id", config.infra_env_id);
  log.Info("connecting", {{"orchestrator", config.orchestrator_address},
                          {"tls", config.tls || !config.ca_bundle.empty() ? "on" : "off"}});
  return std::make_unique<ConnectionLoop>(std::move(channel), std::move(log));
}

}  // namespace assisted::agent
