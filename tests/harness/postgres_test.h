// File: tests/harness/postgres_test.h
//
// A gtest fixture for tests that need the real PostgreSQL (name such tests *_pg_test): one
// server per test suite, a fresh empty database per test in `dsn()`.
//
//   class StoreTest : public assisted::testing::PostgresTest {};
//   TEST_F(StoreTest, Writes) { auto conn = pg::Connection::Open(dsn()); … }

#ifndef ASSISTED_TESTS_HARNESS_POSTGRES_TEST_H_
#define ASSISTED_TESTS_HARNESS_POSTGRES_TEST_H_

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "tests/harness/postgres_server.h"

namespace assisted::testing {

class PostgresTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<std::unique_ptr<PostgresServer>> server = PostgresServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    Server() = *std::move(server);
  }

  static void TearDownTestSuite() { Server().reset(); }

  void SetUp() override {
    ASSERT_NE(Server(), nullptr) << "PostgreSQL did not start";
    absl::StatusOr<std::string> dsn = Server()->CreateDatabase();
    ASSERT_TRUE(dsn.ok()) << dsn.status();
    dsn_ = *dsn;
  }

  // The server shared by the suite's tests (owned by the suite, hence static).
  static std::unique_ptr<PostgresServer>& Server() {
    static std::unique_ptr<PostgresServer> server;
    return server;
  }

  const std::string& dsn() const { return dsn_; }

 private:
  std::string dsn_;
};

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_POSTGRES_TEST_H_
