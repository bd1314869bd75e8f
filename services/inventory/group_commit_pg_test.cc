#include "services/inventory/group_commit.h"

#include <set>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/change_feed.h"
#include "services/inventory/store_test_base.h"
#include "tests/harness/eventually.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::Eventually;
using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using types::v1::Host;
using types::v1::InfraEnv;

constexpr int kCallers = 12;

class GroupCommitTest : public ResourceStoresTest {
 protected:
  void SetUp() override {
    ResourceStoresTest::SetUp();
    // One transaction at a time: writes arriving while it is open all wait for the next one.
    committer_ = std::make_unique<GroupCommitter>(
        *pool_, GroupCommitOptions{.max_batch = 64, .max_batches_in_flight = 1});
    hosts_ =
        std::make_unique<HostStore>(*pool_, ResourceStoreOptions{.group_commit = committer_.get()});
    infra_env_ = NewInfraEnv(alice_);
  }

  // Runs `writes` from a thread each while a first write holds the committer's one transaction
  // open, and lets it commit only once all of them wait: they then go in one batch.
  void AllInOneBatch(const std::vector<std::function<void()>>& writes) {
    absl::Notification holding;
    absl::Notification all_waiting;
    std::thread holder([&] {
      EXPECT_THAT(committer_->Run("",
                                  [&](pg::Connection&) {
                                    holding.Notify();
                                    all_waiting.WaitForNotification();
                                    return absl::OkStatus();
                                  }),
                  IsOk());
    });
    holding.WaitForNotification();
    std::vector<std::thread> threads;
    for (const auto& write : writes) threads.emplace_back(write);
    EXPECT_TRUE(Eventually([&] { return committer_->waiting() == static_cast<int>(writes.size()); },
                           absl::Seconds(30), "every write waiting for the open transaction"));
    all_waiting.Notify();
    holder.join();
    for (auto& thread : threads) thread.join();
  }

  Host NewHostRequest(int n) const {
    Host host;
    host.set_id(Uuid(7, n));
    host.set_infra_env_id(infra_env_.id());
    host.set_requested_hostname(absl::StrCat("host-", n));
    return host;
  }

  // How many transactions wrote the hosts of the test's infra-env (rows written in one share
  // their xmin).
  int64_t TransactionsThatWroteHosts() {
    auto connection = pool_->Acquire();
    EXPECT_TRUE(connection.ok()) << connection.status();
    auto rows =
        (*connection)
            ->Exec("SELECT count(DISTINCT xmin::text) FROM hosts WHERE infra_env_id = $1::uuid",
                   {infra_env_.id()});
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? ToInt64(rows->Get(0, 0)) : -1;
  }

  // The ids of the hosts the change feed reports, in feed order, after numbering what waits.
  std::vector<std::string> HostsInTheFeed() {
    EXPECT_THAT(SequencePending(*pool_).status(), IsOk());
    absl::StatusOr<int64_t> head = HeadSeq(*pool_);
    EXPECT_THAT(head.status(), IsOk());
    v1::WatchFilter filter;
    filter.add_kinds(v1::RESOURCE_KIND_HOST);
    auto events = ReadChanges(*pool_, 0, head.value_or(0), filter, 10000);
    EXPECT_THAT(events.status(), IsOk());
    std::vector<std::string> ids;
    if (events.ok()) {
      for (const v1::WatchEvent& event : *events) ids.push_back(event.id());
    }
    return ids;
  }

  std::unique_ptr<GroupCommitter> committer_;
  InfraEnv infra_env_;
};

TEST_F(GroupCommitTest, ConcurrentRegistrationsShareOneCommitAndEachIsInTheFeedOnce) {
  std::vector<absl::StatusOr<Host>> created(kCallers);
  std::vector<std::function<void()>> writes;
  for (int i = 0; i < kCallers; ++i) {
    writes.push_back([&, i] { created[i] = hosts_->Create(alice_, NewHostRequest(i)); });
  }
  AllInOneBatch(writes);
  for (int i = 0; i < kCallers; ++i) {
    ASSERT_THAT(created[i], IsOk()) << i;
    EXPECT_EQ(created[i]->id(), Uuid(7, i));
    EXPECT_EQ(created[i]->resource_version(), 1);
  }
  // The holder's transaction, then one for all of them.
  EXPECT_EQ(committer_->counts().transactions, 2);
  EXPECT_EQ(committer_->counts().writes, kCallers + 1);
  EXPECT_EQ(TransactionsThatWroteHosts(), 1);
  const std::vector<std::string> feed = HostsInTheFeed();
  EXPECT_EQ(feed.size(), static_cast<size_t>(kCallers));
  EXPECT_EQ(std::set<std::string>(feed.begin(), feed.end()).size(), static_cast<size_t>(kCallers));
  for (int i = 0; i < kCallers; ++i) {
    EXPECT_THAT(hosts_->Get(alice_, {infra_env_.id(), Uuid(7, i)}), IsOk()) << i;
  }
}

