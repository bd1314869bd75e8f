#include "services/orchestrator/server.h"

#include "absl/strings/str_cat.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "assisted/orchestrator/v1/controller_service.grpc.pb.h"
#include "assisted/orchestrator/v1/orchestrator_service.grpc.pb.h"
#include "lib/auth/token.h"
#include "lib/file/read_file.h"
#include "lib/grpc/channel.h"
#include "lib/random/random.h"
#include "lib/service/grpc_host.h"
#include "lib/status/status_macros.h"
#include "lib/time/clock.h"
#include "services/orchestrator/actions/agent_seams.h"
#include "services/orchestrator/actions/orchestrator_service.h"
#include "services/orchestrator/actions/user_actions.h"
#include "services/orchestrator/agent_hub.h"
#include "services/orchestrator/controller_service.h"
#include "services/orchestrator/core/contexts.h"
#include "services/orchestrator/core/hw_requirements.h"
#include "services/orchestrator/events.h"
#include "services/orchestrator/install/artifacts.h"
#include "services/orchestrator/install/install_step.h"
#include "services/orchestrator/inventory_port.h"
#include "services/orchestrator/liveness.h"
#include "services/orchestrator/refresher.h"
#include "services/orchestrator/timeouts_file.h"

namespace assisted::orchestrator {

void Config::Register(config::Parser& parser) {
  grpc.Register(parser);
  internal_grpc.Register(parser, "internal-");
  grpcutil::AddPeerTarget(parser, "inventory-address", &inventory_address, "assisted-inventory");
  internal_tls.Register(parser);
  parser
      .Int("max-agent-streams", &agent_streams.max_registered,
           "registered agent streams this server holds (and, apart, streams waiting to register)")
      .Range(1, 1'000'000);
  parser
      .Int("max-agent-streams-per-peer", &agent_streams.max_per_peer,
           "agent streams from one address, 0 = no cap (NAT gateways front many hosts)")
      .Range(0, 1'000'000);
  parser
      .Int("max-unregistered-agent-streams-per-peer", &agent_streams.max_unregistered_per_peer,
           "agent streams from one address that have not registered yet (a host opens one)")
      .Range(1, 1'000'000);
  parser
      .Duration("agent-registration-deadline", &agent_streams.registration_deadline,
                "an agent stream that has sent nothing this long after opening is closed (the "
                "monitor wakes at that deadline); one whose registration waits for a worker is not")
      .Range(absl::Seconds(1), absl::Hours(1));
  parser.Int("workers", &workers, "threads doing inventory work for agent streams").Range(1, 256);
  parser
      .String("os-image-url", &os_image_url,
              "OS image hosts install (http://, https:// or file:///), sent in install steps")
      .Check([](const std::string& url) {
        return install::CheckOsImage({url, std::string(64, '0')});
      });
  parser.String("os-image-sha256", &os_image_sha256, "hex SHA-256 of --os-image-url")
      .Check([](const std::string& sha) {
        return install::CheckOsImage({"file:///x", sha});
      });
  parser.String("replica-id", &replica_id,
                "this replica's name in hosts' agent_stream_holder (default: a random one)");
  parser
      .Duration("monitor-interval", &monitor_interval,
                "the longest the monitor sleeps between its deadlines, and how often a host in "
                "a state with time limits is re-judged")
      .Range(absl::Milliseconds(10), absl::Minutes(10));
  parser
      .Duration("recheck-after", &recheck_after,
                "a host failing a check that a re-run can change (NTP, DNS, registry, "
                "connectivity, disk speed) re-runs it this long after, then backing off x2; 0: "
                "never")
      .Range(absl::ZeroDuration(), absl::Hours(24));
  parser
      .Duration("max-recheck-after", &max_recheck_after,
                "the longest wait between re-runs of a still failing check")
      .Range(absl::Seconds(1), absl::Hours(24));
  parser
      .Duration("host-disconnection-timeout", &host_disconnection_timeout,
                "an agent not heard for this long makes its host disconnected "
                "(HOST_MAX_DISCONNECTION_TIME)")
      .Range(absl::Seconds(1), absl::Hours(24));
  parser
      .String("release-images", &release_images,
              "JSON list of {openshift_version, cpu_architecture, url, version}: the release "
              "image of clusters registered with a version only")
      .Check([](const std::string& json) { return ParseReleaseImages(json).status(); });
  parser.String("timeouts-file", &timeouts_file,
                "YAML overriding the state machines' time limits (host/cluster keys and stage "
                "names, see services/orchestrator/timeouts_file.h); its keys win over the flags");
  parser.String("hw-requirements-file", &hw_requirements_file,
                "JSON replacing the hardware requirements and validation limits hosts are "
                "checked against (the schema of services/orchestrator/core/data/"
                "hw_requirements.json, e.g. smaller machines for a lab; upstream's "
                "HW_VALIDATOR_REQUIREMENTS); empty: the built-in ones");
  parser.Int("event-burst", &event_burst, "events a host may cause at once").Range(1, 10000);
  parser.Duration("event-refill", &event_refill, "after a burst, one more event per this long")
      .Range(absl::Milliseconds(1), absl::Hours(1));
  parser.String("url-signing-key-file", &url_signing_key_file,
                "the image service's key file: agent tokens are checked with it (empty: agents "
                "are not authenticated)");
  parser.String("controller-token-key-file", &controller_token_key_file,
                "without --url-signing-key-file: the key of the controller tokens installing "
                "hosts get for their post-reboot reports, agents still not authenticated "
                "(node 0 of the agent-based installer); empty: installed hosts do not report");
}

namespace {

// What the services use, destroyed after them (see GrpcServiceHost::Keep).
// The hub is declared last: its threads stop before the install work they call goes away.
// The hub and the user actions share one refresher (so one liveness view and one event sink).
// The refresher reports every refresh to the hub, the actions' included: the hub attaches itself
// as the refresher's observer when it is built, before anything is served (agent_hub.h). That
// closes a cycle (refresher -> hub -> the actions' sinks -> refresher) at run time only.
struct Parts {
  SystemRandom random;
  RealClock clock;
  std::shared_ptr<const ControllerTokens> controller_tokens;  // null without a signing key
  std::unique_ptr<GrpcInventory> inventory;
  std::unique_ptr<install::ArtifactGenerator> files;
  std::unique_ptr<LivenessTracker> liveness;
  std::unique_ptr<InventoryEvents> events;
  std::unique_ptr<InstallMetrics> install_metrics;
  std::unique_ptr<Refresher> refresher;
  std::unique_ptr<actions::UserActions> actions;
  std::unique_ptr<DefaultInstructions> next_steps;
  std::unique_ptr<actions::InstallStepSource> instructions;
  std::unique_ptr<actions::InstallProgressSink> progress;
  std::unique_ptr<actions::InstallRegistrationSink> registrations;
  std::unique_ptr<AgentHub> hub;
};

// The key in `file` (flag `flag`), refused when it could never sign a token.
absl::StatusOr<std::string> SigningKey(const std::string& file, absl::string_view flag) {
  ASSIGN_OR_RETURN(std::string key, ReadFile(file, flag));
  // The signer's own checks (key length) reject a key that could never verify a token.
  if (absl::Status usable = auth::SignToken({.service = key}, auth::TokenPurpose::kDownload,
                                            "00000000-0000-0000-0000-000000000000", absl::Now())
                                .status();
      !usable.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": ", usable.message()));
  }
  return key;
}

