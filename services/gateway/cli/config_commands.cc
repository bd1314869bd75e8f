// aictl's contexts (contexts.h): choosing the gateway a command talks to, and `config ...`.
#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/command.h"
#include "services/gateway/cli/contexts.h"

namespace assisted::cli {
namespace {

constexpr char kDefaultServer[] = "http://localhost:8080";

// The context file, or an empty one when it does not exist yet.
absl::StatusOr<ContextFile> ReadOrEmpty(const std::string& path) {
  absl::StatusOr<ContextFile> file = ReadContextFile(path);
  if (absl::IsNotFound(file.status())) return ContextFile{};
  return file;
}

int ConfigFailed(Io io, const char* command, const absl::Status& status) {
  io.err << "aictl config " << command << ": " << status.message() << "\n";
  return absl::IsInvalidArgument(status) ? kExitUsage : kExitFailed;
}

int RunGetContexts(const GlobalOptions& global, const CommandOptions&,
                   const std::vector<std::string>&, Io io) {
  absl::StatusOr<ContextFile> file = ReadOrEmpty(global.config_file);
  if (!file.ok()) return ConfigFailed(io, "get-contexts", file.status());
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Context& context : file->contexts) {
    rows.push_back({{"name", context.name},
                    {"server", context.server},
                    {"token_file", context.token_file},
                    {"ca_file", context.ca_file},
                    {"current", context.name == file->current}});
  }
  if (PrintStructured(global.output, io.out, nlohmann::json(rows))) return kExitOk;
  io.out << absl::StrFormat("%-8s %-20s %s\n", "CURRENT", "NAME", "SERVER");
  for (const auto& row : rows) {
    io.out << absl::StrFormat("%-8s %-20s %s\n", row["current"].get<bool>() ? "*" : "",
                              row["name"].get<std::string>(), row["server"].get<std::string>());
  }
  return kExitOk;
}

int RunCurrentContext(const GlobalOptions& global, const CommandOptions&,
                      const std::vector<std::string>&, Io io) {
  absl::StatusOr<ContextFile> file = ReadOrEmpty(global.config_file);
  if (!file.ok()) return ConfigFailed(io, "current-context", file.status());
  if (file->current.empty()) {
    io.err << "aictl config current-context: none is set in " << global.config_file << "\n";
    return kExitFailed;
  }
  io.out << file->current << "\n";
  return kExitOk;
}

int RunUseContext(const GlobalOptions& global, const CommandOptions&,
                  const std::vector<std::string>& args, Io io) {
  absl::StatusOr<ContextFile> file = ReadOrEmpty(global.config_file);
  if (!file.ok()) return ConfigFailed(io, "use-context", file.status());
  if (file->Find(args[0]) == nullptr) {
    io.err << "aictl config use-context: no context \"" << args[0] << "\" in " << global.config_file
           << " (see aictl config get-contexts)\n";
    return kExitFailed;
  }
  file->current = args[0];
  if (absl::Status written = WriteContextFile(global.config_file, *file); !written.ok()) {
    return ConfigFailed(io, "use-context", written);
  }
  io.err << "now using context " << args[0] << "\n";
  return kExitOk;
}

int RunSetContext(const GlobalOptions& global, const CommandOptions& options,
                  const std::vector<std::string>& args, Io io) {
  absl::StatusOr<ContextFile> file = ReadOrEmpty(global.config_file);
  if (!file.ok()) return ConfigFailed(io, "set-context", file.status());
  Context* context = file->Find(args[0]);
  if (context == nullptr) {
    file->contexts.push_back({.name = args[0]});
    context = &file->contexts.back();
  }
  // Only the settings given change; "" given explicitly is not distinguishable, so a setting
  // is removed by deleting and setting the context again.
  if (!options.context.server.empty()) context->server = options.context.server;
  if (!options.context.token_file.empty()) context->token_file = options.context.token_file;
  if (!options.context.ca_file.empty()) context->ca_file = options.context.ca_file;
  if (file->current.empty()) file->current = args[0];
  if (absl::Status written = WriteContextFile(global.config_file, *file); !written.ok()) {
    return ConfigFailed(io, "set-context", written);
  }
  io.err << "context " << args[0] << " written to " << global.config_file << "\n";
  return kExitOk;
}

int RunDeleteContext(const GlobalOptions& global, const CommandOptions&,
                     const std::vector<std::string>& args, Io io) {
  absl::StatusOr<ContextFile> file = ReadOrEmpty(global.config_file);
  if (!file.ok()) return ConfigFailed(io, "delete-context", file.status());
  const size_t before = file->contexts.size();
  file->contexts.erase(std::remove_if(file->contexts.begin(), file->contexts.end(),
                                      [&](const Context& c) { return c.name == args[0]; }),
                       file->contexts.end());
  if (file->contexts.size() == before) {
    io.err << "aictl config delete-context: no context \"" << args[0] << "\"\n";
    return kExitFailed;
  }
  if (file->current == args[0]) file->current.clear();
  if (absl::Status written = WriteContextFile(global.config_file, *file); !written.ok()) {
    return ConfigFailed(io, "delete-context", written);
  }
  return kExitOk;
}

absl::StatusOr<std::string> ReadToken(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot read the token file ", path));
  std::stringstream text;
  text << in.rdbuf();
  std::string token(absl::StripAsciiWhitespace(text.str()));
  if (token.empty()) return absl::InvalidArgumentError(absl::StrCat(path, " holds no token"));
  return token;
}

}  // namespace

