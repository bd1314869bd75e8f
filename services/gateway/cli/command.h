// File: services/gateway/cli/command.h
//
// The pieces of aictl's command table (commands.cc holds the table and the local commands;
// rest_commands.cc the ones that talk to the gateway). Internal to aictl.

#ifndef ASSISTED_SERVICES_GATEWAY_CLI_COMMAND_H_
#define ASSISTED_SERVICES_GATEWAY_CLI_COMMAND_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/config/config.h"
#include "lib/grpc/channel.h"
#include "services/gateway/cli/commands.h"
#include "services/gateway/cli/contexts.h"
#include "services/gateway/cli/views.h"

namespace assisted::cli {

// Exit codes (also listed by `aictl --help`).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;       // the server refused or the operation failed
inline constexpr int kExitUsage = 2;        // the command line was wrong
inline constexpr int kExitTimedOut = 3;     // `wait` gave up before the state was reached
inline constexpr int kExitDenied = 4;       // no valid token, or not allowed (401/403)
inline constexpr int kExitUnreachable = 5;  // the gateway did not answer (or answered 5xx)

// The exit code for a failed call's status.
int ExitCodeFor(const absl::Status& status);

// A command's own settings; each command binds the ones it uses.
struct CommandOptions {
  absl::Duration timeout = absl::Seconds(3);
  // health: TLS towards internal ports (--internal-ca, --internal-client-cert/-key)
  grpcutil::InternalClientTls internal_tls;
  // token issue
  std::string secret_file;       // HS256 key shared with the gateway's --jwt-secret-file
  std::string private_key_file;  // or an RSA key whose JWKS the gateway reads (--jwks-file)
  std::string kid;
  std::string issuer;    // iss, for a gateway started with --jwt-issuer
  std::string audience;  // aud, for a gateway started with --jwt-audience
  std::string user;
  std::string org;
  absl::Duration ttl = absl::Hours(12);
  // clusters create
  ClusterFlags cluster;
  // infra-envs create, hosts, wait, events
  std::string cluster_id;
  std::string infra_env_id;
  std::string name;
  std::string image_type = "full-iso";
  // iso download, credentials
  std::string output_file;
  std::string output_dir = ".";
  // wait
  std::string wait_for = "installed";
  int hosts = 0;
  absl::Duration interval = absl::Seconds(1);
  // events
  int limit = 20;
  // manifests
  std::string folder = "manifests";
  // hosts update
  std::string role;
  std::string disk_id;
  // infra-envs update: a YAML file of the fields to change
  std::string body_file;
  // agent create, agent wait-for (agent_commands.cc)
  std::string dir = ".";
  std::string base_iso;
  std::string boot_artifacts_base_url;  // agent create pxe-files
  std::string release_image;            // agent create image|pxe-files
  // config set-context (config_commands.cc): the settings given; empty: unchanged
  Context context;
  // agent run-node-zero (agent_commands.cc)
  std::string config_file;
  std::string pull_secret_file;
  std::string credentials_dir;
  std::string inventory_address;
};

struct Command {
  const char* name;  // one word, or two ("clusters create")
  const char* summary;
  const char* positional;  // usage of its arguments; nullptr: it takes none
  std::function<void(config::Parser& parser, CommandOptions& options)> bind;
  std::function<int(const GlobalOptions& global, const CommandOptions& options,
                    const std::vector<std::string>& args, Io io)>
      run;
};

// The commands that call the gateway's REST API.
std::vector<Command> RestCommands();

// `agent ...`: the agent-based installer (agent_commands.cc).
std::vector<Command> AgentCommands();

// `config ...`: the contexts of the config file (config_commands.cc).
std::vector<Command> ConfigCommands();

// Fills in what the command line and environment left open from the context (--context, else
// the file's current one): the server (default http://localhost:8080), the token file and the
// CA file; then reads the token file. INVALID_ARGUMENT naming what is wrong (an unknown
// context, an unreadable token file, --token with --token-file, a malformed config file).
absl::Status ResolveGateway(GlobalOptions& global);

}  // namespace assisted::cli

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_COMMAND_H_
