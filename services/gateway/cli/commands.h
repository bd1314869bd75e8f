// File: services/gateway/cli/commands.h
//
// aictl, the command-line client of the gateway's REST API. Commands form a table so that
// `aictl --help` lists them and each answers `--help` itself. Exit codes scripts can rely on:
// 0 success, 1 the operation failed, 2 the command line was wrong.

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
  std::string server = "http://localhost:8080";
  std::string token;  // bearer token; never printed
  std::string output = "table";
};

struct Io {
  std::ostream& out;
  std::ostream& err;
};

// Runs aictl with `args` (without the program name) and returns the exit code.
int Run(const std::vector<std::string>& args, const config::Environment& env, Io io);

}  // namespace assisted::cli

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_COMMANDS_H_