TEST_F(GroupCommitTest, AWriteThatBreaksTheTransactionFailsAloneAndTheOthersCommit) {
  std::vector<absl::StatusOr<Host>> created(kCallers);
  absl::Status broken;
  std::vector<std::function<void()>> writes;
  for (int i = 0; i < kCallers; ++i) {
    writes.push_back([&, i] { created[i] = hosts_->Create(alice_, NewHostRequest(i)); });
  }
  writes.push_back([&] {
    broken = committer_->Run("", [](pg::Connection& db) {
      return db.Exec("SELECT 1 / 0").status();  // division_by_zero: the transaction is void
    });
  });
  AllInOneBatch(writes);
  EXPECT_THAT(broken, StatusIs(absl::StatusCode::kInvalidArgument));
  for (int i = 0; i < kCallers; ++i) {
    ASSERT_THAT(created[i], IsOk()) << i;
    EXPECT_EQ(created[i]->resource_version(), 1);
  }
  EXPECT_EQ(committer_->counts().retried_alone, kCallers + 1);
  const std::vector<std::string> feed = HostsInTheFeed();
  EXPECT_EQ(std::set<std::string>(feed.begin(), feed.end()).size(), feed.size());
  EXPECT_EQ(feed.size(), static_cast<size_t>(kCallers));
}

TEST_F(GroupCommitTest, ARefusedWriteIsAnsweredWithItsRefusalAndTheBatchStillCommits) {
  // Each host registered, then: every host's status changed at once, one of them expecting a
  // status it is not in, and one host registered again with different content.
  for (int i = 0; i < kCallers; ++i) ASSERT_THAT(hosts_->Create(alice_, NewHostRequest(i)), IsOk());
  std::vector<absl::StatusOr<Host>> changed(kCallers);
  absl::StatusOr<Host> conflicting;
  std::vector<std::function<void()>> writes;
  for (int i = 0; i < kCallers; ++i) {
    writes.push_back([&, i] {
      HostStatusChange change{.expected = i == 0 ? types::v1::HOST_STATUS_KNOWN_UNBOUND
                                                 : types::v1::HOST_STATUS_DISCOVERING_UNBOUND,
                              .next = types::v1::HOST_STATUS_INSUFFICIENT_UNBOUND,
                              .info = "disk too small"};
      changed[i] = hosts_->UpdateStatus(alice_, {infra_env_.id(), Uuid(7, i)}, change);
    });
  }
  writes.push_back([&] {
    Host other = NewHostRequest(1);
    other.set_requested_hostname("someone-else");
    conflicting = hosts_->Create(alice_, other);
  });
  const int64_t before = committer_->counts().transactions;
  AllInOneBatch(writes);
  EXPECT_THAT(changed[0], StatusIs(absl::StatusCode::kAborted));
  EXPECT_THAT(conflicting, StatusIs(absl::StatusCode::kAlreadyExists));
  for (int i = 1; i < kCallers; ++i) {
    ASSERT_THAT(changed[i], IsOk()) << i;
    EXPECT_EQ(changed[i]->status(), types::v1::HOST_STATUS_INSUFFICIENT_UNBOUND);
    EXPECT_EQ(changed[i]->resource_version(), 2);
  }
  EXPECT_EQ(committer_->counts().transactions - before, 2);  // the holder's and theirs
  EXPECT_EQ(committer_->counts().retried_alone, 0);
  auto untouched = hosts_->Get(alice_, {infra_env_.id(), Uuid(7, 0)});
  ASSERT_THAT(untouched, IsOk());
  EXPECT_EQ(untouched->status(), types::v1::HOST_STATUS_DISCOVERING_UNBOUND);
  EXPECT_EQ(untouched->resource_version(), 1);
}

TEST_F(GroupCommitTest, ALoneWriteIsItsOwnTransaction) {
  ASSERT_THAT(hosts_->Create(alice_, NewHostRequest(1)), IsOk());
  EXPECT_EQ(committer_->counts().transactions, 1);
  EXPECT_EQ(committer_->counts().writes, 1);
}

}  // namespace
}  // namespace assisted::inventory
