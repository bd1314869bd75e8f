// assisted-agent-fleet: N simulated agents in one process (see fleet.h). Writes every agent's
// record of sent and acknowledged messages (Fleet::Records) to --records on SIGUSR1 and at exit.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <thread>

#include "lib/config/config.h"
#include "lib/service/runner.h"
#include "lib/status/status_macros.h"
#include "services/agent/fleet.h"

namespace assisted::agent {
namespace {

struct FleetConfig {
  std::string profile;
  std::string discovery_iso;
  int count = 1;
  int first_index = 0;
  std::string orchestrator = "localhost:9090";
  std::string infra_env;
  std::string agent_token;
  bool tls = false;
  std::string ca_bundle;
  std::string state_dir;
  std::string seed;
  std::string records;
  int step_threads = 4;
  absl::Duration stage_delay = absl::ZeroDuration();

  void Register(config::Parser& parser) {
    parser.String("profile", &profile, "simulation profile file (tests/fixtures/profiles/*.json)")
        .Required();
    parser.Int("count", &count, "number of simulated agents").Range(1, 100000);
    parser.Int("first-index", &first_index, "host index of the first agent (address offset)")
        .Range(0, 1 << 20);
    parser.String("orchestrator", &orchestrator, "orchestrator AgentService host:port")
        .Check(config::HostPort);
    parser.String("discovery-iso", &discovery_iso,
                  "boot this discovery ISO: orchestrator, infra-env, agent token and CA come from "
                  "the Ignition in its embed area (they replace those flags)");
    parser.String("infra-env", &infra_env, "infra-env the simulated hosts booted")
        .Check(config::OptionalUuid);
    parser.String("agent-token", &agent_token, "infra-env scoped agent token").Secret();
    parser.Bool("tls", &tls, "use TLS towards the orchestrator, verified with system roots");
    parser.String("ca-bundle", &ca_bundle,
                  "PEM CA bundle that signs the orchestrator (implies --tls)");
    parser.String("state-dir", &state_dir,
                  "folder for disk images and records (default under /tmp)");
    parser.String("seed", &seed, "distinguishes the host ids of fleets run from one profile");
    parser.String(
        "records", &records,
        "where SIGUSR1 and exit write the agents' records (default STATE_DIR/records.json)");
    parser.Int("step-threads", &step_threads, "threads running the agents' steps").Range(1, 256);
    parser.Duration("stage-delay", &stage_delay, "delay between simulated install stages");
  }
};

// The fleet, plus a thread that writes the records whenever SIGUSR1 arrives.
class RunningFleet final : public service::RunningService {
 public:
  RunningFleet(std::unique_ptr<Fleet> fleet, std::string records, log::Logger log)
      : fleet_(std::move(fleet)), records_(std::move(records)), log_(std::move(log)) {
    signals_ = std::thread([this] { WaitForSignals(); });
  }

  ~RunningFleet() override { Shutdown(absl::ZeroDuration()); }

  void Shutdown(absl::Duration) override {
    if (stopping_.exchange(true)) return;
    pthread_kill(signals_.native_handle(), SIGUSR1);  // wakes sigwait
    signals_.join();
    fleet_->Stop();
    Write();
  }

 private:
  void WaitForSignals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    for (;;) {
      int signal = 0;
      sigwait(&set, &signal);
      if (stopping_.load()) return;
      Write();
    }
  }

  void Write() {
    absl::Status written = fleet_->WriteRecords(records_);
    if (written.ok()) {
      log_.Info("records written", {{"path", records_}});
    } else {
      log_.Error("cannot write records", {{"error", written.message()}});
    }
  }

  std::unique_ptr<Fleet> fleet_;
  const std::string records_;
  const log::Logger log_;
  std::atomic<bool> stopping_{false};
  std::thread signals_;
};

absl::StatusOr<std::unique_ptr<service::RunningService>> StartFleet(const FleetConfig& config,
                                                                    service::Context& context) {
  Fleet::Options options;
  options.profile = config.profile;
  options.count = config.count;
  options.first_index = config.first_index;
  options.orchestrator_address = config.orchestrator;
  options.infra_env_id = config.infra_env;
  options.agent_token = config.agent_token;
  options.channel.tls = config.tls;
  options.channel.ca_bundle_file = config.ca_bundle;
  options.state_dir = config.state_dir;
  options.seed = config.seed;
  options.step_threads = config.step_threads;
  options.stage_delay = config.stage_delay;
  log::Logger log = context.log;
  if (!config.discovery_iso.empty()) {
    RETURN_IF_ERROR(ApplyDiscoveryIso(config.discovery_iso, options));
    log.Info("booted the discovery ISO", {{"iso", config.discovery_iso},
                                          {"orchestrator", options.orchestrator_address},
                                          {"infra_env_id", options.infra_env_id},
                                          {"tls", options.channel.tls}});
  } else if (config.infra_env.empty()) {
    return absl::InvalidArgumentError("give --infra-env (or --discovery-iso)");
  }
  absl::StatusOr<std::unique_ptr<Fleet>> fleet = Fleet::Start(options, nullptr, log);
  if (!fleet.ok()) return fleet.status();
  std::string records = config.records;
  if (records.empty()) {
    records = (config.state_dir.empty() ? std::string("/tmp") : config.state_dir) + "/records.json";
  }
  log.Info("fleet started", {{"agents", config.count}, {"records", records}});
  return std::make_unique<RunningFleet>(*std::move(fleet), records, log);
}

}  // namespace
}  // namespace assisted::agent

int main(int argc, char** argv) {
  // Blocked in every thread (they inherit the mask); one thread takes it with sigwait.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return assisted::service::RunService<assisted::agent::FleetConfig>(
      "assisted-agent-fleet",
      "Runs N simulated hosts' agents in one process, each with its own gRPC connection to the "
      "orchestrator, through the same step executors as assisted-agent. SIGUSR1 writes every "
      "agent's record of sent and acknowledged messages to --records (also written at exit).",
      {}, argc, argv, assisted::agent::StartFleet);
}
