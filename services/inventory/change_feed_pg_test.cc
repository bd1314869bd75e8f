#include "services/inventory/change_feed.h"

#include <atomic>
#include <set>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/cluster_store.h"
#include "services/inventory/store_test_base.h"
#include "tests/harness/eventually.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;

class ChangeFeedTest : public InventoryDbTest {
 protected:
  void SetUp() override {
    InventoryDbTest::SetUp();
    clusters_ = std::make_unique<ClusterStore>(*pool_);
  }

  std::string NewCluster() {
    types::v1::Cluster to_be;
    to_be.set_name("c");
    auto cluster = clusters_->Create(Caller::System(), to_be);
    EXPECT_THAT(cluster, IsOk());
    return cluster.ok() ? cluster->id() : "";
  }

  std::vector<v1::WatchEvent> All(int64_t after = 0) {
    auto head = HeadSeq(*pool_);
    EXPECT_THAT(head, IsOk());
    auto events = ReadChanges(*pool_, after, *head, {}, 1'000'000);
    EXPECT_THAT(events, IsOk());
    return events.ok() ? *events : std::vector<v1::WatchEvent>();
  }

  std::unique_ptr<ClusterStore> clusters_;
};

TEST_F(ChangeFeedTest, CommittedChangesGetConsecutiveNumbersInCommitOrder) {
  const std::string id = NewCluster();
  types::v1::Cluster patch;
  patch.set_id(id);
  patch.set_name("renamed");
  google::protobuf::FieldMask mask;
  mask.add_paths("name");
  ASSERT_THAT(clusters_->Update(Caller::System(), patch, mask), IsOk());
  EXPECT_EQ(SequencePending(*pool_)->numbered, 2);
  EXPECT_EQ(SequencePending(*pool_)->numbered, 0);
  const std::vector<v1::WatchEvent> events = All();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].seq(), 1);
  EXPECT_EQ(events[0].change_type(), v1::CHANGE_TYPE_CREATED);
  EXPECT_EQ(events[0].cluster_status(), types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT);
  EXPECT_EQ(events[1].seq(), 2);
  EXPECT_EQ(events[1].resource_version(), 2);
  EXPECT_EQ(events[1].id(), id);
  EXPECT_EQ(events[1].cluster_id(), id);
}

TEST_F(ChangeFeedTest, AnUncommittedChangeHoldsBackNothingAndIsNumberedAfterItCommits) {
  NewCluster();
  // Another client's transaction that appended a change but has not committed yet.
  pg::Pool other_client({.dsn = dsn(), .max_connections = 1});
  auto slow = other_client.Acquire();
  ASSERT_THAT(slow, IsOk());
  auto tx = pg::Transaction::Begin(**slow);
  ASSERT_THAT(tx, IsOk());
  ASSERT_THAT(AppendChange(*tx, {v1::RESOURCE_KIND_CLUSTER, Uuid(5, 1), "", Uuid(5, 1), 1,
                                 v1::CHANGE_TYPE_CREATED, ""}),
              IsOk());
  NewCluster();
  ASSERT_EQ(SequencePending(*pool_)->numbered, 2);
  const int64_t seen = All().back().seq();
  ASSERT_THAT(tx->Commit(), IsOk());
  ASSERT_EQ(SequencePending(*pool_)->numbered, 1);
  // The late commit comes after everything a watcher has already seen: nothing is skipped.
  const std::vector<v1::WatchEvent> later = All(seen);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].id(), Uuid(5, 1));
  EXPECT_EQ(later[0].seq(), seen + 1);
}

TEST_F(ChangeFeedTest, ConcurrentWritersAndSequencersNumberEveryChangeOnceWithoutGaps) {
  std::vector<std::thread> threads;
  std::atomic<bool> writing{true};
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) NewCluster();
    });
  }
  for (int s = 0; s < 2; ++s) {
    threads.emplace_back([&] {
      while (writing) (void)SequencePending(*pool_);
    });
  }
  for (int w = 0; w < 4; ++w) threads[w].join();
  writing = false;
  for (size_t t = 4; t < threads.size(); ++t) threads[t].join();
  ASSERT_THAT(SequencePending(*pool_), IsOk());
  const std::vector<v1::WatchEvent> events = All();
  ASSERT_EQ(events.size(), 200u);
  for (size_t i = 0; i < events.size(); ++i)
    EXPECT_EQ(events[i].seq(), static_cast<int64_t>(i + 1));
}

TEST_F(ChangeFeedTest, TheSyncedHeadNumbersCommittedChangesAndCoversThem) {
  NewCluster();
  NewCluster();
  // Nothing numbered yet: the plain head knows of neither change.
  EXPECT_THAT(HeadSeq(*pool_), IsOkAndHolds(0));
  EXPECT_THAT(SyncedHead(*pool_), IsOkAndHolds(2));
  EXPECT_EQ(SequencePending(*pool_)->numbered, 0);
  // Nothing awaiting a number: the head as it is.
  EXPECT_THAT(SyncedHead(*pool_), IsOkAndHolds(2));
}

