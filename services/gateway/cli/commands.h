// File: services/gateway/cli/commands.h
//
// aictl, the command-line client of the gateway's REST API. Commands form a table so that
// `aictl --help` lists them and each answers `--help` itself. Exit codes scripts can rely on:
// 0 success, 1 the operation failed (the server refused it, or a cluster ended in error),
// 2 the command line was wrong, 3 `wait` timed out, 4 no valid token or not allowed,
// 5 the gateway could not be reached.

#ifndef ASSISTED_SERVICES_GATEWAY_CLI_COMMANDS_H_
#define ASSISTED_SERVICES_GATEWAY_CLI_COMMANDS_H_

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "lib/config/config.h"

namespace assisted::cli {

// Settings every command shares.
struct GlobalOptions {
  std::string server;  // empty: the context's, else http://localhost:8080 (ResolveGateway)
  std::string token;   // bearer token; never printed
  std::string token_file;
  std::string ca_file;      // PEM CA bundle for an https gateway
  std::string context;      // empty: the config file's current context
  std::string config_file;  // contexts.h; Run sets the default
  std::string output = "table";
};

struct Io {
  std::ostream& out;
  std::ostream& err;
  bool terminal = false;  // err is a terminal: progress redraws one line
};

// Runs aictl with `args` (without the program name) and returns the exit code.
int Run(const std::vector<std::string>& args, const config::Environment& env, Io io);

}  // namespace assisted::cli

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_COMMANDS_H_
