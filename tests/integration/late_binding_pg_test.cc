// Late binding end to end: an infra-env without a cluster, simulated hosts (services/agent/fleet.h,
// the real agent's protocol session) register into its pool, and the user binds them to a
// cluster through the gateway's REST route; the orchestrator's one refresher judges them there
// until they are known and the cluster ready; unbinding one returns it to the pool. And the
// attack: a host is never bound into another tenant's cluster. Real PostgreSQL, inventory,
// orchestrator and gateway processes; JWT auth on.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "lib/http/test_client.h"
#include "lib/log/log.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/fleet.h"
#include "services/agent/simulation/profile_paths.h"
#include "services/gateway/jwt.h"
#include "tests/harness/host_watch.h"
#include "tests/harness/stack.h"

namespace assisted::testing {
namespace {

namespace inv = ::assisted::inventory::v1;
using ::assisted::http::test::CurlClient;
using ::assisted::http::test::CurlRequest;
using ::assisted::http::test::CurlResponse;
using Json = nlohmann::json;

constexpr char kPrefix[] = "/api/assisted-install/v2";
constexpr char kJwtSecret[] = "late-binding-test-jwt-secret-0123456789abcdef";
constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})";
constexpr char kSshKey[] =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl test";

std::string UserToken(const std::string& user, const std::string& org) {
  const Json claims = {{"sub", user},
                       {"username", user},
                       {"org_id", org},
                       {"exp", absl::ToUnixSeconds(absl::Now() + absl::Hours(1))}};
  return gateway::SignHs256(kJwtSecret, claims).value();
}

class LateBindingTest : public StackTest {
 protected:
  StackOptions Options() const override {
    // The OS image installing hosts write: noise, so a digest mismatch cannot hide.
    return {.orchestrator_flags = {"--monitor-interval=200ms"},
            .os_image_mib = 2,
            .gateway = true,  // binding needs no image service
            .jwt_secret = kJwtSecret};
  }

  void SetUp() override {
    StackTest::SetUp();
    if (HasFatalFailure()) return;
    stub_ = &stack().inventory_stub();
    base_ = stack().gateway_http();
    alice_ = UserToken("alice", "acme");
    bob_ = UserToken("bob", "other");
  }

  void TearDown() override {
    if (fleet_ != nullptr) fleet_->Stop();
    StackTest::TearDown();
  }

  // A JSON request to the REST API as the holder of `token`.
  CurlResponse As(const std::string& token, const std::string& method, const std::string& path,
                  const Json& body = nullptr) {
    CurlRequest request;
    request.method = method;
    request.headers = {"Authorization: Bearer " + token};
    if (!body.is_null()) {
      request.headers.push_back("Content-Type: application/json");
      request.body = body.dump();
    }
    absl::StatusOr<CurlResponse> response =
        client_.Fetch(absl::StrCat(base_, kPrefix, path), request);
    EXPECT_THAT(response, IsOk()) << method << " " << path;
    return response.ok() ? *std::move(response) : CurlResponse{};
  }

  // A three-master cluster on the simulated hosts' subnet, as `token`'s user; returns its id.
  std::string RegisterCluster(const std::string& token, const std::string& name) {
    CurlResponse created = As(token, "POST", "/clusters",
                              {{"name", name},
                               {"openshift_version", "4.16"},
                               {"pull_secret", kPullSecret},
                               {"base_dns_domain", "example.com"},
                               {"control_plane_count", 3},
                               {"machine_networks", Json::array({{{"cidr", "192.168.122.0/24"}}})},
                               {"api_vips", Json::array({{{"ip", "192.168.122.5"}}})},
                               {"ingress_vips", Json::array({{{"ip", "192.168.122.6"}}})}});
    EXPECT_EQ(created.status, 201) << created.body;
    return created.status == 201 ? Json::parse(created.body)["id"].get<std::string>() : "";
  }

  // An infra-env without a cluster (the pool), as `token`'s user; returns its id.
  std::string RegisterPool(const std::string& token) {
    CurlResponse created =
        As(token, "POST", "/infra-envs", {{"name", "pool"}, {"pull_secret", kPullSecret}});
    EXPECT_EQ(created.status, 201) << created.body;
    return created.status == 201 ? Json::parse(created.body)["id"].get<std::string>() : "";
  }

