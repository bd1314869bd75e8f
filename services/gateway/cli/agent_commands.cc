// aictl's `agent ...` commands, the agent-based installer (see command.h and
// services/gateway/cli/agent/asset_dir.h): one ISO from install-config.yaml + agent-config.yaml.
#include <cstdlib>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "lib/random/random.h"
#include "services/gateway/cli/agent/asset_dir.h"
#include "services/gateway/cli/command.h"

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
  };
}

}  // namespace assisted::cli
