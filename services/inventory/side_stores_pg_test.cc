#include "services/inventory/side_stores.h"

#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/resource_store.h"
#include "services/inventory/store_test_base.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

class SideStoresTest : public InventoryDbTest {
 protected:
  void SetUp() override {
    InventoryDbTest::SetUp();
    resources_ = std::make_unique<ResourceStore>(*pool_, Validators{});
    events_ = std::make_unique<EventStore>(*pool_);
    artifacts_ = std::make_unique<ArtifactStore>(*pool_, 1 << 20);
    leases_ = std::make_unique<LeaseStore>(*pool_);
    v1::CreateClusterRequest create;
    create.mutable_cluster()->set_name("c");
    auto cluster = resources_->CreateCluster(alice_, create);
    ASSERT_THAT(cluster, IsOk());
    cluster_id_ = cluster->id();
  }

  absl::StatusOr<v1::ArtifactInfo> Put(const std::string& content, int64_t offset = 0,
                                       bool partial = false, const Caller* caller = nullptr) {
    v1::PutArtifactRequest request;
    request.set_cluster_id(cluster_id_);
    request.set_name("logs/host.tar.gz");
    request.set_kind(v1::ARTIFACT_KIND_LOGS);
    request.set_content(content);
    request.set_offset(offset);
    request.set_partial(partial);
    return artifacts_->Put(caller != nullptr ? *caller : alice_, request);
  }

  absl::StatusOr<std::string> Read(const std::string& name = "logs/host.tar.gz") {
    v1::GetArtifactRequest request;
    request.set_cluster_id(cluster_id_);
    request.set_name(name);
    absl::StatusOr<v1::Artifact> artifact = artifacts_->Get(alice_, request);
    if (!artifact.ok()) return artifact.status();
    return artifact->content();
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
    v1::ListEventsRequest list;
    list.set_cluster_id(cluster_id_);
    list.set_limit(1);
    absl::StatusOr<v1::ListEventsResponse> listed = events_->List(alice_, list);
    EXPECT_THAT(listed, IsOk());
    return listed.ok() ? listed->total_count() : -1;
  }

  absl::StatusOr<v1::LeaseResponse> Lease(const std::string& holder, v1::LeaseAction action,
                                          absl::Duration ttl = absl::Seconds(30)) {
    v1::LeaseRequest request;
    request.set_name("orchestrator-leader");
    request.set_holder(holder);
    request.set_action(action);
    request.mutable_ttl()->set_seconds(absl::ToInt64Seconds(ttl));
    request.mutable_ttl()->set_nanos(absl::ToInt64Nanoseconds(ttl % absl::Seconds(1)));
    return leases_->Lease(request);
  }

  const Caller alice_ = Caller::User("alice", "org-a");
  const Caller bob_ = Caller::User("bob", "org-b");
  std::string cluster_id_;
  std::unique_ptr<ResourceStore> resources_;
  std::unique_ptr<EventStore> events_;
  std::unique_ptr<ArtifactStore> artifacts_;
  std::unique_ptr<LeaseStore> leases_;
};

TEST_F(SideStoresTest, ServiceEventsBelongToTheirClustersOwner) {
  // The orchestrator records events as a system caller with no owner: the cluster's owner must
  // see them, other tenants must not.
  v1::AppendEventRequest request;
  request.mutable_event()->set_cluster_id(cluster_id_);
  request.mutable_event()->set_severity(types::v1::EVENT_SEVERITY_INFO);
  request.mutable_event()->set_message("Host master-0: updated status from known to installing");
  auto event = events_->Append(Caller::System(), request);
  ASSERT_THAT(event, IsOk());
  EXPECT_EQ(event->owner().user_name(), "alice");
  EXPECT_EQ(event->owner().org_id(), "org-a");
  v1::ListEventsRequest list;
  list.set_cluster_id(cluster_id_);
  auto seen = events_->List(alice_, list);
  ASSERT_THAT(seen, IsOk());
  EXPECT_EQ(seen->events_size(), 1);
  EXPECT_EQ(events_->List(bob_, list)->events_size(), 0);
  // An explicit owner from a system caller stands; no cluster and no owner stays unowned.
  request.mutable_event()->clear_cluster_id();
  auto orphan = events_->Append(Caller::System(), request);
  ASSERT_THAT(orphan, IsOk());
  EXPECT_EQ(orphan->owner().user_name(), "");
}

