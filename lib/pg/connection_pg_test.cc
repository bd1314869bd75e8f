#include "lib/pg/connection.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/postgres_test.h"

namespace assisted::pg {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

class ConnectionTest : public assisted::testing::PostgresTest {
 protected:
  void SetUp() override {
    PostgresTest::SetUp();
    absl::StatusOr<std::unique_ptr<Connection>> connection = Connection::Open(dsn());
    ASSERT_THAT(connection, IsOk());
    connection_ = *std::move(connection);
  }
  std::unique_ptr<Connection> connection_;
};

TEST_F(ConnectionTest, ParametersTravelApartFromTheSql) {
  ASSERT_THAT(connection_->Exec("CREATE TABLE t (id int PRIMARY KEY, name text)"), IsOk());
  const std::string hostile = "x'); DROP TABLE t; --";
  absl::StatusOr<Result> inserted =
      connection_->Exec("INSERT INTO t VALUES ($1, $2), ($3, $4)", {"1", hostile, "2", Param()});
  ASSERT_THAT(inserted, IsOk());
  EXPECT_EQ(inserted->affected_rows(), 2);
  absl::StatusOr<Result> rows = connection_->Exec("SELECT id, name FROM t ORDER BY id");
  ASSERT_THAT(rows, IsOk());
  ASSERT_EQ(rows->rows(), 2);
  ASSERT_EQ(rows->columns(), 2);
  EXPECT_EQ(rows->Get(0, 1), hostile);
  EXPECT_TRUE(rows->IsNull(1, 1));
  EXPECT_FALSE(rows->IsNull(0, 1));
}

TEST_F(ConnectionTest, ErrorsMapToCodesCallersActOn) {
  ASSERT_THAT(connection_->Exec("CREATE TABLE u (id int PRIMARY KEY)"), IsOk());
  ASSERT_THAT(connection_->Exec("INSERT INTO u VALUES (1)"), IsOk());
  EXPECT_THAT(connection_->Exec("INSERT INTO u VALUES (1)"),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("duplicate key")));
  EXPECT_THAT(connection_->Exec("SELECT $1::int", {"nope"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(connection_->Exec("SET statement_timeout = '50ms'"), IsOk());
  EXPECT_THAT(connection_->Exec("SELECT pg_sleep(2)"),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_THAT(connection_->Exec("SELEC broken"), StatusIs(absl::StatusCode::kInternal));
  EXPECT_TRUE(connection_->healthy());
}

TEST_F(ConnectionTest, UnreachableServerIsUnavailableWithoutThePassword) {
  absl::StatusOr<std::unique_ptr<Connection>> connection =
      Connection::Open("host=/nonexistent dbname=x password=hunter2", absl::Seconds(1));
  EXPECT_THAT(connection, StatusIs(absl::StatusCode::kUnavailable, Not(HasSubstr("hunter2"))));
}

TEST(QuoteIdentifier, DoublesEmbeddedQuotes) {
  EXPECT_EQ(QuoteIdentifier("plain"), "\"plain\"");
  EXPECT_EQ(QuoteIdentifier("a\"b"), "\"a\"\"b\"");
}

}  // namespace
}  // namespace assisted::pg
