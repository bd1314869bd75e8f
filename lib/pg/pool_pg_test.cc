#include "lib/pg/pool.h"

#include <thread>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/postgres_test.h"

namespace assisted::pg {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

class PoolTest : public assisted::testing::PostgresTest {
 protected:
  PoolOptions Options(int max_connections = 2) {
    return {.dsn = dsn(),
            .max_connections = max_connections,
            .acquire_timeout = absl::Milliseconds(300),
            .connect = {.statement_timeout = absl::Seconds(5)}};
  }

  int64_t Count(Pool& pool, const std::string& table) {
    auto conn = pool.Acquire();
    EXPECT_THAT(conn, IsOk());
    auto rows = (*conn)->Exec("SELECT count(*) FROM " + table);
    EXPECT_THAT(rows, IsOk());
    return rows.ok() ? std::stoll(std::string(rows->Get(0, 0))) : -1;
  }
};

TEST_F(PoolTest, ReusesConnectionsAndCapsTheirNumber) {
  PoolOptions options = Options(2);
  options.refuse_nested_acquire = false;  // this thread holds both connections on purpose
  Pool pool(options);
  {
    auto a = pool.Acquire();
    auto b = pool.Acquire();
    ASSERT_THAT(a, IsOk());
    ASSERT_THAT(b, IsOk());
    EXPECT_EQ(pool.open_connections(), 2);
    EXPECT_THAT(pool.Acquire(), StatusIs(absl::StatusCode::kResourceExhausted));
  }
  auto again = pool.Acquire();
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(pool.open_connections(), 2);
}

TEST_F(PoolTest, AWaitingCallerGetsTheNextReturnedConnection) {
  Pool pool(Options(1));
  absl::Notification acquired;
  std::thread holder([&] {
    auto held = pool.Acquire();
    EXPECT_THAT(held, IsOk());
    acquired.Notify();
    absl::SleepFor(absl::Milliseconds(50));  // likely (not necessarily) after the wait began
  });
  acquired.WaitForNotification();
  EXPECT_THAT(pool.Acquire(), IsOk());
  holder.join();
}

TEST_F(PoolTest, ASecondAcquireOnOneThreadIsRefusedRatherThanRiskingADeadlock) {
  Pool pool(Options(2));
  auto first = pool.Acquire();
  ASSERT_THAT(first, IsOk());
  // There is room for a second connection, but taking one while holding another is what
  // deadlocks a pool once every connection is held by a caller waiting for a second.
  EXPECT_THAT(pool.Acquire(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                       HasSubstr("already holds a connection")));
  // Other threads are not concerned, nor is another pool.
  std::thread other([&pool] { EXPECT_THAT(pool.Acquire(), IsOk()); });
  other.join();
  Pool another(Options(1));
  EXPECT_THAT(another.Acquire(), IsOk());
}

TEST_F(PoolTest, AThreadMayAcquireAgainOnceItsConnectionIsBackWhoeverReturnedIt) {
  Pool pool(Options(2));
  { ASSERT_THAT(pool.Acquire(), IsOk()); }
  EXPECT_THAT(pool.Acquire(), IsOk());
  // A handle given to another thread and released there still frees the thread that took it.
  auto held = std::make_unique<Pool::Handle>(*pool.Acquire());
  std::thread([&held] { held.reset(); }).join();
  EXPECT_THAT(pool.Acquire(), IsOk());
}

TEST_F(PoolTest, TransactionsRollBackUnlessCommitted) {
  Pool pool(Options());
  {
    auto conn = pool.Acquire();
    ASSERT_THAT((*conn)->Exec("CREATE TABLE t (v int)"), IsOk());
  }
  {
    auto conn = pool.Acquire();
    auto tx = Transaction::Begin(**conn);
    ASSERT_THAT(tx, IsOk());
    ASSERT_THAT(tx->Exec("INSERT INTO t VALUES (1)"), IsOk());
  }  // dropped: rolled back
  EXPECT_EQ(Count(pool, "t"), 0);
  {
    auto conn = pool.Acquire();
    auto tx = Transaction::Begin(**conn);
    ASSERT_THAT(tx->Exec("INSERT INTO t VALUES (2)"), IsOk());
    ASSERT_THAT(tx->Commit(), IsOk());
  }
  EXPECT_EQ(Count(pool, "t"), 1);
}

TEST_F(PoolTest, CommitAfterAFailedStatementReportsTheRollback) {
  Pool pool(Options());
  auto conn = pool.Acquire();
  ASSERT_THAT((*conn)->Exec("CREATE TABLE u (v int PRIMARY KEY)"), IsOk());
  auto tx = Transaction::Begin(**conn);
  ASSERT_THAT(tx->Exec("INSERT INTO u VALUES (1)"), IsOk());
  EXPECT_TRUE(tx->usable());
  EXPECT_THAT(tx->Exec("SELECT 1/0"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_FALSE(tx->usable());  // the server takes nothing but ROLLBACK now
  EXPECT_THAT(tx->Commit(), StatusIs(absl::StatusCode::kAborted));
  EXPECT_FALSE(tx->usable());
}

TEST_F(PoolTest, StatementTimeoutIsEnforced) {
  PoolOptions options = Options();
  options.connect.statement_timeout = absl::Milliseconds(100);
  Pool pool(options);
  auto conn = pool.Acquire();
  ASSERT_THAT(conn, IsOk());
  EXPECT_THAT((*conn)->Exec("SELECT pg_sleep(1)"), StatusIs(absl::StatusCode::kDeadlineExceeded));
}

TEST_F(PoolTest, SessionsCommitSynchronouslyWhateverTheServerDefault) {
  Pool pool(Options());
  auto conn = pool.Acquire();
  const std::string database = dsn().substr(dsn().rfind('=') + 1);
  ASSERT_THAT((*conn)->Exec("ALTER DATABASE " + QuoteIdentifier(database) +
                            " SET synchronous_commit = off"),
              IsOk());
  Pool fresh(Options());
  auto other = fresh.Acquire();
  auto setting = (*other)->Exec("SHOW synchronous_commit");
  ASSERT_THAT(setting, IsOk());
  EXPECT_EQ(setting->Get(0, 0), "on");
}

TEST_F(PoolTest, HealsAfterTheServerRestarts) {
  Pool pool(Options());
  ASSERT_THAT((*pool.Acquire())->Exec("SELECT 1"), IsOk());
  ASSERT_THAT(Server()->StopServer(), IsOk());
  {
    auto conn = pool.Acquire();  // the idle connection is stale: its use fails, not crashes
    if (conn.ok()) {
      EXPECT_THAT((*conn)->Exec("SELECT 1"), StatusIs(absl::StatusCode::kUnavailable));
    }
  }
  EXPECT_THAT(pool.Acquire(), StatusIs(absl::StatusCode::kUnavailable));
  ASSERT_THAT(Server()->StartAgain(), IsOk());
  auto conn = pool.Acquire();
  ASSERT_THAT(conn, IsOk());
  EXPECT_THAT((*conn)->Exec("SELECT 1"), IsOk());
}

}  // namespace
}  // namespace assisted::pg
