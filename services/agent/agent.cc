#include "services/agent/agent.h"

#include <filesystem>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/file/read_file.h"
#include "lib/grpc/channel.h"
#include "lib/random/random.h"
#include "lib/status/status_macros.h"
#include "services/agent/stream_client.h"

namespace assisted::agent {
namespace {

// Answers the inventory step from the registration inventory and reports every other step as
// unsupported (exit code -1): the full step executors plug in here.
class BasicStepExecutor final : public StepExecutor {
 public:
  explicit BasicStepExecutor(std::function<types::v1::Inventory()> inventory)
      : inventory_(std::move(inventory)) {}

  void Run(const types::v1::Step& step, std::function<void(types::v1::StepResult)> done) override {
    types::v1::StepResult result;
    result.set_step_id(step.step_id());
    result.set_step_type(step.step_type());
    if (step.step_type() == types::v1::STEP_TYPE_INVENTORY) {
      *result.mutable_inventory() = inventory_();
      result.set_exit_code(0);
    } else {
      result.set_exit_code(-1);
      result.set_error(absl::StrCat("step type ", types::v1::StepType_Name(step.step_type()),
                                    " is not supported by this agent"));
    }
    done(std::move(result));
  }

 private:
  std::function<types::v1::Inventory()> inventory_;
};

// The agent's life: the stream client on its own thread until shutdown.
class Agent final : public service::RunningService {
 public:
  Agent(StreamClient::ChannelFactory channels, StreamIdentity identity, log::Logger log)
      : executor_(identity.inventory),
        client_(std::move(channels), std::move(identity), executor_, random_, std::move(log)),
        thread_([this] { client_.Run(); }) {}

  ~Agent() override { Shutdown(absl::ZeroDuration()); }

  void Shutdown(absl::Duration) override {
    client_.Stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  SystemRandom random_;
  BasicStepExecutor executor_;
  StreamClient client_;
  std::thread thread_;  // last: starts once everything above is ready
};

// The host id when none is given: the machine's SMBIOS UUID, lower-cased.
absl::StatusOr<std::string> DerivedHostId(const std::string& root) {
  absl::StatusOr<std::string> uuid = ReadFile(
      (std::filesystem::path(root) / "sys/class/dmi/id/product_uuid").string(), "product_uuid");
  if (!uuid.ok()) {
    return absl::FailedPreconditionError(
        "cannot derive a host id from the hardware; pass --host-id");
  }
  std::string id = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*uuid));
  RETURN_IF_ERROR(config::Uuid(id));
  return id;
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
  parser.String("simulate", &simulate, "simulated host profile (fixture tree); empty = real host");
}

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context) {
  StreamIdentity identity;
  identity.infra_env_id = absl::AsciiStrToLower(config.infra_env_id);
  if (!config.host_id.empty()) {
    identity.host_id = absl::AsciiStrToLower(config.host_id);
  } else {
    ASSIGN_OR_RETURN(identity.host_id, DerivedHostId(config.root));
  }
  SystemRandom random;
  identity.instance_id = RandomUuid(random);
  identity.agent_version = service::kVersion;
  identity.token = config.agent_token;
  identity.inventory = [] { return types::v1::Inventory(); };
  const grpcutil::ChannelOptions options{.tls = config.tls, .ca_bundle_file = config.ca_bundle};
  const std::string target = config.orchestrator_address;
  // Fail start-up on a bad CA bundle rather than retrying forever.
  RETURN_IF_ERROR(grpcutil::MakeChannel(target, options).status());
  log::Logger log = context.log.With("host_id", identity.host_id);
  log.Info("connecting", {{"orchestrator", target},
                          {"infra_env_id", identity.infra_env_id},
                          {"tls", options.tls || !options.ca_bundle_file.empty() ? "on" : "off"}});
  return std::make_unique<Agent>(
      [target, options] { return grpcutil::MakeChannel(target, options); }, std::move(identity),
      std::move(log));
}

}  // namespace assisted::agent
