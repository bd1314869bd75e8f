// The harness's PostgreSQL is a real server with production durability settings, and each test
// gets its own database.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/pg/connection.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/postgres_test.h"

namespace assisted::testing {
namespace {

class PostgresServerTest : public PostgresTest {
 protected:
  std::string Show(pg::Connection& connection, const std::string& setting) {
    absl::StatusOr<pg::Result> result = connection.Exec("SHOW " + setting);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? std::string(result->Get(0, 0)) : "";
  }
};

TEST_F(PostgresServerTest, IsARealServerWithFsyncAndSynchronousCommit) {
  absl::StatusOr<std::unique_ptr<pg::Connection>> connection = pg::Connection::Open(dsn());
  ASSERT_THAT(connection, IsOk());
  EXPECT_GE((*connection)->server_version(), 150000);
  EXPECT_EQ(Show(**connection, "fsync"), "on");
  EXPECT_EQ(Show(**connection, "synchronous_commit"), "on");
  EXPECT_EQ(Show(**connection, "listen_addresses"), "");
}

TEST_F(PostgresServerTest, EachTestGetsAnEmptyDatabaseOfItsOwn) {
  absl::StatusOr<std::unique_ptr<pg::Connection>> connection = pg::Connection::Open(dsn());
  ASSERT_THAT(connection, IsOk());
  absl::StatusOr<pg::Result> tables =
      (*connection)
          ->Exec("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'");
  ASSERT_THAT(tables, IsOk());
  EXPECT_EQ(tables->Get(0, 0), "0");
  ASSERT_THAT((*connection)->Exec("CREATE TABLE marker (id int)"), IsOk());
}

TEST_F(PostgresServerTest, SurvivesARestartWithCommittedDataIntact) {
  {
    auto connection = pg::Connection::Open(dsn());
    ASSERT_THAT(connection, IsOk());
    ASSERT_THAT((*connection)->Exec("CREATE TABLE kept (v text)"), IsOk());
    ASSERT_THAT((*connection)->Exec("INSERT INTO kept VALUES ($1)", {"durable"}), IsOk());
  }
  ASSERT_THAT(Server()->StopServer(), IsOk());
  EXPECT_THAT(pg::Connection::Open(dsn(), absl::Seconds(1)),
              StatusIs(absl::StatusCode::kUnavailable));
  ASSERT_THAT(Server()->StartAgain(), IsOk());
  auto connection = pg::Connection::Open(dsn());
  ASSERT_THAT(connection, IsOk());
  absl::StatusOr<pg::Result> rows = (*connection)->Exec("SELECT v FROM kept");
  ASSERT_THAT(rows, IsOk());
  ASSERT_EQ(rows->rows(), 1);
  EXPECT_EQ(rows->Get(0, 0), "durable");
}

}  // namespace
}  // namespace assisted::testing