absl::Status ResolveGateway(GlobalOptions& global) {
  if (!global.token.empty() && !global.token_file.empty()) {
    return absl::InvalidArgumentError("give --token or --token-file, not both");
  }
  absl::StatusOr<ContextFile> file = ReadContextFile(global.config_file);
  if (!file.ok() && !absl::IsNotFound(file.status())) return file.status();
  const std::string name =
      !global.context.empty() ? global.context : (file.ok() ? file->current : "");
  if (!name.empty()) {
    const Context* context = file.ok() ? file->Find(name) : nullptr;
    if (context == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("--context: no context \"", name, "\" in ", global.config_file));
    }
    // What the command line or the environment gave wins over the context.
    if (global.server.empty()) global.server = context->server;
    if (global.token.empty() && global.token_file.empty()) global.token_file = context->token_file;
    if (global.ca_file.empty()) global.ca_file = context->ca_file;
  }
  if (global.server.empty()) global.server = kDefaultServer;
  if (global.token.empty() && !global.token_file.empty()) {
    absl::StatusOr<std::string> token = ReadToken(global.token_file);
    if (!token.ok()) return token.status();
    global.token = *std::move(token);
  }
  return absl::OkStatus();
}

std::vector<Command> ConfigCommands() {
  auto none = [](config::Parser&, CommandOptions&) {};
  return {
      {"config get-contexts", "list the contexts of the config file (* marks the current one)",
       nullptr, none, RunGetContexts},
      {"config current-context", "print the current context's name", nullptr, none,
       RunCurrentContext},
      {"config use-context", "make NAME the current context", "NAME", none, RunUseContext},
      {"config set-context", "add or change the context NAME (and make it current if none is)",
       "NAME",
       [](config::Parser& parser, CommandOptions& options) {
         parser.String("server", &options.context.server, "the gateway's base URL");
         parser.String("token-file", &options.context.token_file,
                       "file holding the bearer token (read when a command runs)");
         parser.String("ca-file", &options.context.ca_file,
                       "PEM CA bundle for an https gateway (default: the system's roots)");
       },
       RunSetContext},
      {"config delete-context", "remove the context NAME", "NAME", none, RunDeleteContext},
  };
}

}  // namespace assisted::cli
