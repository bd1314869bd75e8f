#include "services/inventory/event_store.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/store_test_base.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;

class EventStoreTest : public InventoryDbTest {
 protected:
  void SetUp() override {
    InventoryDbTest::SetUp();
    cluster_id_ = CreateCluster(alice_);
    ASSERT_FALSE(cluster_id_.empty());
    events_ = std::make_unique<EventStore>(*pool_);
  }

  // Inserts `count` events of the test cluster, owned by alice, that happened `age` ago; straight
  // in SQL, so that thousands take no time.
  void InsertEvents(int count, absl::Duration age) {
    absl::StatusOr<pg::Pool::Handle> connection = pool_->Acquire();
    ASSERT_THAT(connection, IsOk());
    ASSERT_THAT(
        (*connection)
            ->Exec("INSERT INTO events (cluster_id, owner_user, owner_org, severity, "
                   "category, message, event_time, doc) SELECT $1::uuid, 'alice', "
                   "'org-a', 'EVENT_SEVERITY_INFO', 'EVENT_CATEGORY_USER', 'bulk ' || n, "
                   "now() - $2::bigint * interval '1 second', "
                   "jsonb_build_object('message', 'bulk ' || n) "
                   "FROM generate_series(1, $3::int) n",
                   {cluster_id_, absl::StrCat(absl::ToInt64Seconds(age)), absl::StrCat(count)}),
        IsOk());
  }

  int64_t CountEvents() {
    absl::StatusOr<v1::ListEventsResponse> listed =
        events_->List(alice_, {.cluster_id = cluster_id_, .limit = 1});
    EXPECT_THAT(listed, IsOk());
    return listed.ok() ? listed->total_count() : -1;
  }

  const Caller alice_ = Caller::User("alice", "org-a");
  const Caller bob_ = Caller::User("bob", "org-b");
  std::string cluster_id_;
  std::unique_ptr<EventStore> events_;
};

TEST_F(EventStoreTest, ServiceEventsBelongToTheirClustersOwner) {
  // The orchestrator records events as a system caller with no owner: the cluster's owner must
  // see them, other tenants must not.
  types::v1::Event event;
  event.set_cluster_id(cluster_id_);
  event.set_severity(types::v1::EVENT_SEVERITY_INFO);
  event.set_message("Host master-0: updated status from known to installing");
  auto appended = events_->Append(Caller::System(), event);
  ASSERT_THAT(appended, IsOk());
  EXPECT_EQ(appended->owner().user_name(), "alice");
  EXPECT_EQ(appended->owner().org_id(), "org-a");
  EventQuery list{.cluster_id = cluster_id_};
  auto seen = events_->List(alice_, list);
  ASSERT_THAT(seen, IsOk());
  EXPECT_EQ(seen->events_size(), 1);
  EXPECT_EQ(events_->List(bob_, list)->events_size(), 0);
  // An explicit owner from a system caller stands; no cluster and no owner stays unowned.
  event.clear_cluster_id();
  auto orphan = events_->Append(Caller::System(), event);
  ASSERT_THAT(orphan, IsOk());
  EXPECT_EQ(orphan->owner().user_name(), "");
}

TEST_F(EventStoreTest, EventsAreFilteredOrderedAndCounted) {
  const std::string host = Uuid(9, 1);
  for (int i = 0; i < 5; ++i) {
    types::v1::Event event;
    event.set_cluster_id(cluster_id_);
    if (i % 2 == 1) event.set_host_id(host);
    event.set_severity(i == 4 ? types::v1::EVENT_SEVERITY_ERROR : types::v1::EVENT_SEVERITY_INFO);
    event.set_message(absl::StrCat("Event number ", i));
    // As the orchestrator records them (the host need not be stored; the cluster's owner owns
    // the event).
    auto appended = events_->Append(Caller::System(), event);
    ASSERT_THAT(appended, IsOk());
    EXPECT_GT(appended->id(), 0);
    EXPECT_TRUE(appended->has_event_time());
  }
  EventQuery list{.cluster_id = cluster_id_};
  auto all = events_->List(alice_, list);
  ASSERT_THAT(all, IsOk());
  ASSERT_EQ(all->events_size(), 5);
  EXPECT_EQ(all->events(0).message(), "Event number 0");
  EXPECT_EQ(all->total_count(), 5);
  list.newest_first = true;
  list.limit = 2;
  list.offset = 1;
  auto window = events_->List(alice_, list);
  ASSERT_THAT(window, IsOk());
  ASSERT_EQ(window->events_size(), 2);
  EXPECT_EQ(window->events(0).message(), "Event number 3");
  EXPECT_EQ(window->total_count(), 5);
  EventQuery filtered{.cluster_id = cluster_id_};
  filtered.severities = {types::v1::EVENT_SEVERITY_ERROR};
  EXPECT_EQ(events_->List(alice_, filtered)->events_size(), 1);
  filtered.severities.clear();
  filtered.host_id = host;
  EXPECT_EQ(events_->List(alice_, filtered)->events_size(), 2);
  filtered.host_id.clear();
  filtered.cluster_level = true;
  EXPECT_EQ(events_->List(alice_, filtered)->events_size(), 3);
  filtered.message = "NUMBER 4";
  EXPECT_EQ(events_->List(alice_, filtered)->events_size(), 1);
  EXPECT_EQ(events_->List(bob_, list)->events_size(), 0);
}

