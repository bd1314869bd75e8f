// File: services/gateway/cli/agent/node_zero_registrar.h
//
// What node 0 of an agent-based install does once its services run (`aictl agent
// run-node-zero`, started by assisted-node-zero-register.service from the ISO's Ignition,
// agent_ignition.h): it creates the cluster and infra-env of /etc/assisted/cluster.json under
// their fixed ids, stores the credentials the ISO carries as the cluster's artifacts (so the
// cluster trusts DIR/auth/kubeconfig), then applies PlanNodeZero (node_zero_plan.h) on every
// look until the installation has started.
//
//   NodeZeroRegistrar registrar(inputs, services);
//   RETURN_IF_ERROR(RunNodeZero(registrar, {.interval = absl::Seconds(2)}, std::cerr));
//
// Idempotent across restarts: a create answered 409 (the id exists: an earlier run made it)
// and an artifact already stored count as done; applying a plan twice changes nothing; a
// cluster already installing ends the run at once.

#ifndef ASSISTED_SERVICES_GATEWAY_CLI_AGENT_NODE_ZERO_REGISTRAR_H_
#define ASSISTED_SERVICES_GATEWAY_CLI_AGENT_NODE_ZERO_REGISTRAR_H_

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace assisted::cli::agent {

// What the ISO gives node 0.
struct NodeZeroInputs {
  nlohmann::json definition;  // cluster.json (agent_ignition.h: ClusterJson)
  std::string pull_secret;
  // Artifact name -> content: tls/root-ca.crt, tls/root-ca.key, kubeconfig, kubeadmin-password.
  std::vector<std::pair<std::string, std::string>> credentials;
};

// The artifact names of the credentials the ISO carries under kCredentialsDir, as the
// orchestrator stores them (services/orchestrator/install/artifacts.h).
const std::vector<std::string>& CredentialArtifactNames();

// Reads cluster.json, the pull secret (/root/.docker/config.json) and the credentials folder.
// INVALID_ARGUMENT naming the file that is missing or malformed.
absl::StatusOr<NodeZeroInputs> ReadNodeZeroInputs(const std::string& config_path,
                                                  const std::string& pull_secret_path,
                                                  const std::string& credentials_dir);

// Node 0's services as the registration uses them: a port, so the decisions are tested
// without them.
class NodeZeroServices {
 public:
  virtual ~NodeZeroServices() = default;
  // `method` on the gateway's REST API (RestClient::Call's contract: 409 is
  // FAILED_PRECONDITION, transport failures and 5xx UNAVAILABLE).
  virtual absl::StatusOr<nlohmann::json> Call(absl::string_view method, absl::string_view path,
                                              const std::optional<nlohmann::json>& body) = 0;
  // Stores `content` as artifact `name` of the cluster unless one is stored (ALREADY_EXISTS
  // then).
  virtual absl::Status PutCredential(const std::string& cluster_id, const std::string& name,
                                     const std::string& content) = 0;
};

class NodeZeroRegistrar {
 public:
  // `services` must outlive the registrar.
  NodeZeroRegistrar(NodeZeroInputs inputs, NodeZeroServices& services)
      : inputs_(std::move(inputs)), services_(services) {}

  // Creates what does not exist yet: the cluster, the infra-env (with the rendezvous IP, which
  // makes node 0 the bootstrap host), the credentials. OK once all exist; INVALID_ARGUMENT
  // when node 0's services refuse cluster.json; UNAVAILABLE while they do not answer.
  absl::Status Register();

  // One look: reads the cluster and its hosts, PATCHes each host the plan names and starts the
  // installation once the plan says so. true once the installation has started (by this look
  // or before); `waiting_for` says why not.
  absl::StatusOr<bool> Step(std::string& waiting_for);

 private:
  std::string cluster_id() const;

  NodeZeroInputs inputs_;
  NodeZeroServices& services_;
};

struct RunOptions {
  absl::Duration interval = absl::Seconds(2);  // between looks, and between retries
  absl::Duration timeout = absl::Hours(24);    // gives up (DEADLINE_EXCEEDED) after this long
};

// Register() until it succeeds, then Step() every interval until the installation started.
// Errors a retry can fix (UNAVAILABLE, FAILED_PRECONDITION: a host or the cluster moved on,
// ABORTED, DEADLINE_EXCEEDED) are logged and retried; any other is returned. Each new waiting
// reason and error goes to `log` once, as a line.
absl::Status RunNodeZero(NodeZeroRegistrar& registrar, const RunOptions& options,
                         std::ostream& log);

}  // namespace assisted::cli::agent

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_AGENT_NODE_ZERO_REGISTRAR_H_
