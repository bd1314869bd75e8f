// NodeZeroRegistrar on a fake of node 0's services: what it creates, how a restart finds what
// an earlier run made, and when it starts the installation. node_zero_pg_test runs it for real.
#include "services/gateway/cli/agent/node_zero_registrar.h"

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::cli::agent {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kClusterId[] = "3f0c2a5e-2b8c-4c1e-9d3a-0f5b6f1e7a21";
constexpr char kInfraEnvId[] = "6b1d7c9e-0a4f-4e2b-8c3d-1e5f7a9b2c40";

NodeZeroInputs Inputs() {
  return {.definition = {{"cluster_id", kClusterId},
                         {"infra_env_id", kInfraEnvId},
                         {"rendezvous_ip", "192.168.122.10"},
                         {"expected_hosts", 1},
                         {"cluster",
                          {{"name", "demo"},
                           {"openshift_version", "4.16"},
                           {"ssh_public_key", "ssh-ed25519 AAAA k"}}},
                         {"hosts", {{{"macs", {"02:00:c0:a8:7a:0a"}}, {"hostname", "sno"}}}}},
          .pull_secret = R"({"auths":{"quay.io":{"auth":"eDp5"}}})",
          .credentials = {{"kubeadmin-password", "secret"}}};
}

// Node 0's services in memory: clusters and infra-envs by id, stored artifacts, every call.
class FakeServices final : public NodeZeroServices {
 public:
  absl::StatusOr<json> Call(absl::string_view method, absl::string_view path,
                            const std::optional<json>& body) override {
    calls.push_back(absl::StrCat(method, " ", path));
    if (!unavailable.ok()) return unavailable;
    if (method == "POST" && (path == "/clusters" || path == "/infra-envs")) {
      const std::string id = (*body)["id"];
      if (!created.emplace(id, *body).second) {
        return absl::FailedPreconditionError("409: already exists");
      }
      return *body;
    }
    if (method == "GET" && absl::StartsWith(path, "/clusters/")) {
      if (!created.count(kClusterId)) return absl::NotFoundError("404: no cluster");
      return cluster;
    }
    if (method == "PATCH") {
      patches.push_back(*body);
      return json::object();
    }
    if (method == "POST" && absl::EndsWith(path, "/actions/install")) {
      ++installs;
      return json::object();
    }
    return absl::InternalError(absl::StrCat("unexpected ", method, " ", path));
  }

  absl::Status PutCredential(const std::string& cluster_id, const std::string& name,
                             const std::string& content) override {
    if (!artifacts.emplace(absl::StrCat(cluster_id, "/", name), content).second) {
      return absl::AlreadyExistsError(name);
    }
    return absl::OkStatus();
  }

  absl::Status unavailable;
  std::map<std::string, json> created;
  std::map<std::string, std::string> artifacts;
  std::vector<std::string> calls;
  std::vector<json> patches;
  int installs = 0;
  json cluster = {{"status", "insufficient"}, {"hosts", json::array()}};
};

json ReadyCluster(const std::string& host_status, const std::string& requested_hostname) {
  const json inventory = {{"interfaces", {{{"mac_address", "02:00:c0:a8:7a:0a"}}}}};
  return {{"status", "ready"},
          {"hosts",
           {{{"id", "h1"},
             {"infra_env_id", kInfraEnvId},
             {"status", host_status},
             {"requested_hostname", requested_hostname},
             {"inventory", inventory.dump()}}}}};
}

TEST(NodeZeroRegistrar, CreatesTheClusterAndInfraEnvUnderTheIsosIdsAndStoresTheCredentials) {
  FakeServices services;
  NodeZeroRegistrar registrar(Inputs(), services);
  ASSERT_THAT(registrar.Register(), IsOk());
  const json& cluster = services.created[kClusterId];
  EXPECT_EQ(cluster["name"], "demo");
  EXPECT_EQ(cluster["pull_secret"], R"({"auths":{"quay.io":{"auth":"eDp5"}}})");
  const json& infra_env = services.created[kInfraEnvId];
  EXPECT_EQ(infra_env["cluster_id"], kClusterId);
  // The rendezvous IP makes node 0 the bootstrap host.
  EXPECT_EQ(infra_env["rendezvous_ip"], "192.168.122.10");
  EXPECT_EQ(infra_env["ssh_authorized_key"], "ssh-ed25519 AAAA k");
  EXPECT_EQ(services.artifacts[absl::StrCat(kClusterId, "/kubeadmin-password")], "secret");
}

TEST(NodeZeroRegistrar, ARestartFindsWhatAnEarlierRunCreated) {
  FakeServices services;
  ASSERT_THAT(NodeZeroRegistrar(Inputs(), services).Register(), IsOk());
  services.artifacts[absl::StrCat(kClusterId, "/kubeadmin-password")] = "kept";
  EXPECT_THAT(NodeZeroRegistrar(Inputs(), services).Register(), IsOk());
  EXPECT_EQ(services.artifacts[absl::StrCat(kClusterId, "/kubeadmin-password")], "kept");
}

TEST(NodeZeroRegistrar, AnIdHeldByAnotherUsersClusterIsAnError) {
  // The id is taken (POST answers 409), yet node 0's user cannot read it (GET answers 404).
  class Hidden final : public NodeZeroServices {
   public:
    absl::StatusOr<json> Call(absl::string_view method, absl::string_view,
                              const std::optional<json>&) override {
      if (method == "POST") return absl::FailedPreconditionError("409: already exists");
      return absl::NotFoundError("404: cluster not found");
    }
    absl::Status PutCredential(const std::string&, const std::string&,
                               const std::string&) override {
      return absl::OkStatus();
    }
  } hidden;
  EXPECT_THAT(NodeZeroRegistrar(Inputs(), hidden).Register(),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST(NodeZeroRegistrar, NamesTheHostsThenStartsTheInstallOnceTheClusterIsReady) {
  FakeServices services;
  NodeZeroRegistrar registrar(Inputs(), services);
  ASSERT_THAT(registrar.Register(), IsOk());
  std::string waiting_for;
  EXPECT_THAT(registrar.Step(waiting_for), IsOkAndHolds(false));
  EXPECT_THAT(waiting_for, HasSubstr("0 of 1 hosts are known"));

  services.cluster = ReadyCluster("known", "");
  EXPECT_THAT(registrar.Step(waiting_for), IsOkAndHolds(false));
  EXPECT_THAT(services.patches, ElementsAre(json{{"host_name", "sno"}}));
  EXPECT_EQ(services.installs, 0);

  services.cluster = ReadyCluster("known", "sno");
  EXPECT_THAT(registrar.Step(waiting_for), IsOkAndHolds(true));
  EXPECT_EQ(services.installs, 1);

  // A restart after the install started ends at once.
  services.cluster["status"] = "installing";
  EXPECT_THAT(registrar.Step(waiting_for), IsOkAndHolds(true));
  EXPECT_EQ(services.installs, 1);
}

TEST(RunNodeZero, RetriesWhileTheServicesDoNotAnswerAndSaysSoOnce) {
  FakeServices services;
  services.unavailable = absl::UnavailableError("connection refused");
  NodeZeroRegistrar registrar(Inputs(), services);
  std::ostringstream log;
  const absl::Status done = RunNodeZero(
      registrar, {.interval = absl::Milliseconds(1), .timeout = absl::Milliseconds(50)}, log);
  EXPECT_THAT(done, StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_GT(services.calls.size(), 1u);
  EXPECT_EQ(log.str(), "assisted-node-zero: registering the cluster: connection refused\n");
}

TEST(RunNodeZero, RefusedInputIsNotRetried) {
  class Refusing final : public NodeZeroServices {
   public:
    absl::StatusOr<json> Call(absl::string_view, absl::string_view,
                              const std::optional<json>&) override {
      ++calls;
      return absl::InvalidArgumentError("400: cluster.name: must be a DNS label");
    }
    absl::Status PutCredential(const std::string&, const std::string&,
                               const std::string&) override {
      return absl::OkStatus();
    }
    int calls = 0;
  } refusing;
  NodeZeroRegistrar registrar(Inputs(), refusing);
  std::ostringstream log;
  EXPECT_THAT(RunNodeZero(registrar, {.interval = absl::Milliseconds(1)}, log),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("DNS label")));
  EXPECT_EQ(refusing.calls, 1);
}

}  // namespace
}  // namespace assisted::cli::agent