TEST_F(SideStoresTest, EventsAreFilteredOrderedAndCounted) {
  const std::string host = Uuid(9, 1);
  for (int i = 0; i < 5; ++i) {
    v1::AppendEventRequest request;
    request.mutable_event()->set_cluster_id(cluster_id_);
    if (i % 2 == 1) request.mutable_event()->set_host_id(host);
    request.mutable_event()->set_severity(i == 4 ? types::v1::EVENT_SEVERITY_ERROR
                                                 : types::v1::EVENT_SEVERITY_INFO);
    request.mutable_event()->set_message(absl::StrCat("Event number ", i));
    auto event = events_->Append(alice_, request);
    ASSERT_THAT(event, IsOk());
    EXPECT_GT(event->id(), 0);
    EXPECT_TRUE(event->has_event_time());
  }
  v1::ListEventsRequest list;
  list.set_cluster_id(cluster_id_);
  auto all = events_->List(alice_, list);
  ASSERT_THAT(all, IsOk());
  ASSERT_EQ(all->events_size(), 5);
  EXPECT_EQ(all->events(0).message(), "Event number 0");
  EXPECT_EQ(all->total_count(), 5);
  list.set_order(v1::SORT_ORDER_DESC);
  list.set_limit(2);
  list.set_offset(1);
  auto window = events_->List(alice_, list);
  ASSERT_THAT(window, IsOk());
  ASSERT_EQ(window->events_size(), 2);
  EXPECT_EQ(window->events(0).message(), "Event number 3");
  EXPECT_EQ(window->total_count(), 5);
  v1::ListEventsRequest filtered;
  filtered.set_cluster_id(cluster_id_);
  filtered.add_severities(types::v1::EVENT_SEVERITY_ERROR);
  EXPECT_EQ(events_->List(alice_, filtered)->events_size(), 1);
  filtered.clear_severities();
  filtered.set_host_id(host);
  EXPECT_EQ(events_->List(alice_, filtered)->events_size(), 2);
  filtered.clear_host_id();
  filtered.set_cluster_level(true);
  EXPECT_EQ(events_->List(alice_, filtered)->events_size(), 3);
  filtered.set_message("NUMBER 4");
  EXPECT_EQ(events_->List(alice_, filtered)->events_size(), 1);
  EXPECT_EQ(events_->List(bob_, list)->events_size(), 0);
}

// A page of events is bounded whatever the caller asks: "all" (-1) and limits beyond the maximum
// get the maximum, and total_count tells how many there are to page through with offset.
TEST_F(SideStoresTest, AnEventsPageIsClampedToTheMaximum) {
  InsertEvents(kMaxEventsPerPage + 7, absl::ZeroDuration());
  v1::ListEventsRequest list;
  list.set_cluster_id(cluster_id_);
  for (int limit : {-1, 0, kMaxEventsPerPage + 1, 1 << 30}) {
    list.set_limit(limit);
    absl::StatusOr<v1::ListEventsResponse> page = events_->List(alice_, list);
    ASSERT_THAT(page, IsOk());
    EXPECT_EQ(page->events_size(), kMaxEventsPerPage) << "limit " << limit;
    EXPECT_EQ(page->total_count(), kMaxEventsPerPage + 7) << "limit " << limit;
  }
  list.set_limit(-1);
  list.set_offset(kMaxEventsPerPage);
  absl::StatusOr<v1::ListEventsResponse> rest = events_->List(alice_, list);
  ASSERT_THAT(rest, IsOk());
  EXPECT_EQ(rest->events_size(), 7);
  list.set_limit(-2);
  EXPECT_THAT(events_->List(alice_, list), StatusIs(absl::StatusCode::kInvalidArgument));
}

