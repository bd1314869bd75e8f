// File: services/inventory/store_test_base.h
//
// Fixture for inventory tests against the real PostgreSQL: a fresh, migrated database per test,
// a pool on it, and builders for small valid resources. Every *_pg_test of the inventory's
// stores derives from it.

#ifndef ASSISTED_SERVICES_INVENTORY_STORE_TEST_BASE_H_
#define ASSISTED_SERVICES_INVENTORY_STORE_TEST_BASE_H_

#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "lib/pg/pool.h"
#include "lib/testing/status_matchers.h"
#include "services/inventory/cluster_store.h"
#include "services/inventory/host_store.h"
#include "services/inventory/infra_env_store.h"
#include "services/inventory/migrations.h"
#include "services/inventory/signing_key_store.h"
#include "tests/harness/postgres_test.h"

namespace assisted::inventory {

class InventoryDbTest : public assisted::testing::PostgresTest {
 protected:
  void SetUp() override {
    PostgresTest::SetUp();
    pool_ = std::make_unique<pg::Pool>(pg::PoolOptions{.dsn = dsn(), .max_connections = 20});
    auto connection = pool_->Acquire();
    ASSERT_TRUE(connection.ok()) << connection.status();
    auto applied = ApplyMigrations(**connection);
    ASSERT_TRUE(applied.ok()) << applied.status();
  }

  // A deterministic UUID for test object number `n` of a given `kind` digit.
  static std::string Uuid(int kind, int n) {
    return absl::StrFormat("%08x-0000-4000-8000-%012x", kind, n);
  }

  // Creates a cluster named "c" owned by `owner`; returns its id, or "" after a test failure.
  std::string CreateCluster(const Caller& owner) {
    types::v1::Cluster to_be;
    to_be.set_name("c");
    absl::StatusOr<types::v1::Cluster> cluster = ClusterStore(*pool_).Create(owner, to_be);
    EXPECT_TRUE(cluster.ok()) << cluster.status();
    return cluster.ok() ? cluster->id() : "";
  }

  // Runs `sql` on the test's database. Tests use it to move a row's now()-stamped times into
  // the past (an expired lease, a deletion past its grace period) instead of sleeping until the
  // database clock gets there.
  void ExecSql(const std::string& sql) {
    auto connection = pool_->Acquire();
    ASSERT_TRUE(connection.ok()) << connection.status();
    auto result = (*connection)->Exec(sql);
    ASSERT_TRUE(result.ok()) << sql << ": " << result.status();
  }

  std::unique_ptr<pg::Pool> pool_;
};

// With the stores of clusters, infra-envs, hosts and signing keys, two tenants and builders of
// their resources: the fixture of those stores' tests.
class ResourceStoresTest : public InventoryDbTest {
 protected:
  void SetUp() override {
    InventoryDbTest::SetUp();
    clusters_ = std::make_unique<ClusterStore>(*pool_);
    infra_envs_ = std::make_unique<InfraEnvStore>(*pool_);
    hosts_ = std::make_unique<HostStore>(*pool_);
    signing_keys_ = std::make_unique<SigningKeyStore>(*pool_);
  }

  // A cluster of `caller` with a pull secret.
  types::v1::Cluster NewCluster(const Caller& caller, const std::string& name,
                                std::string id = "") {
    types::v1::Cluster to_be;
    to_be.set_id(id);
    to_be.set_name(name);
    to_be.set_base_dns_domain("example.com");
    auto cluster = clusters_->Create(caller, to_be, R"({"auths":{"r.io":{"auth":"dTpw"}}})");
    EXPECT_TRUE(cluster.ok()) << cluster.status();
    return cluster.ok() ? *cluster : types::v1::Cluster();
  }

  types::v1::InfraEnv NewInfraEnv(const Caller& caller, const std::string& cluster_id = "") {
    types::v1::InfraEnv to_be;
    to_be.set_name("discovery");
    to_be.set_cluster_id(cluster_id);
    auto infra_env = infra_envs_->Create(caller, to_be);
    EXPECT_TRUE(infra_env.ok()) << infra_env.status();
    return infra_env.ok() ? *infra_env : types::v1::InfraEnv();
  }

  // A host of `infra_env` (bound to its cluster, if it has one).
  absl::StatusOr<types::v1::Host> NewHost(const Caller& caller,
                                          const types::v1::InfraEnv& infra_env,
                                          const std::string& id) {
    types::v1::Host host;
    host.set_id(id);
    host.set_infra_env_id(infra_env.id());
    host.set_cluster_id(infra_env.cluster_id());
    host.set_requested_hostname("node");
    return hosts_->Create(caller, host);
  }

  // A patch of the cluster `id`, and a mask naming `paths`.
  static types::v1::Cluster Patch(const std::string& id) {
    types::v1::Cluster patch;
    patch.set_id(id);
    return patch;
  }
  static google::protobuf::FieldMask Mask(std::initializer_list<std::string> paths) {
    google::protobuf::FieldMask mask;
    for (const std::string& path : paths) mask.add_paths(path);
    return mask;
  }

  const Caller alice_ = Caller::User("alice", "org-a");
  const Caller bob_ = Caller::User("bob", "org-b");
  std::unique_ptr<ClusterStore> clusters_;
  std::unique_ptr<InfraEnvStore> infra_envs_;
  std::unique_ptr<HostStore> hosts_;
  std::unique_ptr<SigningKeyStore> signing_keys_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_STORE_TEST_BASE_H_
