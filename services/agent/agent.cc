#include "services/agent/agent.h"

#include <filesystem>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "lib/file/read_file.h"
#include "lib/grpc/channel.h"
#include "lib/process/subprocess.h"
#include "lib/random/random.h"
#include "lib/status/status_macros.h"
#include "lib/time/clock.h"
#include "services/agent/hardware/addresses.h"
#include "services/agent/hardware/host_id.h"
#include "services/agent/hardware/host_root.h"
#include "services/agent/hardware/inventory.h"
#include "services/agent/simulation/profile.h"
#include "services/agent/steps/executors.h"
#include "services/agent/steps/install.h"
#include "services/agent/steps/net_probe.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/step_runner.h"
#include "services/agent/stream_client.h"

namespace assisted::agent {
namespace {

// Runs pushed steps on the step runner; answers the inventory step itself, with the typed
// inventory the orchestrator stores.
class RunnerExecutor final : public StepExecutor,
                             public steps::LogChunkSink,
                             public steps::InstallReporter {
 public:
  // Where what the steps produce besides results goes (the stream client).
  struct Outputs {
    std::function<void(v1::LogChunk)> log_chunks;
    std::function<void(v1::AgentMessage)> progress;
    // Called on a runner thread once the install step's result went to the client.
    std::function<void(const steps::InstallRequest&)> reboot;
  };

  // `controller` is how this agent reaches the orchestrator (no token: the install step's
  // instruction brings it), `ca_bundle_file` the CA bundle it trusts (may be empty).
  RunnerExecutor(std::function<types::v1::Inventory()> inventory,
                 const steps::SimulationHooks* simulation, steps::ControllerAccess controller,
                 std::string ca_bundle_file, log::Logger log)
      : inventory_(std::move(inventory)),
        simulation_(simulation),
        ca_bundle_file_(std::move(ca_bundle_file)),
        log_(std::move(log)),
        controller_(std::move(controller)) {}

  // Must be called once before any step runs.
  absl::Status Start(int max_concurrent, Outputs outputs, const log::Logger& log) {
    outputs_ = std::move(outputs);
    environment_.processes = &processes_;
    environment_.clock = &clock_;
    environment_.log_chunks = this;
    environment_.simulation = simulation_;
    environment_.install = this;
    environment_.log = log;
    ASSIGN_OR_RETURN(
        runner_,
        steps::StepRunner::Create(
            {.max_concurrent = max_concurrent},
            steps::MakeExecutors(
                {}, [this]() -> absl::StatusOr<std::string> { return ToJson(inventory_()); }),
            environment_, [this](types::v1::StepResult result) { Deliver(std::move(result)); }));
    return absl::OkStatus();
  }

  ~RunnerExecutor() override { Stop(); }

  // Stops running steps; no result is delivered afterwards.
  void Stop() {
    if (runner_ != nullptr) runner_->Stop();
  }

  void Run(const v1::Instruction& instruction,
           std::function<void(types::v1::StepResult)> done) override {
    const types::v1::Step& step = instruction.step();
    {
      absl::MutexLock lock(&mu_);
      done_ = done;
      // The install step's token is what the installed OS's reporter presents.
      if (!instruction.controller_token().empty()) {
        controller_.controller_token = instruction.controller_token();
      }
    }
    if (step.step_type() == types::v1::STEP_TYPE_INVENTORY) {
      types::v1::StepResult result;
      result.set_step_id(step.step_id());
      result.set_step_type(step.step_type());
      *result.mutable_inventory() = inventory_();
      result.set_exit_code(0);
      done(std::move(result));
      return;
    }
    if (absl::Status submitted = runner_->Submit(step); !submitted.ok()) {
      types::v1::StepResult result;
      result.set_step_id(step.step_id());
      result.set_step_type(step.step_type());
      result.set_exit_code(-1);
      result.set_error(std::string(submitted.message()));
      done(std::move(result));
    }
  }

  absl::Status Send(const v1::LogChunk& chunk) override {
    outputs_.log_chunks(chunk);
    return absl::OkStatus();
  }

  void Progress(types::v1::HostStage stage, const std::string& info, int percentage) override {
    outputs_.progress(ProgressMessage(stage, info, percentage, clock_.Now()));
  }

  void RebootAfterResult(const steps::InstallRequest& request) override {
    absl::MutexLock lock(&mu_);
    pending_reboot_ = request;
  }

  std::optional<steps::ControllerAccess> PostRebootAccess() override {
    steps::ControllerAccess access;
    {
      absl::MutexLock lock(&mu_);
      access = controller_;
    }
    if (access.controller_token.empty()) {
      log_.Warning("no controller token: the installed OS will not report its last stages");
      return std::nullopt;
    }
    if (!ca_bundle_file_.empty()) {
      absl::StatusOr<std::string> pem = ReadFile(ca_bundle_file_, "CA bundle");
      if (!pem.ok()) {
        log_.Error("the installed OS will not report its last stages",
                   {{"error", pem.status().message()}});
        return std::nullopt;
      }
      access.ca_bundle_pem = *std::move(pem);
    }
    return access;
  }

 private:
  static std::string ToJson(const types::v1::Inventory& inventory) {
    std::string json;
    google::protobuf::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;
    (void)google::protobuf::util::MessageToJsonString(inventory, &json, options);
    return json;
  }

  void Deliver(types::v1::StepResult result) {
    std::function<void(types::v1::StepResult)> done;
    {
      absl::MutexLock lock(&mu_);
      done = done_;
    }
    const bool install = result.step_type() == types::v1::STEP_TYPE_INSTALL;
    if (done) done(std::move(result));
    if (!install) return;
    std::optional<steps::InstallRequest> reboot;
    {
      absl::MutexLock lock(&mu_);
      reboot.swap(pending_reboot_);
    }
    if (reboot.has_value()) outputs_.reboot(*reboot);
  }

  std::function<types::v1::Inventory()> inventory_;
  const steps::SimulationHooks* const simulation_;  // null on a real host
  const std::string ca_bundle_file_;
  const log::Logger log_;
  Outputs outputs_;
  process::LocalProcessRunner processes_;
  RealClock clock_;
  steps::StepEnvironment environment_;
  absl::Mutex mu_;
  std::function<void(types::v1::StepResult)> done_ ABSL_GUARDED_BY(mu_);
  steps::ControllerAccess controller_ ABSL_GUARDED_BY(mu_);  // its token: a secret, never logged
  std::optional<steps::InstallRequest> pending_reboot_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<steps::StepRunner> runner_;  // last: its threads use everything above
};

// The agent's life: the stream client on its own thread until shutdown.
class Agent final : public service::RunningService {
 public:
  // `simulated` is the simulated host, or null on a real host.
  static absl::StatusOr<std::unique_ptr<Agent>> Start(
      StreamClient::ChannelFactory channels, StreamIdentity identity, const Config& config,
      std::unique_ptr<simulation::SimulatedHost> simulated, log::Logger log) {
    std::unique_ptr<Agent> agent(
        new Agent(std::move(channels), std::move(identity), config, std::move(simulated), log));
    if (config.probe_port > 0 && agent->simulated_ == nullptr) {
      ASSIGN_OR_RETURN(agent->probe_, steps::ProbeListener::Start("0.0.0.0", config.probe_port));
    }
    Agent* self = agent.get();
    RETURN_IF_ERROR(agent->executor_.Start(
        config.max_concurrent_steps,
        {.log_chunks = [self](v1::LogChunk chunk) { self->client_.SendLogChunk(std::move(chunk)); },
         .progress = [self](v1::AgentMessage m) { self->client_.SendProgress(std::move(m)); },
         .reboot = [self](const steps::InstallRequest& r) { self->Reboot(r); }},
        log.Child("steps")));
    agent->thread_ = std::thread([client = &agent->client_, log = agent->log_] {
      // The service runs until shutdown either way; an early end is the orchestrator's word.
      if (absl::Status ended = client->Run(); !ended.ok()) {
        log.Error("agent session ended", {{"reason", ended.ToString()}});
      }
    });
    return agent;
  }