// A page of events is bounded whatever the caller asks: "all" (-1) and limits beyond the maximum
// get the maximum, and total_count tells how many there are to page through with offset.
TEST_F(EventStoreTest, AnEventsPageIsClampedToTheMaximum) {
  InsertEvents(kMaxEventsPerPage + 7, absl::ZeroDuration());
  EventQuery list{.cluster_id = cluster_id_};
  for (int limit : {-1, 0, kMaxEventsPerPage + 1, 1 << 30}) {
    list.limit = limit;
    absl::StatusOr<v1::ListEventsResponse> page = events_->List(alice_, list);
    ASSERT_THAT(page, IsOk());
    EXPECT_EQ(page->events_size(), kMaxEventsPerPage) << "limit " << limit;
    EXPECT_EQ(page->total_count(), kMaxEventsPerPage + 7) << "limit " << limit;
  }
  list.limit = -1;
  list.offset = kMaxEventsPerPage;
  absl::StatusOr<v1::ListEventsResponse> rest = events_->List(alice_, list);
  ASSERT_THAT(rest, IsOk());
  EXPECT_EQ(rest->events_size(), 7);
  list.limit = -2;
  EXPECT_THAT(events_->List(alice_, list), StatusIs(absl::StatusCode::kInvalidArgument));
}

// Retention deletes events older than the cut, oldest first, in batches of bounded size: one pass
// removes at most batch * max_batches events and the next pass carries on.
TEST_F(EventStoreTest, EventsPastTheRetentionArePrunedInBoundedBatches) {
  InsertEvents(5, absl::Hours(24 * 40));
  InsertEvents(3, absl::Hours(1));
  ASSERT_EQ(CountEvents(), 8);
  const EventPruning pruning{.older_than = absl::Hours(24 * 30), .batch = 2, .max_batches = 2};
  EXPECT_THAT(PruneEvents(*pool_, pruning), IsOkAndHolds(4));
  EXPECT_EQ(CountEvents(), 4);
  EXPECT_THAT(PruneEvents(*pool_, pruning), IsOkAndHolds(1));
  EXPECT_THAT(PruneEvents(*pool_, pruning), IsOkAndHolds(0));
  EXPECT_EQ(CountEvents(), 3);  // the recent ones stay
}

// The attack: a tenant writing events into another tenant's cluster (or onto its infra-env or
// host, or a resource that does not exist) is NOT_FOUND, and nothing is stored.
TEST_F(EventStoreTest, AUserRecordsEventsOnlyOnTheirOwnResources) {
  types::v1::Event event;
  event.set_severity(types::v1::EVENT_SEVERITY_WARNING);
  event.set_message("hello from a user");
  event.set_cluster_id(cluster_id_);
  EXPECT_THAT(events_->Append(bob_, event),
              StatusIs(absl::StatusCode::kNotFound, "event.cluster_id: no such resource"));
  for (const auto& [field, id] :
       {std::pair{"infra_env_id", Uuid(2, 7)}, std::pair{"host_id", Uuid(3, 7)}}) {
    types::v1::Event stray = event;
    stray.clear_cluster_id();
    if (std::string(field) == "infra_env_id") stray.set_infra_env_id(id);
    if (std::string(field) == "host_id") stray.set_host_id(id);
    EXPECT_THAT(events_->Append(alice_, stray),
                StatusIs(absl::StatusCode::kNotFound, ::testing::HasSubstr(field)));
  }
  EXPECT_EQ(CountEvents(), 0);
  ASSERT_THAT(events_->Append(alice_, event), IsOk());
  EXPECT_EQ(CountEvents(), 1);
  // The same owner in another organisation is not the same tenant.
  EXPECT_THAT(events_->Append(Caller::User("alice", "org-b"), event),
              StatusIs(absl::StatusCode::kNotFound));
  ExecSql("UPDATE clusters SET deleted_at = now()");
  EXPECT_THAT(events_->Append(alice_, event), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(EventStoreTest, EventsNeedAMessageAndSeverity) {
  EXPECT_THAT(events_->Append(alice_, types::v1::Event()),
              StatusIs(absl::StatusCode::kInvalidArgument, "event.message: required"));
}

}  // namespace
}  // namespace assisted::inventory