TEST_F(ChangeFeedTest, TheSyncedHeadWaitsForASequencerThatBeganBeforeTheChangeCommitted) {
  // Another replica's sequencer holds the lock; its numbering may predate the change below.
  pg::Pool sequencer_client({.dsn = dsn(), .max_connections = 1});
  auto connection = sequencer_client.Acquire();
  ASSERT_THAT(connection, IsOk());
  auto sequencer = pg::Transaction::Begin(**connection);
  ASSERT_THAT(sequencer, IsOk());
  ASSERT_THAT(sequencer->Exec("SELECT pg_advisory_xact_lock(7301000002)"), IsOk());
  NewCluster();
  std::atomic<bool> released{false};
  absl::StatusOr<int64_t> synced;
  std::thread reader([&] {
    synced = SyncedHead(*pool_);
    EXPECT_TRUE(released.load()) << "answered while another sequencer held the lock";
  });
  pg::Pool observer({.dsn = dsn(), .max_connections = 1});
  EXPECT_TRUE(testing::Eventually(
      [&] {
        auto look = observer.Acquire();
        if (!look.ok()) return false;
        auto waiting = (*look)->Exec(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
        return waiting.ok() && waiting->Get(0, 0) == "1";
      },
      absl::Seconds(10), "the synced head waits for the sequencer lock"));
  released = true;
  ASSERT_THAT(sequencer->Commit(), IsOk());
  reader.join();
  EXPECT_THAT(synced, IsOkAndHolds(1));
}

TEST_F(ChangeFeedTest, RetentionTrimsTheOldestAndRemembersWhere) {
  for (int i = 0; i < 1005; ++i) NewCluster();
  ASSERT_THAT(SequencePending(*pool_), IsOk());
  ASSERT_THAT(TrimChangeLog(*pool_, 1000), IsOk());
  EXPECT_THAT(PurgedThrough(*pool_), IsOkAndHolds(5));
  EXPECT_THAT(HeadSeq(*pool_), IsOkAndHolds(1005));
  EXPECT_EQ(All().front().seq(), 6);
}

TEST_F(ChangeFeedTest, SoftDeletedResourcesArePurgedOnlyAfterTheirGracePeriod) {
  const std::string id = NewCluster();
  ASSERT_THAT(clusters_->Delete(Caller::System(), id), IsOk());
  EXPECT_THAT(PurgeDeleted(*pool_, absl::Hours(72)), IsOkAndHolds(0));
  auto get = [&] {
    return clusters_->Get(Caller::System(), id, /*include_hosts=*/false,
                          /*include_deleted=*/true);
  };
  EXPECT_THAT(get(), IsOk());
  // Its deletion 73 hours ago, as the database clock sees it: past the grace period.
  ExecSql("UPDATE clusters SET deleted_at = now() - interval '73 hours' WHERE id = '" + id + "'");
  EXPECT_THAT(PurgeDeleted(*pool_, absl::Hours(72)), IsOkAndHolds(1));
  EXPECT_THAT(get(), ::assisted::testing::StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ChangeFeedTest, TheFeedPublishesNewHeadsToWaiters) {
  auto feed = ChangeFeed::Start({.dsn = dsn(), .poll_interval = absl::Seconds(30)}, *pool_,
                                log::Logger::Discard());
  ASSERT_THAT(feed, IsOk());
  const int64_t before = (*feed)->head();
  NewCluster();
  // Woken by NOTIFY, not by the 30 s poll.
  const int64_t after = (*feed)->WaitBeyond(before, absl::Now() + absl::Seconds(10));
  EXPECT_EQ(after, before + 1);
}

TEST_F(ChangeFeedTest, AWriteIsHintedToWaitersBeforeItsNumberAndThenNumbered) {
  auto feed = ChangeFeed::Start({.dsn = dsn(), .poll_interval = absl::Seconds(30)}, *pool_,
                                log::Logger::Discard());
  ASSERT_THAT(feed, IsOk());
  clusters_ = std::make_unique<ClusterStore>(
      *pool_, ResourceStoreOptions{
                  .committed = [feed = feed->get()](const Change& change) { feed->Hint(change); }});
  const int64_t head = (*feed)->head();
  uint64_t hint = (*feed)->last_hint();
  const std::string id = NewCluster();

  // The hint is there when the write returns: a waiter on it does not wait.
  const absl::Time asked = absl::Now();
  (*feed)->WaitBeyond((*feed)->head(), absl::Now() + absl::Seconds(10), hint);
  EXPECT_LT(absl::Now() - asked, absl::Seconds(5));
  v1::WatchFilter clusters;
  clusters.add_kinds(v1::RESOURCE_KIND_CLUSTER);
  const std::vector<v1::WatchEvent> hints = (*feed)->HintsAfter(&hint, clusters);
  ASSERT_EQ(hints.size(), 1u);
  EXPECT_TRUE(hints[0].hint());
  EXPECT_EQ(hints[0].seq(), 0);
  EXPECT_EQ(hints[0].id(), id);
  EXPECT_EQ(hints[0].resource_version(), 1);
  EXPECT_EQ(hints[0].change_type(), v1::CHANGE_TYPE_CREATED);
  EXPECT_EQ(hints[0].cluster_status(), types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT);
  EXPECT_EQ(hint, (*feed)->last_hint());
  v1::WatchFilter hosts;
  hosts.add_kinds(v1::RESOURCE_KIND_HOST);
  uint64_t from_start = 0;
  EXPECT_THAT((*feed)->HintsAfter(&from_start, hosts), ::testing::IsEmpty());

  // The same change then gets its number.
  EXPECT_EQ((*feed)->WaitBeyond(head, absl::Now() + absl::Seconds(10)), head + 1);
  const std::vector<v1::WatchEvent> numbered = All(head);
  ASSERT_EQ(numbered.size(), 1u);
  EXPECT_FALSE(numbered[0].hint());
  EXPECT_EQ(numbered[0].id(), id);
  EXPECT_EQ(numbered[0].resource_version(), 1);
}

}  // namespace
}  // namespace assisted::inventory