  ~Agent() override { Shutdown(absl::ZeroDuration()); }

  // After a successful install: report Rebooting, give the orchestrator up to 30 s to
  // acknowledge everything, then reboot (a real host) or end the discovery session (a simulated
  // host). The reference always waits a minute (`shutdown -r +1`) so its logs can still leave;
  // here that minute is given only when something is still unacknowledged.
  void Reboot(const steps::InstallRequest& request) {
    client_.SendProgress(ProgressMessage(types::v1::HOST_STAGE_REBOOTING, "", -1, absl::Now()));
    const bool acknowledged = client_.outbox().AwaitEmpty(absl::Seconds(30));
    if (!acknowledged) log_.Warning("rebooting in a minute with unacknowledged messages");
    if (simulated_ != nullptr) {
      log_.Info("simulated reboot: discovery session ends", {{"role", request.role}});
      client_.Stop();
      return;
    }
    process::LocalProcessRunner processes;
    absl::StatusOr<process::CommandResult> ran = processes.Run(
        {.argv = {"shutdown", "-r", acknowledged ? "now" : "+1"}, .timeout = absl::Seconds(30)});
    if (!ran.ok() || ran->exit_code != 0) {
      log_.Error("cannot reboot",
                 {{"error", ran.ok() ? ran->stderr_data : ran.status().message()}});
    }
  }

