// aictl's `agent ...` commands, the agent-based installer (see command.h and
// services/gateway/cli/agent/asset_dir.h): one ISO from install-config.yaml + agent-config.yaml.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "lib/file/read_file.h"
#include "lib/grpc/channel.h"
#include "lib/ignition/discovery_layout.h"
#include "lib/random/random.h"
#include "lib/status/grpc_status.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/agent/agent_ignition.h"
#include "services/gateway/cli/agent/asset_dir.h"
#include "services/gateway/cli/agent/node_zero_registrar.h"
#include "services/gateway/cli/command.h"
#include "services/gateway/cli/rest_client.h"
#include "services/gateway/jwt.h"

namespace assisted::cli {
namespace {

// Where `./dev os-images` leaves the newest agent live ISO (the live ISO plus what node 0 runs).
std::string DefaultBaseIso() {
  const char* home = std::getenv("HOME");
  return absl::StrCat(home != nullptr ? home : "",
                      "/.cache/assisted-os-images/current/agent-live.iso");
}

// One line per problem, so each names its file and field on its own.
int Refused(Io io, absl::string_view command, const absl::Status& status) {
  const std::vector<absl::string_view> lines = absl::StrSplit(status.message(), '\n');
  if (lines.size() == 1) {
    io.err << "aictl " << command << ": " << status.message() << "\n";
  } else {
    io.err << "aictl " << command << ": " << lines.size() << " problems:\n";
    for (absl::string_view line : lines) io.err << "  " << line << "\n";
  }
  return ExitCodeFor(status);
}

void Warn(Io io, absl::string_view command, const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    io.err << "aictl " << command << ": warning: " << warning << "\n";
  }
}

int RunAgentCreateImage(const CommandOptions& options, Io io) {
  SystemRandom random;
  absl::StatusOr<agent::CreatedImage> created =
      agent::CreateImage(options.dir, options.base_iso, absl::Now(), random, options.release_image);
  if (!created.ok()) return Refused(io, "agent create image", created.status());
  Warn(io, "agent create image", created->warnings);
  io.err << "wrote " << created->iso_path << ", " << options.dir << "/auth/kubeconfig and "
         << options.dir << "/auth/kubeadmin-password\n"
         << "boot all " << created->expected_hosts << " hosts from the ISO; the one at "
         << created->rendezvous_ip << " (node 0) runs the installation\n";
  io.out << created->iso_path << "\n";
  return kExitOk;
}

int RunAgentCreateClusterManifests(const CommandOptions& options, Io io) {
  absl::StatusOr<std::vector<std::string>> written = agent::CreateClusterManifests(options.dir);
  if (!written.ok()) return Refused(io, "agent create cluster-manifests", written.status());
  for (const std::string& path : *written) io.out << path << "\n";
  return kExitOk;
}

int RunAgentCreatePxeFiles(const CommandOptions& options, Io io) {
  SystemRandom random;
  absl::StatusOr<agent::CreatedPxeFiles> created =
      agent::CreatePxeFiles(options.dir, options.base_iso, options.boot_artifacts_base_url,
                            absl::Now(), random, options.release_image);
  if (!created.ok()) return Refused(io, "agent create pxe-files", created.status());
  Warn(io, "agent create pxe-files", created->image.warnings);
  io.err << "wrote " << options.dir << "/" << agent::kBootArtifactsDir << "/, " << options.dir
         << "/auth/kubeconfig and " << options.dir << "/auth/kubeadmin-password\n"
         << "serve " << options.dir << "/" << agent::kBootArtifactsDir << "/ at "
         << options.boot_artifacts_base_url << " and boot all " << created->image.expected_hosts
         << " hosts with " << agent::kIpxeScriptName << "; the one at "
         << created->image.rendezvous_ip << " (node 0) runs the installation\n";
  for (const std::string& path : created->paths) io.out << path << "\n";
  return kExitOk;
}

int RunAgentCreate(const GlobalOptions&, const CommandOptions& options,
                   const std::vector<std::string>& args, Io io) {
  if (args.size() == 1 && args[0] == "image") return RunAgentCreateImage(options, io);
  if (args.size() == 1 && args[0] == "pxe-files") return RunAgentCreatePxeFiles(options, io);
  if (args.size() == 1 && args[0] == "cluster-manifests") {
    return RunAgentCreateClusterManifests(options, io);
  }
  io.err << "aictl agent create: expected image, pxe-files or cluster-manifests\n";
  return kExitUsage;
}

// A token of node 0's gateway (signed with its key `secret`) for the agent installer's user
// (agent_ignition.h).
absl::StatusOr<std::string> NodeZeroToken(const std::string& secret, absl::Duration lifetime) {
  const absl::Time now = absl::Now();
  return gateway::SignHs256(secret, {{"sub", agent::kAgentInstallerUser},
                                     {"username", agent::kAgentInstallerUser},
                                     {"org_id", agent::kAgentInstallerUser},
                                     {"iat", absl::ToUnixSeconds(now)},
                                     {"exp", absl::ToUnixSeconds(now + lifetime)}});
}

// `agent wait-for`: waits until node 0 answers and has created the cluster (it boots, starts
// its services and registers the cluster from the ISO), then follows it with `wait`, which
// prints every host's progress and retries while node 0 does not answer.
int RunAgentWaitFor(const GlobalOptions&, const CommandOptions& options,
                    const std::vector<std::string>& args, Io io) {
  constexpr absl::string_view kCommand = "agent wait-for";
  if (args.size() != 1 || (args[0] != "bootstrap-complete" && args[0] != "install-complete")) {
    io.err << "aictl agent wait-for: expected bootstrap-complete or install-complete\n";
    return kExitUsage;
  }
  absl::StatusOr<agent::AgentState> state = agent::ReadState(options.dir);
  if (!state.ok()) return Refused(io, kCommand, state.status());
  absl::StatusOr<std::string> token =
      NodeZeroToken(state->gateway_jwt_secret, options.timeout + absl::Hours(1));
  if (!token.ok()) return Refused(io, kCommand, token.status());
  const absl::Time deadline = absl::Now() + options.timeout;
  RestClient client({.server = state->gateway_url, .token = *token});
  std::string last_wait;
  for (;;) {
    const absl::StatusOr<nlohmann::json> cluster =
        client.Call("GET", absl::StrCat("/clusters/", state->cluster_id));
    if (cluster.ok()) break;
    const absl::StatusCode code = cluster.status().code();
    if (code != absl::StatusCode::kUnavailable && code != absl::StatusCode::kNotFound) {
      return Refused(io, kCommand, cluster.status());
    }
    const std::string waiting =
        code == absl::StatusCode::kNotFound
            ? absl::StrCat("node 0 answers; waiting for it to create cluster ", state->cluster_name)
            : absl::StrCat("waiting for node 0 at ", state->gateway_url, " (",
                           cluster.status().message(), ")");
    if (waiting != last_wait) io.err << "aictl agent wait-for: " << waiting << "\n";
    last_wait = waiting;
    if (absl::Now() + options.interval > deadline) {
      io.err << "aictl agent wait-for: node 0 did not create cluster " << state->cluster_name
             << " within " << absl::FormatDuration(options.timeout) << "\n";
      return kExitTimedOut;
    }
    absl::SleepFor(options.interval);
  }
  const absl::Duration left = std::max(absl::Seconds(1), deadline - absl::Now());
  return Run(
      {absl::StrCat("--server=", state->gateway_url), absl::StrCat("--token=", *token), "wait",
       state->cluster_id, args[0] == "bootstrap-complete" ? "--for=finalizing" : "--for=installed",
       absl::StrCat("--timeout=", absl::FormatDuration(absl::Ceil(left, absl::Seconds(1)))),
       absl::StrCat("--interval=", absl::FormatDuration(options.interval))},
      {}, io);
}

// Node 0's services as `agent run-node-zero` reaches them: the gateway's REST API, and the
// inventory on loopback for the credentials (artifacts have no REST route to write them).
class LocalNodeZeroServices final : public agent::NodeZeroServices {
 public:
  LocalNodeZeroServices(RestClient& rest, const std::shared_ptr<grpc::Channel>& inventory)
      : rest_(rest), inventory_(inventory::v1::InventoryService::NewStub(inventory)) {}

