// File: fuzz/agent_config_fuzzer.cc
//
// `aictl agent create`'s inputs (services/gateway/cli/agent/cluster_definition.h): the input is
// install-config.yaml, a line "---8<---", then agent-config.yaml (without the line, both files
// get the whole input). Besides crashes and hangs it checks what the command prints relies on:
// every problem line names one of the two files; and an accepted definition can be written as
// cluster.json and as ZTP manifests.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "services/gateway/cli/agent/agent_ignition.h"
#include "services/gateway/cli/agent/cluster_definition.h"
#include "services/gateway/cli/agent/ztp_manifests.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  constexpr absl::string_view kSeparator = "\n---8<---\n";
  const size_t separator = input.find(kSeparator);
  const absl::string_view install =
      separator == absl::string_view::npos ? input : input.substr(0, separator);
  const absl::string_view agent =
      separator == absl::string_view::npos ? input : input.substr(separator + kSeparator.size());
  namespace agent_cli = assisted::cli::agent;
  absl::StatusOr<agent_cli::ClusterDefinition> definition =
      agent_cli::ParseClusterDefinition(install, agent);
  if (!definition.ok()) {
    for (absl::string_view line : absl::StrSplit(definition.status().message(), '\n')) {
      if (!absl::StartsWith(line, "install-config.yaml: ") &&
          !absl::StartsWith(line, "agent-config.yaml: ")) {
        // A problem that does not say which file it is in.
        std::fprintf(stderr, "problem without its file: %.*s\n", static_cast<int>(line.size()),
                     line.data());
        std::abort();
      }
    }
    return 0;
  }
  agent_cli::AgentImageIdentity identity{.cluster_id = "c", .infra_env_id = "i"};
  (void)agent_cli::ClusterJson(*definition, identity).dump();
  (void)agent_cli::ZtpManifests(*definition);
  return 0;
}
