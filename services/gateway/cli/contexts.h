// File: services/gateway/cli/contexts.h
//
// aictl's contexts: named gateways in one YAML file, as kubectl keeps clusters in a kubeconfig,
// so a user of several installations switches with `aictl config use-context NAME` (or
// `--context NAME` for one command) instead of repeating --server, --token-file and --ca-file:
//
//   current-context: lab
//   contexts:
//   - name: lab
//     server: https://assisted.lab.example.com
//     token-file: /home/me/.config/aictl/lab.token
//     ca-file: /home/me/.config/aictl/lab-ca.pem
//
// The file is --config, else $AICTL_CONFIG, else $XDG_CONFIG_HOME/aictl/config.yaml, else
// $HOME/.config/aictl/config.yaml. It holds paths, never a token. Unknown keys are refused by
// name; a missing file reads as one without contexts.

#ifndef ASSISTED_SERVICES_GATEWAY_CLI_CONTEXTS_H_
#define ASSISTED_SERVICES_GATEWAY_CLI_CONTEXTS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/config/config.h"

namespace assisted::cli {

struct Context {
  std::string name;
  std::string server;
  std::string token_file;
  std::string ca_file;
};

struct ContextFile {
  std::string current;  // current-context; empty: none
  std::vector<Context> contexts;

  // The context named `name`, or null.
  const Context* Find(const std::string& name) const;
  Context* Find(const std::string& name);
};

// Where the file is when --config is not given (see above); "" when neither variable is set.
std::string DefaultContextFilePath(const config::Environment& env);

// Reads `path`; NOT_FOUND when it does not exist, INVALID_ARGUMENT naming the key or entry
// that is wrong (an unknown key, a context without a name, two contexts of one name, a
// current-context that names none).
absl::StatusOr<ContextFile> ReadContextFile(const std::string& path);

// Writes `file` to `path` (its folder made if missing), readable by the user only, replacing
// the old file at once (a temporary file renamed over it).
absl::Status WriteContextFile(const std::string& path, const ContextFile& file);

}  // namespace assisted::cli

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_CONTEXTS_H_