// Retention deletes events older than the cut, oldest first, in batches of bounded size: one pass
// removes at most batch * max_batches events and the next pass carries on.
TEST_F(SideStoresTest, EventsPastTheRetentionArePrunedInBoundedBatches) {
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

TEST_F(SideStoresTest, EventsNeedAMessageAndSeverity) {
  v1::AppendEventRequest request;
  EXPECT_THAT(events_->Append(alice_, request),
              StatusIs(absl::StatusCode::kInvalidArgument, "event.message: required"));
}

TEST_F(SideStoresTest, ArtifactsHoldBinaryContentAndGrowByChunks) {
  const std::string binary("\0\1\2\xff\x00zz", 7);
  auto first = Put(binary, 0, /*partial=*/true);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->size_bytes(), 7);
  EXPECT_TRUE(first->partial());
  auto second = Put("tail", 7);
  ASSERT_THAT(second, IsOk());
  EXPECT_FALSE(second->partial());
  EXPECT_THAT(Read(), IsOkAndHolds(binary + "tail"));
  // Writing the same chunk again is harmless.
  ASSERT_THAT(Put("tail", 7), IsOk());
  EXPECT_THAT(Read(), IsOkAndHolds(binary + "tail"));
  EXPECT_EQ(second->sha256().size(), 64u);
  EXPECT_THAT(Put("x", 100), StatusIs(absl::StatusCode::kFailedPrecondition,
                                      HasSubstr("holds 11 bytes, cannot write at 100")));
}

// Large artifacts are read in ranges, so that no message or buffer holds one whole; reading
// without a range still returns everything, as callers that predate ranges expect.
TEST_F(SideStoresTest, ArtifactsAreReadInRanges) {
  std::string content;
  for (int i = 0; i < 1000; ++i) content += static_cast<char>(i * 7);
  ASSERT_THAT(Put(content), IsOk());
  v1::GetArtifactRequest request;
  request.set_cluster_id(cluster_id_);
  request.set_name("logs/host.tar.gz");
  std::string reassembled;
  for (int64_t offset = 0; offset < 1000; offset += 300) {
    request.set_offset(offset);
    request.set_length(300);
    absl::StatusOr<v1::Artifact> chunk = artifacts_->Get(alice_, request);
    ASSERT_THAT(chunk, IsOk());
    EXPECT_EQ(chunk->content().size(), offset + 300 <= 1000 ? 300u : 1000u - offset);
    EXPECT_EQ(chunk->info().size_bytes(), 1000);  // the whole artifact's size, for the reader
    EXPECT_EQ(chunk->info().sha256().empty(), offset > 0);  // hashed on the first chunk only
    reassembled += chunk->content();
  }
  EXPECT_TRUE(reassembled == content);
  request.set_offset(900);
  request.set_length(0);  // to the end
  EXPECT_THAT(artifacts_->Get(alice_, request)->content(), content.substr(900));
  request.set_offset(1000);  // at the end: nothing more
  EXPECT_THAT(artifacts_->Get(alice_, request)->content(), "");
  request.set_offset(1001);
  EXPECT_THAT(artifacts_->Get(alice_, request),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("1000 bytes")));
  request.set_offset(-1);
  EXPECT_THAT(artifacts_->Get(alice_, request), StatusIs(absl::StatusCode::kInvalidArgument));
  request.set_offset(0);
  request.set_length(-5);
  EXPECT_THAT(artifacts_->Get(alice_, request), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Read(), IsOkAndHolds(content));
}