  absl::StatusOr<nlohmann::json> Call(absl::string_view method, absl::string_view path,
                                      const std::optional<nlohmann::json>& body) override {
    return rest_.Call(method, path, body);
  }

  absl::Status PutCredential(const std::string& cluster_id, const std::string& name,
                             const std::string& content) override {
    inventory::v1::PutArtifactRequest request;
    request.set_cluster_id(cluster_id);
    request.set_name(name);
    request.set_kind(inventory::v1::ARTIFACT_KIND_CREDENTIALS);
    request.set_content_type(name == "kubeconfig" ? "application/yaml" : "text/plain");
    request.set_content(content);
    request.set_if_absent(true);
    inventory::v1::ArtifactInfo stored;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
    return FromGrpcStatus(inventory_->PutArtifact(&context, request, &stored));
  }

 private:
  RestClient& rest_;
  std::unique_ptr<inventory::v1::InventoryService::Stub> inventory_;
};

// `agent run-node-zero`: node 0's registration (agent/node_zero_registrar.h), started by
// assisted-node-zero-register.service from the ISO's Ignition.
int RunAgentNodeZero(const GlobalOptions& global, const CommandOptions& options,
                     const std::vector<std::string>&, Io io) {
  constexpr absl::string_view kCommand = "agent run-node-zero";
  absl::StatusOr<agent::NodeZeroInputs> inputs = agent::ReadNodeZeroInputs(
      options.config_file, options.pull_secret_file, options.credentials_dir);
  if (!inputs.ok()) return Refused(io, kCommand, inputs.status());
  absl::StatusOr<std::string> secret = ReadFile(options.secret_file, "--jwt-secret-file");
  if (!secret.ok()) return Refused(io, kCommand, secret.status());
  absl::StatusOr<std::string> token = NodeZeroToken(*secret, options.timeout + absl::Hours(1));
  if (!token.ok()) return Refused(io, kCommand, token.status());
  absl::StatusOr<std::shared_ptr<grpc::Channel>> inventory =
      grpcutil::MakeChannel(options.inventory_address, {});
  if (!inventory.ok()) return Refused(io, kCommand, inventory.status());
  RestClient rest({.server = global.server, .token = *token});
  LocalNodeZeroServices services(rest, *inventory);
  agent::NodeZeroRegistrar registrar(*std::move(inputs), services);
  const absl::Status done = agent::RunNodeZero(
      registrar, {.interval = options.interval, .timeout = options.timeout}, io.err);
  if (!done.ok()) return Refused(io, kCommand, done);
  return kExitOk;
}

void BindDir(config::Parser& parser, CommandOptions& options) {
  parser.String("dir", &options.dir,
                "asset folder: install-config.yaml and agent-config.yaml in, the ISO, auth/ and "
                "the state file out");
}

}  // namespace

