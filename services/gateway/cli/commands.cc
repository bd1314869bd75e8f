#include "services/gateway/cli/commands.h"

#include <map>
#include <ostream>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "lib/file/read_file.h"
#include "lib/grpc/channel.h"
#include "lib/grpc/health_client.h"
#include "lib/service/runner.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/command.h"
#include "services/gateway/cli/rest_client.h"
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
  if (!PrintStructured(global.output, io.out, nlohmann::json(rows))) {
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

// The id of the one cluster named `name`: NOT_FOUND when none is, INVALID_ARGUMENT (with their
// ids) when several are.
absl::StatusOr<std::string> ClusterIdByName(const GlobalOptions& global, const std::string& name) {
  RestClient client({.server = global.server, .token = global.token, .ca_file = global.ca_file});
  absl::StatusOr<nlohmann::json> clusters = client.Call("GET", "/clusters");
  if (!clusters.ok()) return clusters.status();
  std::vector<std::string> ids;
  for (const nlohmann::json& cluster : *clusters) {
    if (TextField(cluster, "name") == name) ids.push_back(TextField(cluster, "id"));
  }
  if (ids.empty()) return absl::NotFoundError(absl::StrCat("no cluster named \"", name, "\""));
  if (ids.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(ids.size(), " clusters are named \"", name,
                                                   "\": give one of their ids (",
                                                   absl::StrJoin(ids, ", "), ")"));
  }
  return ids[0];
}

void BindGlobal(config::Parser& parser, GlobalOptions& global);
const std::vector<Command>& Commands();

// `completion bash`: a bash completion script made from the command table: the commands' words,
// each command's flags, the global flags, -o's formats, context names for the config commands
// that take one, and file names for the rest.
int RunCompletion(const GlobalOptions&, const CommandOptions&, const std::vector<std::string>& args,
                  Io io) {
  if (args.size() != 1 || args[0] != "bash") {
    io.err << "aictl completion: expected bash (the one shell supported)\n";
    return kExitUsage;
  }
  GlobalOptions global_options;
  config::Parser top("aictl", "", "AICTL_");
  BindGlobal(top, global_options);
  const std::vector<std::string> global_valued = top.Flags().with_value;
  const std::string global_flags = absl::StrJoin(global_valued, " ");
  std::set<std::string> valued(global_valued.begin(), global_valued.end());
  std::map<std::string, std::set<std::string>> second_words;  // by first word
  std::string one_word_cases, two_word_cases;
  for (const Command& command : Commands()) {
    config::Parser parser("", "", "AICTL_");
    CommandOptions options;
    command.bind(parser, options);
    const config::Parser::FlagNames flags = parser.Flags();
    valued.insert(flags.with_value.begin(), flags.with_value.end());
    const std::string all =
        absl::StrJoin({absl::StrJoin(flags.with_value, " "), absl::StrJoin(flags.switches, " "),
                       std::string("--help")},
                      " ");
    const std::vector<std::string> words = absl::StrSplit(command.name, ' ');
    if (words.size() == 2) second_words[words[0]].insert(words[1]);
    absl::StrAppend(words.size() == 2 ? &two_word_cases : &one_word_cases, "    '", command.name,
                    "') flags='", absl::StripAsciiWhitespace(all), "' ;;\n");
  }
  std::set<std::string> first_words;
  std::string families;
  for (const Command& command : Commands()) {
    first_words.insert(std::vector<std::string>(absl::StrSplit(command.name, ' '))[0]);
  }
  for (const auto& [first, seconds] : second_words) {
    absl::StrAppend(&families, "    '", first, "') seconds='", absl::StrJoin(seconds, " "),
                    "' ;;\n");
  }
  io.out << "# bash completion for aictl. Load it with: source <(aictl completion bash)\n"
         << "_aictl() {\n"
         << "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
         << "  local global_flags='" << global_flags << "'\n"
         << "  local valued=' " << absl::StrJoin(valued, " ") << " -o '\n"
         << "  local words=() i skip=0 seconds='' flags=''\n"
         << "  if [[ $prev == -o || $prev == --output ]]; then\n"
         << "    COMPREPLY=($(compgen -W 'table json yaml name' -- \"$cur\")); return\n"
         << "  fi\n"
         << "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         << "    if ((skip)); then skip=0; continue; fi\n"
         << "    case ${COMP_WORDS[i]} in\n"
         << "      --*=*) ;;\n"
         << "      -*) [[ $valued == *\" ${COMP_WORDS[i]} \"* ]] && skip=1 ;;\n"
         << "      *) words+=(\"${COMP_WORDS[i]}\") ;;\n"
         << "    esac\n"
         << "  done\n"
         << "  case \"${words[0]:-}\" in\n"
         << families << "  esac\n"
         << "  if ((${#words[@]} == 0)) && [[ $cur != -* ]]; then\n"
         << "    COMPREPLY=($(compgen -W '" << absl::StrJoin(first_words, " ") << "' -- \"$cur\"));"
         << " return\n"
         << "  fi\n"
         << "  if ((${#words[@]} == 1)) && [[ -n $seconds && $cur != -* ]]; then\n"
         << "    COMPREPLY=($(compgen -W \"$seconds\" -- \"$cur\")); return\n"
         << "  fi\n"
         << "  case \"${words[0]:-} ${words[1]:-}\" in\n"
         << two_word_cases << "    'config use-context' | 'config delete-context')\n"
         << "      if ((${#words[@]} == 2)) && [[ $cur != -* ]]; then\n"
         << "        COMPREPLY=($(compgen -W \"$(aictl config get-contexts -o name 2>/dev/null)\" "
            "-- \"$cur\")); return\n"
         << "      fi ;;\n"
         << "    *) case \"${words[0]:-}\" in\n"
         << one_word_cases << "       esac ;;\n"
         << "  esac\n"
         << "  if [[ $cur == -* ]]; then\n"
         << "    COMPREPLY=($(compgen -W \"$flags $global_flags\" -- \"$cur\")); return\n"
         << "  fi\n"
         << "  COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         << "}\n"
         << "complete -F _aictl aictl\n";
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
        {"completion", "print a shell completion script (source <(aictl completion bash))", "bash",
         [](config::Parser&, CommandOptions&) {}, RunCompletion},
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
    for (Command& command : ConfigCommands()) commands.push_back(std::move(command));
    return commands;
  }());
  return *kCommands;
}