TEST_F(SideStoresTest, ArtifactsAreBoundedScopedAndDeletable) {
  EXPECT_THAT(Put(std::string((1 << 20) + 1, 'x')), StatusIs(absl::StatusCode::kResourceExhausted));
  ASSERT_THAT(Put("content"), IsOk());
  EXPECT_THAT(Put("evil", 0, false, &bob_), StatusIs(absl::StatusCode::kNotFound));
  v1::ListArtifactsRequest list;
  list.set_cluster_id(cluster_id_);
  list.set_name_prefix("logs/");
  EXPECT_EQ(artifacts_->List(alice_, list)->artifacts_size(), 1);
  v1::DeleteArtifactsRequest remove;
  remove.set_cluster_id(cluster_id_);
  remove.add_kinds(v1::ARTIFACT_KIND_LOGS);
  EXPECT_EQ(artifacts_->Delete(alice_, remove)->deleted_count(), 1);
  EXPECT_THAT(Read(), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(SideStoresTest, LeaseChangesHandsOnlyWhenFreeAndBumpsTheEpochThen) {
  auto a = Lease("replica-a", v1::LEASE_ACTION_ACQUIRE);
  ASSERT_THAT(a, IsOk());
  EXPECT_TRUE(a->granted());
  EXPECT_EQ(a->epoch(), 1);
  auto b = Lease("replica-b", v1::LEASE_ACTION_ACQUIRE);
  ASSERT_THAT(b, IsOk());
  EXPECT_FALSE(b->granted());
  EXPECT_EQ(b->holder(), "replica-a");
  auto renewed = Lease("replica-a", v1::LEASE_ACTION_RENEW);
  EXPECT_TRUE(renewed->granted());
  EXPECT_EQ(renewed->epoch(), 1);
  EXPECT_TRUE(Lease("replica-a", v1::LEASE_ACTION_RELEASE)->granted());
  auto taken = Lease("replica-b", v1::LEASE_ACTION_ACQUIRE);
  EXPECT_TRUE(taken->granted());
  EXPECT_EQ(taken->epoch(), 2);
  EXPECT_FALSE(Lease("replica-a", v1::LEASE_ACTION_RENEW)->granted());
}

TEST_F(SideStoresTest, AnExpiredLeaseIsTakenOver) {
  ASSERT_TRUE(Lease("replica-a", v1::LEASE_ACTION_ACQUIRE, absl::Milliseconds(50))->granted());
  absl::SleepFor(absl::Milliseconds(100));
  auto b = Lease("replica-b", v1::LEASE_ACTION_ACQUIRE);
  EXPECT_TRUE(b->granted());
  EXPECT_EQ(b->epoch(), 2);
}

TEST_F(SideStoresTest, WritesFromADeposedLeaderAreFencedOff) {
  auto a = Lease("replica-a", v1::LEASE_ACTION_ACQUIRE, absl::Milliseconds(50));
  ASSERT_TRUE(a->granted());
  v1::UpdateClusterStatusRequest write;
  write.set_id(cluster_id_);
  write.set_expected_status(types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT);
  write.set_new_status(types::v1::CLUSTER_STATUS_INSUFFICIENT);
  write.mutable_fence()->set_name("orchestrator-leader");
  write.mutable_fence()->set_epoch(a->epoch());
  absl::SleepFor(absl::Milliseconds(100));
  auto b = Lease("replica-b", v1::LEASE_ACTION_ACQUIRE);
  ASSERT_TRUE(b->granted());
  EXPECT_THAT(resources_->UpdateClusterStatus(Caller::System(), write),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("epoch 2")));
  write.mutable_fence()->set_epoch(b->epoch());
  EXPECT_THAT(resources_->UpdateClusterStatus(Caller::System(), write), IsOk());
  write.mutable_fence()->set_name("no-such-lease");
  EXPECT_THAT(resources_->UpdateClusterStatus(Caller::System(), write),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST_F(SideStoresTest, LeaseRequestsAreValidated) {
  v1::LeaseRequest request;
  EXPECT_THAT(leases_->Lease(request),
              StatusIs(absl::StatusCode::kInvalidArgument, "name: required"));
  request.set_name("x");
  request.set_holder("h");
  request.set_action(v1::LEASE_ACTION_ACQUIRE);
  EXPECT_THAT(leases_->Lease(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ttl")));
}

}  // namespace
}  // namespace assisted::inventory
