#include "services/gateway/cli/commands.h"

#include <ostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "lib/file/read_file.h"
#include "lib/grpc/channel.h"
#include "lib/grpc/health_client.h"
#include "lib/service/runner.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/command.h"
#include "services/gateway/jwt.h"

namespace assisted::cli {
namespace {

// The default gRPC addresses of the four services on one machine.
const std::vector<std::string>& LocalServices() {
  static const std::vector<std::string> kAddresses = {"localhost:9090", "localhost:9091",
                                                      "localhost:9092", "localhost:9093"};
  return kAddresses;
}

int RunVersion(const GlobalOptions&, const CommandOptions&, const std::vector<std::string>&,
               Io io) {
  io.out << "aictl " << service::kVersion << "\n";
  return kExitOk;
}

// Asks each gRPC address for its health; exits 0 only when all are SERVING.
int RunHealth(const GlobalOptions& global, const CommandOptions& options,
              const std::vector<std::string>& args, Io io) {
  const std::vector<std::string>& addresses = args.empty() ? LocalServices() : args;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  bool all_serving = true;
  for (const std::string& address : addresses) {
    std::string state;
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
        grpcutil::MakeChannel(address, options.internal_tls.Channel());
    absl::StatusOr<std::string> health =
        channel.ok() ? grpcutil::CheckHealth(*channel, "", options.timeout) : channel.status();
    state = health.ok() ? *health : absl::StatusCodeToString(health.status().code());
    all_serving = all_serving && health.ok() && *health == "SERVING";
    rows.push_back({{"address", address}, {"status", state}});
  }
  if (global.output == "json") {
    io.out << rows.dump(2) << "\n";
  } else {
    io.out << absl::StrFormat("%-28s %s\n", "ADDRESS", "STATUS");
    for (const auto& row : rows) {
      io.out << absl::StrFormat("%-28s %s\n", row["address"].get<std::string>(),
                                row["status"].get<std::string>());
    }
  }
  return all_serving ? kExitOk : kExitFailed;
}

// `token issue`: a user token from the local issuer, for the demo, tests and scripts.
int RunToken(const GlobalOptions&, const CommandOptions& options,
             const std::vector<std::string>& args, Io io) {
  if (args.size() != 1 || args[0] != "issue") {
    io.err << "aictl token: expected the subcommand issue\n";
    return kExitUsage;
  }
  if (options.user.empty() || options.secret_file.empty() == options.private_key_file.empty()) {
    io.err << "aictl token issue: needs --user and exactly one of --secret-file or "
              "--private-key-file\n";
    return kExitUsage;
  }
  const absl::Time now = absl::Now();
  nlohmann::json claims = {{"sub", options.user},
                           {"username", options.user},
                           {"iat", absl::ToUnixSeconds(now)},
                           {"exp", absl::ToUnixSeconds(now + options.ttl)}};
  if (!options.org.empty()) claims["org_id"] = options.org;
  if (!options.issuer.empty()) claims["iss"] = options.issuer;
  if (!options.audience.empty()) claims["aud"] = options.audience;
  absl::StatusOr<std::string> token;
  if (!options.secret_file.empty()) {
    absl::StatusOr<std::string> secret = ReadFile(options.secret_file, "--secret-file");
    token = secret.ok() ? gateway::SignHs256(*secret, claims) : secret.status();
  } else {
    absl::StatusOr<std::string> key = ReadFile(options.private_key_file, "--private-key-file");
    token = key.ok() ? gateway::SignRs256(*key, options.kid, claims) : key.status();
  }
  if (!token.ok()) {
    io.err << "aictl token issue: " << token.status().message() << "\n";
    return kExitFailed;
  }
  io.out << *token << "\n";
  return kExitOk;
}

const std::vector<Command>& Commands() {
  static const std::vector<Command>* kCommands = new std::vector<Command>([] {
    std::vector<Command> commands = {
        {"version", "print the version of aictl", nullptr, [](config::Parser&, CommandOptions&) {},
         RunVersion},
        {"health", "check the gRPC health of services (default: the four on localhost)",
         "[HOST:PORT...]",
         [](config::Parser& parser, CommandOptions& options) {
           parser.Duration("timeout", &options.timeout, "how long to wait for each answer")
               .Range(absl::Milliseconds(100), absl::Minutes(5));
           // The internal ports check client certificates: probe them as a service would.
           options.internal_tls.Register(parser);
         },
         RunHealth},
        {"token", "issue a user token from the local issuer (aictl token issue --user=U ...)",
         "issue",
         [](config::Parser& parser, CommandOptions& options) {
           parser.String("secret-file", &options.secret_file,
                         "HS256 key file, the gateway's --jwt-secret-file");
           parser.String("private-key-file", &options.private_key_file,
                         "PEM RSA private key (RS256); the gateway reads its JWKS");
           parser.String("kid", &options.kid, "key id written into RS256 tokens");
           parser.String("user", &options.user, "user name (claims sub and username)");
           parser.String("org", &options.org, "organisation id (claim org_id)");
           parser.String("issuer", &options.issuer, "claim iss (the gateway's --jwt-issuer)");
           parser.String("audience", &options.audience, "claim aud (the gateway's --jwt-audience)");
           parser.Duration("ttl", &options.ttl, "how long the token is valid")
               .Range(absl::Seconds(1), absl::Hours(24 * 365));
         },
         RunToken},
    };
    for (Command& command : RestCommands()) commands.push_back(std::move(command));
    for (Command& command : AgentCommands()) commands.push_back(std::move(command));
    return commands;
  }());
  return *kCommands;
}

void BindGlobal(config::Parser& parser, GlobalOptions& global) {
  parser.String("server", &global.server, "gateway base URL");
  parser.String("token", &global.token, "bearer token for the gateway").Secret();
  parser.String("output", &global.output, "table or json").Check([](const std::string& value) {
    return value == "table" || value == "json"
               ? absl::OkStatus()
               : absl::InvalidArgumentError(absl::StrCat("\"", value, "\" is not table or json"));
  });
}

std::string TopUsage(const config::Parser& parser) {
  std::string usage = parser.Usage();
  absl::StrAppend(&usage, "\nCommands (each takes --help):\n");
  for (const Command& command : Commands()) {
    const std::string name = command.name;
    absl::StrAppend(&usage, "  ", name, std::string(name.size() < 20 ? 20 - name.size() : 1, ' '),
                    command.summary, "\n");
  }
  absl::StrAppend(&usage,
                  "\nExit codes: 0 success, 1 refused or failed, 2 bad command line, 3 wait timed "
                  "out,\n4 no valid token or not allowed, 5 gateway unreachable. -o is short for "
                  "--output.\n");
  return usage;
}

// "-o X", "-oX", "--output X" and "--output=X" may come anywhere, also after the command;
// they move to the front as "--output=X", where the global parser reads them.
std::vector<std::string> HoistOutputFlag(const std::vector<std::string>& args) {
  std::vector<std::string> output, rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if ((arg == "-o" || arg == "--output" || arg == "-output") && i + 1 < args.size()) {
      output.push_back("--output=" + args[++i]);
    } else if (absl::StartsWith(arg, "--output=") || absl::StartsWith(arg, "-output=")) {
      output.push_back("--output=" + arg.substr(arg.find('=') + 1));
    } else if (absl::StartsWith(arg, "-o") && !absl::StartsWith(arg, "-output")) {
      output.push_back("--output=" + std::string(absl::StripPrefix(arg.substr(2), "=")));
    } else {
      rest.push_back(arg);
    }
  }
  output.insert(output.end(), rest.begin(), rest.end());
  return output;
}

}  // namespace