void BindGlobal(config::Parser& parser, GlobalOptions& global) {
  parser.String("server", &global.server,
                "gateway base URL (default: the context's, else http://localhost:8080)");
  parser.String("token", &global.token, "bearer token for the gateway").Secret();
  parser.String("token-file", &global.token_file, "file holding the bearer token");
  parser.String("ca-file", &global.ca_file,
                "PEM CA bundle for an https gateway (default: the system's roots)");
  parser.String("context", &global.context,
                "the context of the config file to use (default: its current one)");
  parser.String("config", &global.config_file,
                "the contexts file (default: $XDG_CONFIG_HOME/aictl/config.yaml or "
                "~/.config/aictl/config.yaml)");
  parser.String("output", &global.output, "table, json, yaml or name (ids, one per line)")
      .Check([](const std::string& value) {
        return value == "table" || value == "json" || value == "yaml" || value == "name"
                   ? absl::OkStatus()
                   : absl::InvalidArgumentError(
                         absl::StrCat("\"", value, "\" is not table, json, yaml or name"));
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
    if (global.config_file.empty()) global.config_file = DefaultContextFilePath(env);
    // Local commands never reach the gateway: a broken config file must not stop them (nor
    // the `config` commands that would mend it).
    if (!absl::StartsWith(command.name, "config ") && command.name != std::string("version") &&
        command.name != std::string("completion")) {
      if (absl::Status resolved = ResolveGateway(global); !resolved.ok()) {
        io.err << "aictl: " << resolved.message() << "\n";
        return kExitUsage;
      }
    }
    // Clusters are addressable by name wherever a command takes CLUSTER_ID.
    if (command.positional != nullptr && absl::StartsWith(command.positional, "CLUSTER_ID") &&
        !args.empty() && !config::Uuid(args[0]).ok()) {
      absl::StatusOr<std::string> id = ClusterIdByName(global, args[0]);
      if (!id.ok()) {
        io.err << "aictl " << command.name << ": " << id.status().message() << "\n";
        return ExitCodeFor(id.status());
      }
      args[0] = *id;
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
