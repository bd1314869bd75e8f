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
#include "services/inventory/migrations.h"
#include "services/inventory/resource_store.h"
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
    absl::StatusOr<types::v1::Cluster> cluster =
        ResourceStore(*pool_, Validators{}).CreateCluster(owner, to_be);
    EXPECT_TRUE(cluster.ok()) << cluster.status();
    return cluster.ok() ? cluster->id() : "";
  }

  std::unique_ptr<pg::Pool> pool_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_STORE_TEST_BASE_H_