int Run(const std::vector<std::string>& raw_args, const config::Environment& env, Io io) {
  const std::vector<std::string> args = HoistOutputFlag(raw_args);
  GlobalOptions global;
  std::vector<std::string> rest;
  config::Parser parser("aictl",
                        "Drives assisted through its REST API: clusters, infra-envs, "
                        "discovery images, hosts, installs and credentials.",
                        "AICTL_");
  BindGlobal(parser, global);
  parser.Positional("COMMAND [ARGS]", &rest, config::Parser::Positionals::kRest);
  absl::StatusOr<config::Action> action = parser.Parse(args, env);
  if (!action.ok()) {
    io.err << "aictl: " << action.status().message() << "\n";
    return kExitUsage;
  }
  if (*action == config::Action::kHelp) {
    io.out << TopUsage(parser);
    return kExitOk;
  }
  if (*action == config::Action::kVersion) rest = {"version"};
  if (rest.empty()) {
    io.err << "aictl: missing command (see aictl --help)\n";
    return kExitUsage;
  }
  const std::string two_words = rest.size() >= 2 ? absl::StrCat(rest[0], " ", rest[1]) : "";
  for (const Command& command : Commands()) {
    const size_t words = command.name == two_words ? 2 : command.name == rest[0] ? 1 : 0;
    if (words == 0) continue;
    config::Parser sub(absl::StrCat("aictl ", command.name), command.summary, "AICTL_");
    CommandOptions options;
    std::vector<std::string> args;
    command.bind(sub, options);
    if (command.positional != nullptr) sub.Positional(command.positional, &args);
    absl::StatusOr<config::Action> sub_action =
        sub.Parse(std::vector<std::string>(rest.begin() + words, rest.end()), env);
    if (!sub_action.ok()) {
      io.err << "aictl " << command.name << ": " << sub_action.status().message() << "\n";
      return kExitUsage;
    }
    if (*sub_action != config::Action::kRun) {
      io.out << sub.Usage();
      return kExitOk;
    }
    return command.run(global, options, args, io);
  }
  std::string family;
  for (const Command& command : Commands()) {
    if (absl::StartsWith(command.name, rest[0] + " ")) {
      absl::StrAppend(&family, family.empty() ? "" : ", ",
                      absl::string_view(command.name).substr(rest[0].size() + 1));
    }
  }
  if (!family.empty()) {
    io.err << "aictl " << rest[0] << ": expected one of " << family << "\n";
    return kExitUsage;
  }
  io.err << "aictl: unknown command \"" << rest[0] << "\" (see aictl --help)\n";
  return kExitUsage;
}

}  // namespace assisted::cli