std::vector<Command> AgentCommands() {
  return {
      {"agent create",
       "agent-based installer: check install-config.yaml + agent-config.yaml (or, without "
       "install-config.yaml, the ZTP manifests in DIR/cluster-manifests/) and write "
       "DIR/agent.x86_64.iso (image), DIR/boot-artifacts/ (pxe-files: kernel, initrd, rootfs, "
       "iPXE script) or DIR/cluster-manifests/ (cluster-manifests)",
       "image|pxe-files|cluster-manifests",
       [](config::Parser& parser, CommandOptions& options) {
         BindDir(parser, options);
         options.base_iso = DefaultBaseIso();
         parser.String("base-iso", &options.base_iso,
                       "CoreOS-style live ISO to put the Ignition into (default: the newest from "
                       "./dev os-images)");
         parser
             .String("release-image", &options.release_image,
                     "image/pxe-files: the release image the hosts check they can pull (through "
                     "install-config.yaml's mirrors; by digest when a mirror takes it); default: "
                     "node 0's own")
             .Env("OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE");
         parser.String("boot-artifacts-base-url", &options.boot_artifacts_base_url,
                       "pxe-files: the http(s) URL where DIR/boot-artifacts/ is served to the "
                       "hosts (the iPXE script and the kernel's rootfs URL point there)");
       },
       RunAgentCreate},
      {"agent wait-for",
       "agent-based installer: follow node 0 until bootstrap-complete (control plane up) or "
       "install-complete",
       "bootstrap-complete|install-complete",
       [](config::Parser& parser, CommandOptions& options) {
         BindDir(parser, options);
         options.timeout = absl::Minutes(150);
         options.interval = absl::Seconds(2);
         parser.Duration("timeout", &options.timeout, "give up (exit 3) after this long")
             .Range(absl::Seconds(1), absl::Hours(48));
         parser.Duration("interval", &options.interval, "how often to look")
             .Range(absl::Milliseconds(100), absl::Minutes(10));
       },
       RunAgentWaitFor},
      {"agent run-node-zero",
       "agent-based installer, on node 0: create the cluster of cluster.json through the "
       "gateway (--server), store its credentials, name the hosts and start the install",
       nullptr,
       [](config::Parser& parser, CommandOptions& options) {
         options.config_file = agent::kClusterJsonPath;
         options.pull_secret_file = discovery_layout::kPullSecretPath;
         options.credentials_dir = agent::kCredentialsDir;
         options.secret_file = absl::StrCat(agent::kCredentialsDir, "/jwt.key");
         options.inventory_address = "127.0.0.1:9091";
         options.timeout = absl::Hours(24);
         options.interval = absl::Seconds(2);
         parser.String("config", &options.config_file, "the cluster definition (cluster.json)");
         parser.String("pull-secret-file", &options.pull_secret_file, "the pull secret");
         parser.String("credentials-dir", &options.credentials_dir,
                       "the ISO's credentials (tls/root-ca.*, kubeconfig, kubeadmin-password)");
         parser.String("jwt-secret-file", &options.secret_file,
                       "the gateway's --jwt-secret-file: the registration signs its token with it");
         parser
             .String("inventory-address", &options.inventory_address,
                     "the inventory's gRPC host:port, where the credentials are stored")
             .Check(config::HostPort);
         parser.Duration("timeout", &options.timeout, "give up (exit 3) after this long")
             .Range(absl::Seconds(1), absl::Hours(24 * 7));
         parser.Duration("interval", &options.interval, "how often to look at the cluster")
             .Range(absl::Milliseconds(100), absl::Minutes(10));
       },
       RunAgentNodeZero},
  };
}

}  // namespace assisted::cli
