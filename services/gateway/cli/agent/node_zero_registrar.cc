#include "services/gateway/cli/agent/node_zero_registrar.h"

#include "absl/strings/str_cat.h"
#include "lib/file/read_file.h"
#include "lib/status/status_macros.h"
#include "services/gateway/cli/agent/node_zero_plan.h"

namespace assisted::cli::agent {
namespace {

using nlohmann::json;

std::string Text(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// A create answered 409: the id exists, made by an earlier run of node 0.
absl::Status CreatedOrExisting(const absl::StatusOr<json>& created) {
  if (created.ok() || absl::IsFailedPrecondition(created.status())) return absl::OkStatus();
  return created.status();
}

bool Retryable(const absl::Status& status) {
  return absl::IsUnavailable(status) || absl::IsFailedPrecondition(status) ||
         absl::IsAborted(status) || absl::IsDeadlineExceeded(status);
}

}  // namespace

const std::vector<std::string>& CredentialArtifactNames() {
  static const auto* names = new std::vector<std::string>{"tls/root-ca.crt", "tls/root-ca.key",
                                                          "kubeconfig", "kubeadmin-password"};
  return *names;
}

absl::StatusOr<NodeZeroInputs> ReadNodeZeroInputs(const std::string& config_path,
                                                  const std::string& pull_secret_path,
                                                  const std::string& credentials_dir) {
  NodeZeroInputs inputs;
  ASSIGN_OR_RETURN(std::string config, ReadFile(config_path, "cluster definition"));
  inputs.definition = json::parse(config, nullptr, /*allow_exceptions=*/false);
  if (!inputs.definition.is_object() || !inputs.definition.contains("cluster") ||
      !inputs.definition["cluster"].is_object() || Text(inputs.definition, "cluster_id").empty() ||
      Text(inputs.definition, "infra_env_id").empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(config_path,
                     ": not a cluster definition (a JSON object with cluster, cluster_id and "
                     "infra_env_id)"));
  }
  ASSIGN_OR_RETURN(inputs.pull_secret, ReadFile(pull_secret_path, "pull secret"));
  for (const std::string& name : CredentialArtifactNames()) {
    ASSIGN_OR_RETURN(std::string content,
                     ReadFile(absl::StrCat(credentials_dir, "/", name), "credential"));
    inputs.credentials.emplace_back(name, std::move(content));
  }
  return inputs;
}

std::string NodeZeroRegistrar::cluster_id() const { return Text(inputs_.definition, "cluster_id"); }

absl::Status NodeZeroRegistrar::Register() {
  const json& definition = inputs_.definition;
  json cluster = definition["cluster"];
  cluster["id"] = cluster_id();
  cluster["pull_secret"] = inputs_.pull_secret;
  RETURN_IF_ERROR(CreatedOrExisting(services_.Call("POST", "/clusters", cluster)));
  // A 409 may also mean another user's cluster holds the id: this one must be readable.
  RETURN_IF_ERROR(
      services_.Call("GET", absl::StrCat("/clusters/", cluster_id()), std::nullopt).status());
  json infra_env = {{"id", Text(definition, "infra_env_id")},
                    {"name", Text(cluster, "name")},
                    {"cluster_id", cluster_id()},
                    {"pull_secret", inputs_.pull_secret},
                    {"rendezvous_ip", Text(definition, "rendezvous_ip")}};
  for (const char* key : {"openshift_version", "cpu_architecture"}) {
    if (!Text(cluster, key).empty()) infra_env[key] = Text(cluster, key);
  }
  if (!Text(cluster, "ssh_public_key").empty()) {
    infra_env["ssh_authorized_key"] = Text(cluster, "ssh_public_key");
  }
  // The hosts' static networks and the trust bundle (the installed OS's Ignition carries them).
  if (const auto fields = definition.find("infra_env");
      fields != definition.end() && fields->is_object()) {
    infra_env.update(*fields);
  }
  RETURN_IF_ERROR(CreatedOrExisting(services_.Call("POST", "/infra-envs", infra_env)));
  for (const auto& [name, content] : inputs_.credentials) {
    const absl::Status stored = services_.PutCredential(cluster_id(), name, content);
    if (!stored.ok() && !absl::IsAlreadyExists(stored)) return stored;
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> NodeZeroRegistrar::Step(std::string& waiting_for) {
  ASSIGN_OR_RETURN(json cluster,
                   services_.Call("GET", absl::StrCat("/clusters/", cluster_id()), std::nullopt));
  const NodeZeroPlan plan =
      PlanNodeZero(inputs_.definition, cluster, cluster.value("hosts", json::array()));
  for (const HostUpdate& update : plan.host_updates) {
    RETURN_IF_ERROR(
        services_
            .Call("PATCH",
                  absl::StrCat("/infra-envs/", update.infra_env_id, "/hosts/", update.host_id),
                  update.patch)
            .status());
  }
  if (plan.start_install) {
    RETURN_IF_ERROR(services_
                        .Call("POST", absl::StrCat("/clusters/", cluster_id(), "/actions/install"),
                              json::object())
                        .status());
    waiting_for.clear();
    return true;
  }
  waiting_for = plan.waiting_for;
  // PlanNodeZero says nothing once the cluster is past ready: the installation started.
  return plan.host_updates.empty() && plan.waiting_for.empty();
}

absl::Status RunNodeZero(NodeZeroRegistrar& registrar, const RunOptions& options,
                         std::ostream& log) {
  const absl::Time deadline = absl::Now() + options.timeout;
  std::string last;
  // Logs `line` unless it was the last one logged.
  const auto say = [&](const std::string& line) {
    if (line == last) return;
    log << "assisted-node-zero: " << line << std::endl;
    last = line;
  };
  const auto wait = [&]() -> absl::Status {
    if (absl::Now() + options.interval > deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("gave up after ", absl::FormatDuration(options.timeout)));
    }
    absl::SleepFor(options.interval);
    return absl::OkStatus();
  };
  for (;;) {
    const absl::Status registered = registrar.Register();
    if (registered.ok()) break;
    if (!Retryable(registered)) return registered;
    say(absl::StrCat("registering the cluster: ", registered.message()));
    RETURN_IF_ERROR(wait());
  }
  say("the cluster and infra-env exist, the credentials are stored");
  for (;;) {
    std::string waiting_for;
    const absl::StatusOr<bool> started = registrar.Step(waiting_for);
    if (started.ok() && *started) {
      say("the installation has started");
      return absl::OkStatus();
    }
    if (!started.ok() && !Retryable(started.status())) return started.status();
    say(started.ok() ? absl::StrCat("waiting: ", waiting_for)
                     : absl::StrCat("retrying: ", started.status().message()));
    RETURN_IF_ERROR(wait());
  }
}

}  // namespace assisted::cli::agent