  // `count` simulated masters booted from `infra_env_id`'s discovery image; their host ids.
  std::vector<std::string> BootHosts(const std::string& infra_env_id, int count) {
    agent::Fleet::Options options;
    options.profile = agent::simulation::testing::ProfilePath("master");
    options.count = count;
    options.orchestrator_address = orchestrator().grpc_target();
    options.infra_env_id = infra_env_id;
    options.agent_token = "fleet-token";
    options.state_dir =
        absl::StrCat(::testing::TempDir(), "/late-binding-",
                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    options.seed = "late-binding";
    options.step_threads = 2;
    auto fleet = agent::Fleet::Start(options, nullptr, log::Logger::Discard());
    EXPECT_THAT(fleet, IsOk());
    if (!fleet.ok()) return {};
    fleet_ = *std::move(fleet);
    std::vector<std::string> ids;
    for (int i = 0; i < count; ++i) ids.push_back(fleet_->host_id(i));
    return ids;
  }

  // Alice's cluster `name` (three masters) and pool, filled by BindReadyCluster.
  struct BoundCluster {
    std::string cluster_id;
    std::string pool;              // the infra-env without a cluster
    std::vector<std::string> ids;  // the bound hosts
    int64_t seq = 0;               // the change-feed position once they are known
  };

  // Registers alice's cluster `name` and pool, boots `count` hosts into the pool, waits for
  // them known-unbound, binds each to the cluster over REST and waits for them known and the
  // cluster ready.
  void BindReadyCluster(const std::string& name, int count, BoundCluster* out) {
    out->cluster_id = RegisterCluster(alice_, name);
    out->pool = RegisterPool(alice_);
    ASSERT_FALSE(out->cluster_id.empty());
    ASSERT_FALSE(out->pool.empty());
    const std::string& pool = out->pool;
    const std::string& cluster_id = out->cluster_id;
    const std::vector<std::string> ids = BootHosts(pool, count);
    ASSERT_EQ(ids.size(), static_cast<size_t>(count));
    StatusWatch unbound = WatchHostsUntil(
        *stub_, pool, 1,
        [&](const HostStatuses& seen) {
          return AllAre(seen, ids, types::v1::HOST_STATUS_KNOWN_UNBOUND);
        },
        absl::Seconds(60));
    ASSERT_TRUE(unbound.done) << unbound.error;
    for (const std::string& id : ids) {
      CurlResponse bound =
          As(alice_, "POST", HostPath(pool, id) + "/actions/bind", {{"cluster_id", cluster_id}});
      EXPECT_EQ(bound.status, 200) << bound.body;
      if (bound.status == 200) {
        EXPECT_EQ(Json::parse(bound.body)["cluster_id"], cluster_id) << bound.body;
      }
    }
    StatusWatch ready = WatchClusterUntil(
        *stub_, cluster_id, unbound.last_seq,
        [&](const StatusWatch& w) {
          return w.cluster == types::v1::CLUSTER_STATUS_READY &&
                 AllAre(w.seen, ids, types::v1::HOST_STATUS_KNOWN);
        },
        absl::Seconds(120));
    ASSERT_TRUE(ready.done) << ready.error << "; " << ids[0] << ": "
                            << StoredHost(pool, ids[0]).status_info();
    out->ids = ids;
    out->seq = ready.last_seq;
  }

  std::string HostPath(const std::string& infra_env_id, const std::string& host_id) {
    return absl::StrCat("/infra-envs/", infra_env_id, "/hosts/", host_id);
  }

  types::v1::Host StoredHost(const std::string& infra_env_id, const std::string& id) {
    inv::GetHostRequest get;
    get.set_infra_env_id(infra_env_id);
    get.set_id(id);
    types::v1::Host host;
    grpc::ClientContext context;
    EXPECT_TRUE(stub_->GetHost(&context, get, &host).ok()) << id;
    return host;
  }

  inv::InventoryService::Stub* stub_ = nullptr;  // the stack's
  std::unique_ptr<agent::Fleet> fleet_;
  CurlClient client_;
  std::string base_, alice_, bob_;
};

TEST_F(LateBindingTest, PoolHostsBoundOverRestBecomeKnownInTheClusterAndUnboundReturnToThePool) {
  BoundCluster bound;
  ASSERT_NO_FATAL_FAILURE(BindReadyCluster("late", 3, &bound));
  const std::string& cluster_id = bound.cluster_id;
  const std::string& pool = bound.pool;
  const std::vector<std::string>& ids = bound.ids;

  // Bound already: a second bind is refused, naming why.
  CurlResponse again =
      As(alice_, "POST", HostPath(pool, ids[0]) + "/actions/bind", {{"cluster_id", cluster_id}});
  EXPECT_EQ(again.status, 409) << again.body;
  EXPECT_THAT(again.body, ::testing::HasSubstr("already bound"));

  // One host back to the pool: judged there again, and the cluster no longer has its three.
  CurlResponse released = As(alice_, "POST", HostPath(pool, ids[2]) + "/actions/unbind");
  ASSERT_EQ(released.status, 200) << released.body;
  StatusWatch back = WatchHostsUntil(
      *stub_, pool, bound.seq,
      [&](const HostStatuses& seen) {
        return AllAre(seen, {ids[2]}, types::v1::HOST_STATUS_KNOWN_UNBOUND);
      },
      absl::Seconds(60));
  ASSERT_TRUE(back.done) << back.error;
  EXPECT_EQ(StoredHost(pool, ids[2]).cluster_id(), "");
  StatusWatch short_of_masters = WatchClusterUntil(
      *stub_, cluster_id, bound.seq,
      [](const StatusWatch& w) { return w.cluster == types::v1::CLUSTER_STATUS_INSUFFICIENT; },
      absl::Seconds(60));
  EXPECT_TRUE(short_of_masters.done) << short_of_masters.error;
}

TEST_F(LateBindingTest, BoundPoolHostsInstallAndAnInstalledHostUnboundWaitsForItsReboot) {
  BoundCluster bound;
  ASSERT_NO_FATAL_FAILURE(BindReadyCluster("demo", 3, &bound));
  const std::string& cluster_id = bound.cluster_id;
  const std::string& pool = bound.pool;
  const std::vector<std::string>& ids = bound.ids;

  CurlResponse install = As(alice_, "POST", "/clusters/" + cluster_id + "/actions/install");
  ASSERT_EQ(install.status, 202) << install.body;
  StatusWatch installed = WatchClusterUntil(
      *stub_, cluster_id, bound.seq,
      [&](const StatusWatch& w) {
        return w.cluster == types::v1::CLUSTER_STATUS_INSTALLED &&
               AllAre(w.seen, ids, types::v1::HOST_STATUS_INSTALLED);
      },
      absl::Seconds(180));
  ASSERT_TRUE(installed.done) << installed.error;

  // Its disk holds the cluster's OS: unbound, it waits for the user to boot the discovery
  // image again (the reference's reclaim, which would stage that image itself, is not built).
  CurlResponse released = As(alice_, "POST", HostPath(pool, ids[0]) + "/actions/unbind");
  ASSERT_EQ(released.status, 200) << released.body;
  const Json host = Json::parse(released.body);
  EXPECT_EQ(host["status"], "unbinding-pending-user-action") << released.body;
  EXPECT_THAT(host.value("status_info", ""),
              ::testing::HasSubstr("reboot it into the discovery image"));
  EXPECT_EQ(StoredHost(pool, ids[0]).cluster_id(), "");
}

TEST_F(LateBindingTest, BindingAHostIntoAnotherTenantsClusterIsRefused) {
  const std::string bobs_cluster = RegisterCluster(bob_, "bobs");
  const std::string alices_pool = RegisterPool(alice_);
  ASSERT_FALSE(bobs_cluster.empty());
  ASSERT_FALSE(alices_pool.empty());
  const std::vector<std::string> ids = BootHosts(alices_pool, 1);
  ASSERT_EQ(ids.size(), 1u);
  StatusWatch registered = WatchHostsUntil(
      *stub_, alices_pool, 1, [&](const HostStatuses& seen) { return seen.count(ids[0]) > 0; },
      absl::Seconds(60));
  ASSERT_TRUE(registered.done) << registered.error;

  // Alice names bob's cluster: as unknown to her as any other.
  CurlResponse into_bobs = As(alice_, "POST", HostPath(alices_pool, ids[0]) + "/actions/bind",
                              {{"cluster_id", bobs_cluster}});
  EXPECT_EQ(into_bobs.status, 404) << into_bobs.body;
  // Bob names alice's host: not his to bind.
  CurlResponse bob_takes = As(bob_, "POST", HostPath(alices_pool, ids[0]) + "/actions/bind",
                              {{"cluster_id", bobs_cluster}});
  EXPECT_EQ(bob_takes.status, 404) << bob_takes.body;

  const types::v1::Host host = StoredHost(alices_pool, ids[0]);
  EXPECT_EQ(host.cluster_id(), "");
  CurlResponse bobs_hosts = As(bob_, "GET", "/clusters/" + bobs_cluster);
  ASSERT_EQ(bobs_hosts.status, 200) << bobs_hosts.body;
  EXPECT_THAT(bobs_hosts.body, ::testing::Not(::testing::HasSubstr(ids[0])));
}

}  // namespace
}  // namespace assisted::testing
