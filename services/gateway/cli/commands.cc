#include "services/gateway/cli/commands.h"

#include <ostream>

#include "absl/strings/str_cat.h"
#include "lib/service/runner.h"

namespace assisted::cli {
namespace {

constexpr int kOk = 0;
constexpr int kUsage = 2;

struct Command {
  const char* name;
  const char* summary;
  // Binds the command's own flags, if any, to `parser`; then runs it.
  std::function<void(config::Parser& parser)> bind;
  std::function<int(const GlobalOptions& global, Io io)> run;
};

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"version", "print the version of aictl", [](config::Parser&) {},
       [](const GlobalOptions&, Io io) {
         io.out << "aictl " << service::kVersion << "\n";
         return kOk;
       }},
  };
  return kCommands;
}

void BindGlobal(config::Parser& parser, GlobalOptions& global) {
  parser.String("server", &global.server, "gateway base URL");
  parser.String("token", &global.token, "bearer token for the gateway").Secret();
  parser.String("output", &global.output, "table or json")
      .Check([](const std::string& value) {
        return value == "table" || value == "json"
                   ? absl::OkStatus()
                   : absl::InvalidArgumentError(absl::StrCat("\"", value,
                                                             "\" is not table or json"));
      });
}

std::string TopUsage(const config::Parser& parser) {
  std::string usage = parser.Usage();
  absl::StrAppend(&usage, "\nCommands (each takes --help):\n");
  for (const Command& command : Commands()) {
    const std::string name = command.name;
    absl::StrAppend(&usage, "  ", name, std::string(name.size() < 16 ? 16 - name.size() : 1, ' '),
                    command.summary, "\n");
  }
  return usage;
}

}  // namespace

int Run(const std::vector<std::string>& args, const config::Environment& env, Io io) {
  GlobalOptions global;
  std::vector<std::string> rest;
  config::Parser parser("aictl", "Drives assisted through its REST API: clusters, infra-envs, "
                                 "discovery images, hosts, installs and credentials.",
                        "AICTL_");
  BindGlobal(parser, global);
  parser.Positional("COMMAND [ARGS]", &rest);
  absl::StatusOr<config::Action> action = parser.Parse(args, env);
  if (!action.ok()) {
    io.err << "aictl: " << action.status().message() << "\n";
    return kUsage;
  }
  if (*action == config::Action::kHelp) {
    io.out << TopUsage(parser);
    return kOk;
  }
  if (*action == config::Action::kVersion) rest = {"version"};
  if (rest.empty()) {
    io.err << "aictl: missing command (see aictl --help)\n";
    return kUsage;
  }
  for (const Command& command : Commands()) {
    if (rest[0] != command.name) continue;
    config::Parser sub(absl::StrCat("aictl ", command.name), command.summary, "AICTL_");
    command.bind(sub);
    absl::StatusOr<config::Action> sub_action =
        sub.Parse(std::vector<std::string>(rest.begin() + 1, rest.end()), env);
    if (!sub_action.ok()) {
      io.err << "aictl " << command.name << ": " << sub_action.status().message() << "\n";
      return kUsage;
    }
    if (*sub_action != config::Action::kRun) {
      io.out << sub.Usage();
      return kOk;
    }
    return command.run(global, io);
  }
  io.err << "aictl: unknown command \"" << rest[0] << "\" (see aictl --help)\n";
  return kUsage;
}

}  // namespace assisted::cli
