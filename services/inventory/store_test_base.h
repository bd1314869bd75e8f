// File: services/inventory/store_test_base.h
//
// Fixture for inventory tests against the real PostgreSQL: a fresh, migrated database per test,
// a pool on it, and builders for small valid resources.

#ifndef ASSISTED_SERVICES_INVENTORY_STORE_TEST_BASE_H_
#define ASSISTED_SERVICES_INVENTORY_STORE_TEST_BASE_H_

#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "lib/pg/pool.h"
#include "lib/testing/status_matchers.h"
#include "services/inventory/migrations.h"
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

  std::unique_ptr<pg::Pool> pool_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_STORE_TEST_BASE_H_
