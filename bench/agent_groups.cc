#include "bench/agent_groups.h"

#include <sys/resource.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "grpcpp/client_context.h"
#include "lib/log/log.h"
#include "lib/status/status_macros.h"
#include "services/agent/simulation/profile_paths.h"

namespace assisted::bench {

constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"eDp5"}}})";

std::vector<AgentGroup> UnboundGroups(int first, int agents, int per_infra_env, int replicas,
                                      int groups_before) {
  std::vector<AgentGroup> groups;
  for (int next = first; next < first + agents; next += per_infra_env) {
    const int index = groups_before + static_cast<int>(groups.size());
    groups.push_back(
        {"", "", next, std::min(per_infra_env, first + agents - next), index % replicas});
  }
  return groups;
}

absl::Status CreateInfraEnvs(inventory::v1::InventoryService::Stub& stub,
                             std::vector<AgentGroup>& groups, const std::string& prefix) {
  for (size_t g = 0; g < groups.size(); ++g) {
    inventory::v1::CreateInfraEnvRequest create;
    create.mutable_infra_env()->set_name(absl::StrCat(prefix, "-", g));
    create.mutable_infra_env()->set_cluster_id(groups[g].cluster_id);
    create.mutable_infra_env()->set_openshift_version("4.16");
    create.set_pull_secret(kPullSecret);
    types::v1::InfraEnv infra_env;
    grpc::ClientContext context;
    const grpc::Status created = stub.CreateInfraEnv(&context, create, &infra_env);
    if (!created.ok()) {
      return absl::UnavailableError("cannot register an infra-env: " + created.error_message());
    }
    groups[g].infra_env_id = infra_env.id();
  }
  return absl::OkStatus();
}

void RaiseOpenFileLimit() {
  rlimit files{200000, 200000};
  if (setrlimit(RLIMIT_NOFILE, &files) != 0) {
    getrlimit(RLIMIT_NOFILE, &files);
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
}

std::vector<std::string> OrchestratorArgsForAgents(int agents) {
  return {absl::StrCat("--max-agent-streams=", agents + 1000), "--max-agent-streams-per-peer=0",
          absl::StrCat("--max-unregistered-agent-streams-per-peer=", agents + 1000)};
}

absl::StatusOr<std::vector<std::unique_ptr<agent::Fleet>>> StartFleets(
    const std::vector<AgentGroup>& groups,
    const std::function<std::string(const AgentGroup&)>& target, const std::string& dir,
    AgentEvents events) {
  std::vector<std::unique_ptr<agent::Fleet>> fleets;
  for (const AgentGroup& group : groups) {
    agent::Fleet::Options fleet;
    fleet.profile = agent::simulation::testing::ProfilePath("fleet");
    fleet.count = group.count;
    fleet.first_index = group.first;
    fleet.seed = "agents-bench";
    fleet.orchestrator_address = target(group);
    fleet.infra_env_id = group.infra_env_id;
    fleet.state_dir = absl::StrCat(dir, "/g", group.first);
    fleet.step_threads = 1;
    const int first = group.first;
    ASSIGN_OR_RETURN(
        std::unique_ptr<agent::Fleet> started,
        agent::Fleet::Start(
            fleet,
            [events, first](const agent::FleetEvent& event) { events(first + event.agent, event); },
            log::Logger::Discard()));
    fleets.push_back(std::move(started));
  }
  return fleets;
}

}  // namespace assisted::bench
