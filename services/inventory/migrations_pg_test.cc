#include "services/inventory/migrations.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "services/inventory/store_test_base.h"

namespace assisted::inventory {
namespace {

using MigrationsTest = InventoryDbTest;

TEST_F(MigrationsTest, MigrationsAreIdempotentAndSafeToRunConcurrently) {
  std::vector<std::thread> threads;
  std::atomic<int> applied{0}, failures{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      auto connection = pg::Connection::Open(dsn());
      if (!connection.ok()) {
        ++failures;
        return;
      }
      auto count = ApplyMigrations(**connection);
      if (count.ok()) {
        applied += *count;
      } else {
        ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(applied, 0);  // SetUp already applied them all
}

}  // namespace
}  // namespace assisted::inventory