  void Shutdown(absl::Duration) override {
    executor_.Stop();  // first: results must not reach a stopped client
    client_.Stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  Agent(StreamClient::ChannelFactory channels, StreamIdentity identity, const Config& config,
        std::unique_ptr<simulation::SimulatedHost> simulated, log::Logger log)
      : log_(log),
        simulated_(std::move(simulated)),
        executor_(identity.inventory, simulated_ ? &simulated_->hooks() : nullptr,
                  {.orchestrator_address = config.orchestrator_address,
                   .tls = config.tls || !config.ca_bundle.empty(),
                   .infra_env_id = identity.infra_env_id},
                  config.ca_bundle, log.Child("steps")),
        client_(std::move(channels), std::move(identity), executor_, random_, std::move(log)) {}

  const log::Logger log_;
  SystemRandom random_;
  const std::unique_ptr<simulation::SimulatedHost> simulated_;  // before what uses its hooks
  RunnerExecutor executor_;
  StreamClient client_;
  std::unique_ptr<steps::ProbeListener> probe_;
  std::thread thread_;  // started last, once everything above is ready
};

// The hardware inventory of `root` ("/" on a real host, a fixture tree in simulation); never
// fails, at worst it is sparse.
types::v1::Inventory Collect(const std::string& root) {
  const hardware::HostRoot host_root(root);
  hardware::SystemAddressSource system_addresses;
  hardware::CollectOptions options;
  if (root == "/") options.addresses = &system_addresses;  // else the tree's own address files
  return hardware::CollectInventory(host_root, options).value_or(types::v1::Inventory());
}

// The simulated host of --simulate: the profile's host #simulate_index, its disk image created.
absl::StatusOr<std::unique_ptr<simulation::SimulatedHost>> Simulate(const Config& config) {
  ASSIGN_OR_RETURN(simulation::Profile profile, simulation::LoadProfile(config.simulate));
  ASSIGN_OR_RETURN(types::v1::Inventory tree, simulation::CollectTreeInventory(profile));
  simulation::HostOverrides overrides{.index = config.simulate_index,
                                      .host_id = absl::AsciiStrToLower(config.host_id)};
  const std::string host_id = overrides.host_id.empty()
                                  ? simulation::SimulatedHostId(profile, "", overrides.index)
                                  : overrides.host_id;
  const std::string state_dir = config.state_dir.empty()
                                    ? absl::StrCat("/tmp/assisted-simulated-", host_id)
                                    : config.state_dir;
  const std::string disk = absl::StrCat(state_dir, "/disk.img");
  RETURN_IF_ERROR(simulation::PrepareDiskImage(disk, profile.disk_size_bytes));
  ASSIGN_OR_RETURN(simulation::SimulatedHost host,
                   simulation::SimulatedHost::Create(profile, tree, overrides, disk));
  return std::make_unique<simulation::SimulatedHost>(std::move(host));
}

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
  parser.String("simulate", &simulate,
                "simulated host profile file (tests/fixtures/profiles/*.json); empty = real host");
  parser
      .Int("simulate-index", &simulate_index,
           "with --simulate: which host of the profile (address offset, name, id)")
      .Range(0, 1 << 20);
  parser.String("state-dir", &state_dir,
                "with --simulate: folder for the simulated disk image (default under /tmp)");
  parser.Int("probe-port", &probe_port, "TCP port other hosts' connectivity checks probe, 0 = none")
      .Range(0, 65535);
  parser.Int("max-concurrent-steps", &max_concurrent_steps, "steps running at once").Range(1, 64);
}

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context) {
  StreamIdentity identity;
  identity.infra_env_id = absl::AsciiStrToLower(config.infra_env_id);
  std::unique_ptr<simulation::SimulatedHost> simulated;
  if (!config.simulate.empty()) {
    ASSIGN_OR_RETURN(simulated, Simulate(config));
    identity.host_id = simulated->host_id();
    identity.inventory = [inventory = simulated->inventory()] { return inventory; };
  } else {
    identity.host_id = config.host_id.empty() ? hardware::HostId(hardware::HostRoot(config.root))
                                              : absl::AsciiStrToLower(config.host_id);
    identity.inventory = [root = config.root] { return Collect(root); };
  }
  SystemRandom random;
  identity.instance_id = RandomUuid(random);
  identity.agent_version = service::kVersion;
  identity.token = config.agent_token;
  const grpcutil::ChannelOptions options{.tls = config.tls, .ca_bundle_file = config.ca_bundle};
  const std::string target = config.orchestrator_address;
  // Fail start-up on a bad CA bundle rather than retrying forever.
  RETURN_IF_ERROR(grpcutil::MakeChannel(target, options).status());
  log::Logger log = context.log.With("host_id", identity.host_id);
  log.Info("connecting", {{"orchestrator", target},
                          {"infra_env_id", identity.infra_env_id},
                          {"tls", options.tls || !options.ca_bundle_file.empty() ? "on" : "off"},
                          {"simulated", simulated ? simulated->profile().name : "no"}});
  ASSIGN_OR_RETURN(
      std::unique_ptr<Agent> agent,
      Agent::Start([target, options] { return grpcutil::MakeChannel(target, options); },
                   std::move(identity), config, std::move(simulated), std::move(log)));
  return agent;
}

}  // namespace assisted::agent