absl::StatusOr<std::string> AgentTokenKey(const Config& config, const log::Logger& log) {
  if (config.url_signing_key_file.empty()) {
    log.Warning("no --url-signing-key-file: agents are not authenticated");
    return std::string();
  }
  if (!config.controller_token_key_file.empty()) {
    return absl::InvalidArgumentError(
        "--controller-token-key-file: only without --url-signing-key-file, whose key signs the "
        "controller tokens then");
  }
  return SigningKey(config.url_signing_key_file, "--url-signing-key-file");
}

// The key of the controller tokens: the agent token key, or --controller-token-key-file's.
absl::StatusOr<std::string> ControllerTokenKey(const Config& config,
                                               const std::string& agent_token_key) {
  if (!agent_token_key.empty() || config.controller_token_key_file.empty()) return agent_token_key;
  return SigningKey(config.controller_token_key_file, "--controller-token-key-file");
}

}  // namespace

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context) {
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::Channel> inventory,
                   grpcutil::MakeChannel(config.inventory_address, config.internal_tls.Channel()));
  ASSIGN_OR_RETURN(std::string token_key, AgentTokenKey(config, context.log));
  auto parts = std::make_shared<Parts>();
  ASSIGN_OR_RETURN(const std::string controller_key, ControllerTokenKey(config, token_key));
  if (!controller_key.empty()) {
    parts->controller_tokens = std::make_shared<ControllerTokens>(controller_key);
  }
  HubOptions options{.streams = config.agent_streams,
                     .workers = config.workers,
                     .replica_id = config.replica_id,
                     .monitor_interval = config.monitor_interval,
                     .recheck_after = config.recheck_after,
                     .max_recheck_after = config.max_recheck_after,
                     .event_rate = {.per_second = 1.0 / absl::ToDoubleSeconds(config.event_refill),
                                    .burst = static_cast<double>(config.event_burst)},
                     .agent_token_key = std::move(token_key),
                     .controller_tokens = parts->controller_tokens};
  options.streams.max_unregistered = options.streams.max_registered;
  options.timeouts.host.disconnection = config.host_disconnection_timeout;
  if (!config.timeouts_file.empty()) {
    ASSIGN_OR_RETURN(std::string yaml, ReadFile(config.timeouts_file, "--timeouts-file"));
    absl::StatusOr<core::Timeouts> timeouts = ApplyTimeoutsYaml(yaml, options.timeouts);
    if (!timeouts.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--timeouts-file ", config.timeouts_file, ": ",
                                                     timeouts.status().message()));
    }
    options.timeouts = *std::move(timeouts);
  }
  core::DecisionSettings decisions;
  if (!config.hw_requirements_file.empty()) {
    ASSIGN_OR_RETURN(std::string json,
                     ReadFile(config.hw_requirements_file, "--hw-requirements-file"));
    absl::StatusOr<core::HwRequirementsCatalog> catalog = core::HwRequirementsCatalog::Parse(json);
    if (!catalog.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--hw-requirements-file ",
                                                     config.hw_requirements_file, ": ",
                                                     catalog.status().message()));
    }
    decisions.hw_requirements = *std::move(catalog);
  }
  // The install actions, the hub and their one refresher decide with the same time limits.
  parts->inventory = std::make_unique<GrpcInventory>(std::move(inventory), absl::Seconds(10),
                                                     context.log.Child("inventory"));
  parts->files = std::make_unique<install::ArtifactGenerator>(
      *parts->inventory, parts->clock, parts->random, RandomUuid(parts->random));
  parts->liveness = std::make_unique<LivenessTracker>(
      config.replica_id.empty() ? absl::StrCat("orchestrator-", RandomUuid(parts->random))
                                : config.replica_id,
      parts->clock);
  parts->events = std::make_unique<InventoryEvents>(*parts->inventory, options.event_rate,
                                                    parts->clock, context.log.Child("events"));
  parts->install_metrics = std::make_unique<InstallMetrics>(*context.metrics);
  parts->refresher = std::make_unique<Refresher>(
      *parts->inventory, RefreshOptions{.timeouts = options.timeouts, .decisions = decisions},
      parts->clock, *parts->liveness, *parts->events, context.log.Child("agents"),
      parts->files.get(), parts->install_metrics.get());
  parts->actions = std::make_unique<actions::UserActions>(
      *parts->inventory,
      actions::ActionsOptions{.timeouts = options.timeouts,
                              .decisions = decisions,
                              .os_image = {config.os_image_url, config.os_image_sha256}},
      parts->clock, parts->random, context.log.Child("install"),
      actions::ActionsParts{*parts->refresher, *parts->events, *parts->files});
  ASSIGN_OR_RETURN(std::vector<ReleaseImage> release_images,
                   ParseReleaseImages(config.release_images));
  parts->next_steps =
      std::make_unique<DefaultInstructions>(parts->random, std::move(release_images));
  parts->instructions =
      std::make_unique<actions::InstallStepSource>(parts->actions->hosts(), *parts->next_steps);
  parts->progress = std::make_unique<actions::InstallProgressSink>(parts->actions->progress());
  parts->registrations =
      std::make_unique<actions::InstallRegistrationSink>(parts->actions->hosts());
  parts->hub = std::make_unique<AgentHub>(*parts->inventory, std::move(options), parts->random,
                                          context.log.Child("agents"),
                                          HubParts{.instructions = parts->instructions.get(),
                                                   .progress = parts->progress.get(),
                                                   .registrations = parts->registrations.get(),
                                                   .events = parts->events.get(),
                                                   .clock = &parts->clock,
                                                   .liveness = parts->liveness.get(),
                                                   .refresher = parts->refresher.get(),
                                                   .metrics = context.metrics.get()});
  auto host = std::make_unique<service::GrpcServiceHost>();
  host->Keep(parts);
  host->Add(std::make_unique<AgentServiceImpl>(*parts->hub),
            agent::v1::AgentService::service_full_name());
  auto management = std::make_unique<actions::OrchestratorServiceImpl>(*parts->actions);
  host->Add(std::make_unique<ControllerServiceImpl>(*management, parts->controller_tokens.get(),
                                                    *parts->inventory, parts->clock),
            v1::ControllerService::service_full_name());
  host->Add(std::move(management), v1::OrchestratorService::service_full_name(),
            service::GrpcServiceHost::Listener::kInternal);
  RETURN_IF_ERROR(host->Start(config.grpc, context));
  grpcutil::GrpcServerOptions internal = config.internal_grpc;
  internal.keepalive_time = config.grpc.keepalive_time;
  internal.keepalive_timeout = config.grpc.keepalive_timeout;
  internal.max_concurrent_streams = config.grpc.max_concurrent_streams;
  RETURN_IF_ERROR(host->Start(internal, context, service::GrpcServiceHost::Listener::kInternal));
  return host;
}

}  // namespace assisted::orchestrator
