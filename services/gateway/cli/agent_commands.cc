// aictl's `agent ...` commands, the agent-based installer (see command.h and
// services/gateway/cli/agent/asset_dir.h): one ISO from install-config.yaml + agent-config.yaml.
#include <algorithm>
#include <cstdlib>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "lib/random/random.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/agent/agent_ignition.h"
#include "services/gateway/cli/agent/asset_dir.h"
#include "services/gateway/cli/command.h"
#include "services/gateway/cli/rest_client.h"
#include "services/gateway/jwt.h"

namespace assisted::cli {
namespace {

// Where `./dev os-images` leaves the newest live ISO.
std::string DefaultBaseIso() {
  const char* home = std::getenv("HOME");
  return absl::StrCat(home != nullptr ? home : "", "/.cache/assisted-os-images/current/live.iso");
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

int RunAgentCreateImage(const CommandOptions& options, Io io) {
  SystemRandom random;
  absl::StatusOr<agent::CreatedImage> created =
      agent::CreateImage(options.dir, options.base_iso, absl::Now(), random);
  if (!created.ok()) return Refused(io, "agent create image", created.status());
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

int RunAgentCreate(const GlobalOptions&, const CommandOptions& options,
                   const std::vector<std::string>& args, Io io) {
  if (args.size() == 1 && args[0] == "image") return RunAgentCreateImage(options, io);
  if (args.size() == 1 && args[0] == "cluster-manifests") {
    return RunAgentCreateClusterManifests(options, io);
  }
  io.err << "aictl agent create: expected image or cluster-manifests\n";
  return kExitUsage;
}

// A token of node 0's gateway for the agent installer's user (agent_ignition.h).
absl::StatusOr<std::string> NodeZeroToken(const agent::AgentState& state, absl::Duration lifetime) {
  const absl::Time now = absl::Now();
  return gateway::SignHs256(state.gateway_jwt_secret,
                            {{"sub", agent::kAgentInstallerUser},
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
  absl::StatusOr<std::string> token = NodeZeroToken(*state, options.timeout + absl::Hours(1));
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

void BindDir(config::Parser& parser, CommandOptions& options) {
  parser.String("dir", &options.dir,
                "asset folder: install-config.yaml and agent-config.yaml in, the ISO, auth/ and "
                "the state file out");
}

}  // namespace

std::vector<Command> AgentCommands() {
  return {
      {"agent create",
       "agent-based installer: check install-config.yaml + agent-config.yaml and write "
       "DIR/agent.x86_64.iso (image) or DIR/cluster-manifests/ (cluster-manifests)",
       "image|cluster-manifests",
       [](config::Parser& parser, CommandOptions& options) {
         BindDir(parser, options);
         options.base_iso = DefaultBaseIso();
         parser.String("base-iso", &options.base_iso,
                       "CoreOS-style live ISO to put the Ignition into (default: the newest from "
                       "./dev os-images)");
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
  };
}

}  // namespace assisted::cli
