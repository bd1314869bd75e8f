#include "services/inventory/cluster_store.h"

#include <atomic>
#include <set>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/store_test_base.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;
using types::v1::Cluster;
using types::v1::Host;
using types::v1::InfraEnv;

class ClusterStoreTest : public ResourceStoresTest {
 protected:
  absl::StatusOr<Cluster> Get(const Caller& caller, const std::string& id) {
    return clusters_->Get(caller, id);
  }

  absl::StatusOr<Cluster> SetStatus(const std::string& id, types::v1::ClusterStatus expected,
                                    types::v1::ClusterStatus next) {
    return clusters_->UpdateStatus(Caller::System(), id,
                                   {.expected = expected, .next = next, .info = "because"});
  }
};

TEST_F(ClusterStoreTest, CreateThenGetReturnsWhatWasStoredWithoutTheSecret) {
  const Cluster created = NewCluster(alice_, "one");
  EXPECT_FALSE(created.id().empty());
  EXPECT_EQ(created.status(), types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT);
  EXPECT_EQ(created.resource_version(), 1);
  EXPECT_TRUE(created.pull_secret_set());
  EXPECT_EQ(created.owner().user_name(), "alice");
  EXPECT_EQ(created.owner().org_id(), "org-a");
  EXPECT_TRUE(created.has_created_at());
  auto read = Get(alice_, created.id());
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->name(), "one");
  EXPECT_EQ(read->base_dns_domain(), "example.com");
  EXPECT_EQ(read->DebugString(), created.DebugString());
  EXPECT_EQ(read->DebugString().find("dTpw"), std::string::npos);
}

TEST_F(ClusterStoreTest, ValidateOnlyAnswersAsCreateWouldAndStoresNothing) {
  int announced = 0;
  ClusterStore clusters(*pool_, {.committed = [&](const Change&) { ++announced; }});
  Cluster draft;
  draft.set_name("draft");
  draft.set_base_dns_domain("example.com");
  auto checked = clusters.Create(alice_, draft, R"({"auths":{}})", CreateMode::kValidateOnly);
  ASSERT_THAT(checked, IsOk());
  EXPECT_FALSE(checked->id().empty());
  EXPECT_EQ(checked->status(), types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT);
  EXPECT_EQ(checked->owner().user_name(), "alice");
  EXPECT_EQ(checked->owner().org_id(), "org-a");
  EXPECT_TRUE(checked->pull_secret_set());
  EXPECT_EQ(checked->resource_version(), 1);
  EXPECT_TRUE(checked->has_created_at());
  EXPECT_THAT(Get(alice_, checked->id()), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(Get(Caller::System(), checked->id()), StatusIs(absl::StatusCode::kNotFound));
  auto listed = clusters_->List(Caller::System(), {});
  ASSERT_THAT(listed, IsOk());
  EXPECT_EQ(listed->clusters_size(), 0);
  EXPECT_EQ(announced, 0);
}

TEST_F(ClusterStoreTest, ValidateOnlyRefusesWhatCreateRefuses) {
  ResourceStoreOptions options;
  options.validators.cluster = [](const Cluster& c) {
    return c.name() == "bad" ? absl::InvalidArgumentError("cluster.name: bad") : absl::OkStatus();
  };
  ClusterStore checked(*pool_, options);
  Cluster draft;
  draft.set_name("bad");
  EXPECT_THAT(checked.Create(alice_, draft, "", CreateMode::kValidateOnly),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cluster.name")));
  EXPECT_THAT(checked.Create(alice_, draft, "", CreateMode::kStore),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cluster.name")));
}

TEST_F(ClusterStoreTest, CreatingTheSameIdTwiceIsIdempotentOnlyForTheSameContent) {
  const std::string id = Uuid(1, 1);
  const Cluster first = NewCluster(alice_, "same", id);
  Cluster again;
  again.set_id(id);
  again.set_name("same");
  again.set_base_dns_domain("example.com");
  EXPECT_THAT(clusters_->Create(alice_, again), IsOk());
  again.set_name("different");
  EXPECT_THAT(clusters_->Create(alice_, again),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr(id)));
}

TEST_F(ClusterStoreTest, UpdateWritesOnlyTheMaskedFieldsAndBumpsTheVersion) {
  const Cluster created = NewCluster(alice_, "before");
  Cluster patch = Patch(created.id());
  patch.set_name("after");
  patch.set_base_dns_domain("ignored.com");
  auto updated = clusters_->Update(alice_, patch, Mask({"name"}));
  ASSERT_THAT(updated, IsOk());
  EXPECT_EQ(updated->name(), "after");
  EXPECT_EQ(updated->base_dns_domain(), "example.com");
  EXPECT_EQ(updated->resource_version(), 2);
}

TEST_F(ClusterStoreTest, StaleResourceVersionIsAborted) {
  const Cluster created = NewCluster(alice_, "v");
  Cluster patch = Patch(created.id());
  patch.set_name("w");
  const Precondition at_version{.resource_version = created.resource_version()};
  ASSERT_THAT(clusters_->Update(alice_, patch, Mask({"name"}), at_version), IsOk());
  EXPECT_THAT(clusters_->Update(alice_, patch, Mask({"name"}), at_version),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("resource_version is 2, expected 1")));
}

TEST_F(ClusterStoreTest, MasksNamingReservedOrUnknownFieldsAreRefused) {
  const Cluster created = NewCluster(alice_, "m");
  const Cluster patch = Patch(created.id());
  EXPECT_THAT(clusters_->Update(alice_, patch, Mask({"status"})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("update_mask: \"status\" cannot be written here")));
  EXPECT_THAT(clusters_->Update(alice_, patch, Mask({"no_such_field"})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no_such_field")));
  EXPECT_THAT(clusters_->Update(alice_, patch, Mask({})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("update_mask: empty")));
}

TEST_F(ClusterStoreTest, StatusCompareAndSetNamesTheActualStatusWhenItLoses) {
  const Cluster created = NewCluster(alice_, "cas");
  auto ready = SetStatus(created.id(), types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT,
                         types::v1::CLUSTER_STATUS_READY);
  ASSERT_THAT(ready, IsOk());
  EXPECT_EQ(ready->status(), types::v1::CLUSTER_STATUS_READY);
  EXPECT_EQ(ready->status_info(), "because");
  EXPECT_TRUE(ready->has_status_updated_at());
  EXPECT_THAT(SetStatus(created.id(), types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT,
                        types::v1::CLUSTER_STATUS_INSUFFICIENT),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("is CLUSTER_STATUS_READY, expected "
                                                             "CLUSTER_STATUS_PENDING_FOR_INPUT")));
}

TEST_F(ClusterStoreTest, OfTwoConcurrentTransitionsFromTheSameStatusExactlyOneWins) {
  for (int round = 0; round < 20; ++round) {
    const Cluster cluster = NewCluster(alice_, "race");
    std::atomic<int> wins{0}, aborted{0};
    auto contend = [&](types::v1::ClusterStatus next) {
      auto result = SetStatus(cluster.id(), types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT, next);
      if (result.ok()) ++wins;
      if (result.status().code() == absl::StatusCode::kAborted) ++aborted;
    };
    std::thread a(contend, types::v1::CLUSTER_STATUS_READY);
    std::thread b(contend, types::v1::CLUSTER_STATUS_INSUFFICIENT);
    a.join();
    b.join();
    EXPECT_EQ(wins, 1);
    EXPECT_EQ(aborted, 1);
  }
}

TEST_F(ClusterStoreTest, ConcurrentUpdatesOfDifferentFieldsAllLand) {
  // Unfenced updates read, merge and write only if the version did not move meanwhile; losers
  // merge again, so no writer's field is lost.
  const Cluster cluster = NewCluster(alice_, "busy");
  const std::vector<std::string> fields = {"name", "base_dns_domain", "additional_ntp_source",
                                           "ocp_release_image"};
  constexpr int kRounds = 10;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (const std::string& field : fields) {
    writers.emplace_back([&, field] {
      for (int round = 0; round < kRounds; ++round) {
        Cluster patch = Patch(cluster.id());
        const std::string value = absl::StrCat("v", round, field == "name" ? "" : ".example.com");
        const google::protobuf::FieldDescriptor* descriptor =
            Cluster::descriptor()->FindFieldByName(field);
        patch.GetReflection()->SetString(&patch, descriptor, value);
        if (!clusters_->Update(alice_, patch, Mask({field})).ok()) ++failures;
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  EXPECT_EQ(failures, 0);
  auto read = Get(alice_, cluster.id());
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->resource_version(), 1 + static_cast<int64_t>(fields.size()) * kRounds);
  EXPECT_EQ(read->name(), absl::StrCat("v", kRounds - 1));
  EXPECT_EQ(read->base_dns_domain(), absl::StrCat("v", kRounds - 1, ".example.com"));
  EXPECT_EQ(read->additional_ntp_source(), absl::StrCat("v", kRounds - 1, ".example.com"));
  EXPECT_EQ(read->ocp_release_image(), absl::StrCat("v", kRounds - 1, ".example.com"));
}

TEST_F(ClusterStoreTest, AnotherTenantsResourcesAreNotFound) {
  const Cluster mine = NewCluster(alice_, "mine");
  EXPECT_THAT(Get(bob_, mine.id()), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(Get(Caller::User("carol", "org-a"), mine.id()), IsOk());  // same org
  EXPECT_THAT(Get(Caller::System(), mine.id()), IsOk());
  auto bobs = clusters_->List(bob_, {});
  ASSERT_THAT(bobs, IsOk());
  EXPECT_EQ(bobs->clusters_size(), 0);
  EXPECT_THAT(clusters_->Delete(bob_, mine.id()), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(clusters_->Update(bob_, Patch(mine.id()), Mask({"name"})),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ClusterStoreTest, ListingClustersWithHostsCarriesEachClustersLiveHostsAndCounts) {
  const Cluster empty = NewCluster(alice_, "empty");
  const Cluster full = NewCluster(alice_, "full");
  const InfraEnv infra_env = NewInfraEnv(alice_, full.id());
  ASSERT_THAT(NewHost(alice_, infra_env, Uuid(7, 2)), IsOk());
  ASSERT_THAT(NewHost(alice_, infra_env, Uuid(7, 1)), IsOk());
  ASSERT_THAT(NewHost(alice_, infra_env, Uuid(7, 3)), IsOk());
  ASSERT_THAT(hosts_->UpdateStatus(Caller::System(), {infra_env.id(), Uuid(7, 1)},
                                   {.expected = types::v1::HOST_STATUS_DISCOVERING,
                                    .next = types::v1::HOST_STATUS_KNOWN}),
              IsOk());
  ASSERT_THAT(hosts_->Delete(alice_, {infra_env.id(), Uuid(7, 3)}), IsOk());

  ClusterQuery list{.include_hosts = true};
  auto listed = clusters_->List(alice_, list);
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->clusters_size(), 2);
  EXPECT_EQ(listed->clusters(0).id(), empty.id());
  EXPECT_EQ(listed->clusters(0).hosts_size(), 0);
  EXPECT_EQ(listed->clusters(0).total_host_count(), 0);
  const Cluster& with_hosts = listed->clusters(1);
  EXPECT_EQ(with_hosts.id(), full.id());
  // Live hosts only, in the order they were created, each whole; the same as GetCluster shows.
  ASSERT_EQ(with_hosts.hosts_size(), 2);
  EXPECT_EQ(with_hosts.hosts(0).id(), Uuid(7, 2));
  EXPECT_EQ(with_hosts.hosts(1).id(), Uuid(7, 1));
  EXPECT_EQ(with_hosts.hosts(0).requested_hostname(), "node");
  EXPECT_EQ(with_hosts.total_host_count(), 2);
  EXPECT_EQ(with_hosts.enabled_host_count(), 2);
  EXPECT_EQ(with_hosts.ready_host_count(), 1);
  auto got = clusters_->Get(alice_, full.id(), /*include_hosts=*/true);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->hosts_size(), with_hosts.hosts_size());
  EXPECT_EQ(got->ready_host_count(), with_hosts.ready_host_count());
  // Without include_hosts, none.
  list.include_hosts = false;
  listed = clusters_->List(alice_, list);
  ASSERT_THAT(listed, IsOk());
  EXPECT_EQ(listed->clusters(1).hosts_size(), 0);
}

// The cluster list view (no hosts) shows "1/2 hosts ready" from the counts alone: before, they
// were computed only from attached hosts, so every read without hosts said 0 of 0.
TEST_F(ClusterStoreTest, ReadingClustersWithoutHostsStillCountsTheirLiveHosts) {
  const Cluster empty = NewCluster(alice_, "empty");
  const Cluster full = NewCluster(alice_, "full");
  const InfraEnv infra_env = NewInfraEnv(alice_, full.id());
  for (int host = 1; host <= 3; ++host)
    ASSERT_THAT(NewHost(alice_, infra_env, Uuid(8, host)), IsOk());
  ASSERT_THAT(hosts_->UpdateStatus(Caller::System(), {infra_env.id(), Uuid(8, 1)},
                                   {.expected = types::v1::HOST_STATUS_DISCOVERING,
                                    .next = types::v1::HOST_STATUS_KNOWN}),
              IsOk());
  ASSERT_THAT(hosts_->Delete(alice_, {infra_env.id(), Uuid(8, 3)}), IsOk());

  auto listed = clusters_->List(alice_, {});
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->clusters_size(), 2);
  EXPECT_EQ(listed->clusters(0).id(), empty.id());
  EXPECT_EQ(listed->clusters(0).total_host_count(), 0);
  const Cluster& counted = listed->clusters(1);
  EXPECT_EQ(counted.hosts_size(), 0);
  EXPECT_EQ(counted.total_host_count(), 2);
  EXPECT_EQ(counted.enabled_host_count(), 2);
  EXPECT_EQ(counted.ready_host_count(), 1);

  auto got = clusters_->Get(alice_, full.id(), /*include_hosts=*/false);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->hosts_size(), 0);
  EXPECT_EQ(got->total_host_count(), 2);
  EXPECT_EQ(got->ready_host_count(), 1);
}

TEST_F(ClusterStoreTest, MoreConcurrentListsWithHostsThanConnectionsAllFinish) {
  // Fewer connections than callers: a list that takes a second connection while holding its
  // first leaves callers each holding one and waiting for another, until their acquire times out.
  pg::Pool small({.dsn = dsn(), .max_connections = 2, .acquire_timeout = absl::Seconds(2)});
  ClusterStore store(small);
  constexpr int kClusters = 3;
  for (int c = 0; c < kClusters; ++c) {
    const InfraEnv infra_env = NewInfraEnv(alice_, NewCluster(alice_, "busy").id());
    ASSERT_THAT(NewHost(alice_, infra_env, Uuid(8, 2 * c)), IsOk());
    ASSERT_THAT(NewHost(alice_, infra_env, Uuid(8, 2 * c + 1)), IsOk());
  }
  constexpr int kCallers = 8;
  constexpr int kCallsEach = 10;
  // Every caller stops at the first failure or at the deadline, so a deadlock fails the test.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  std::atomic<bool> failed{false};
  absl::Mutex mu;
  std::vector<std::string> errors;
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&] {
      const ClusterQuery list{.include_hosts = true};
      for (int call = 0; call < kCallsEach && !failed; ++call) {
        std::string error;
        if (absl::Now() > deadline) {
          error = "deadline passed before all lists finished";
        } else if (auto listed = store.List(alice_, list); !listed.ok()) {
          error = listed.status().ToString();
        } else if (listed->clusters_size() != kClusters ||
                   listed->clusters(kClusters - 1).hosts_size() != 2) {
          error = "incomplete answer: " + listed->ShortDebugString();
        }
        if (error.empty()) continue;
        failed = true;
        absl::MutexLock lock(&mu);
        errors.push_back(std::move(error));
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  EXPECT_THAT(errors, ::testing::IsEmpty());
}

TEST_F(ClusterStoreTest, SoftDeletedClustersAndTheirHostsDisappearUnlessAskedFor) {
  const Cluster cluster = NewCluster(alice_, "gone");
  const InfraEnv infra_env = NewInfraEnv(alice_, cluster.id());
  ASSERT_THAT(NewHost(alice_, infra_env, Uuid(4, 1)), IsOk());
  ASSERT_THAT(clusters_->Delete(alice_, cluster.id()), IsOk());
  EXPECT_THAT(Get(alice_, cluster.id()), StatusIs(absl::StatusCode::kNotFound));
  auto deleted = clusters_->Get(alice_, cluster.id(), /*include_hosts=*/false,
                                /*include_deleted=*/true);
  ASSERT_THAT(deleted, IsOk());
  EXPECT_TRUE(deleted->has_deleted_at());
  EXPECT_THAT(hosts_->Get(alice_, {infra_env.id(), Uuid(4, 1)}),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ClusterStoreTest, PullSecretIsWriteOnlyExceptThroughGetPullSecret) {
  const Cluster cluster = NewCluster(alice_, "secret");
  EXPECT_THAT(clusters_->GetPullSecret(Caller::System(), cluster.id()),
              IsOkAndHolds(R"({"auths":{"r.io":{"auth":"dTpw"}}})"));
  EXPECT_THAT(clusters_->GetPullSecret(bob_, cluster.id()), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_THAT(
      clusters_->Update(alice_, Patch(cluster.id()), Mask({"pull_secret"}), {}, R"({"auths":{}})"),
      IsOk());
  EXPECT_THAT(clusters_->GetPullSecret(Caller::System(), cluster.id()),
              IsOkAndHolds(R"({"auths":{}})"));
}

TEST_F(ClusterStoreTest, RowsStoredAsJsonBeforeBinaryStorageAreReadAndRewrittenWhole) {
  // A cluster as schema version 1 stored it: everything beyond the columns in the JSON doc.
  const Cluster created = NewCluster(alice_, "old-form");
  {
    auto connection = pool_->Acquire();
    ASSERT_THAT(connection, IsOk());
    ASSERT_THAT(
        (*connection)
            ->Exec("UPDATE clusters SET pb = NULL, doc = jsonb_build_object('name', 'old-form', "
                   "'baseDnsDomain', 'example.com', 'statusInfo', 'as v1 wrote it', "
                   "'openshiftClusterId', 'ocp-1') WHERE id = $1::uuid",
                   {created.id()})
            .status(),
        IsOk());
  }
  auto read = Get(alice_, created.id());
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->name(), "old-form");
  EXPECT_EQ(read->base_dns_domain(), "example.com");
  EXPECT_EQ(read->status_info(), "as v1 wrote it");
  EXPECT_EQ(read->openshift_cluster_id(), "ocp-1");

  // The next write stores it in the new form, and nothing is lost on the way.
  Cluster rename = Patch(created.id());
  rename.set_name("new-form");
  ASSERT_THAT(clusters_->Update(alice_, rename, Mask({"name"})), IsOk());
  auto reread = Get(alice_, created.id());
  ASSERT_THAT(reread, IsOk());
  EXPECT_EQ(reread->name(), "new-form");
  EXPECT_EQ(reread->base_dns_domain(), "example.com");
  EXPECT_EQ(reread->status_info(), "as v1 wrote it");
  EXPECT_EQ(reread->openshift_cluster_id(), "ocp-1");
  {
    auto connection = pool_->Acquire();
    ASSERT_THAT(connection, IsOk());
    auto stored = (*connection)
                      ->Exec("SELECT pb IS NOT NULL, doc::text FROM clusters WHERE id = $1::uuid",
                             {created.id()});
    ASSERT_THAT(stored, IsOk());
    EXPECT_EQ(stored->Get(0, 0), "t");
    EXPECT_THAT(std::string(stored->Get(0, 1)), Not(HasSubstr("new-form")));  // the name is in pb
  }

  // Listing by openshift_cluster_id and the status-only compare-and-set still see the doc.
  auto listed = clusters_->List(alice_, {.openshift_cluster_id = "ocp-1"});
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->clusters_size(), 1);
  EXPECT_EQ(listed->clusters(0).name(), "new-form");
  auto ready = SetStatus(created.id(), types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT,
                         types::v1::CLUSTER_STATUS_READY);
  ASSERT_THAT(ready, IsOk());
  EXPECT_EQ(ready->status_info(), "because");
  EXPECT_EQ(ready->name(), "new-form");
  EXPECT_EQ(ready->openshift_cluster_id(), "ocp-1");
}

TEST_F(ClusterStoreTest, ValidatorsRunBeforeAnythingIsWritten) {
  clusters_ = std::make_unique<ClusterStore>(
      *pool_, ResourceStoreOptions{.validators = {.cluster = [](const Cluster& c) {
                                     return c.name() == "bad"
                                                ? absl::InvalidArgumentError("cluster.name: bad")
                                                : absl::OkStatus();
                                   }}});
  Cluster bad;
  bad.set_name("bad");
  EXPECT_THAT(clusters_->Create(alice_, bad),
              StatusIs(absl::StatusCode::kInvalidArgument, "cluster.name: bad"));
  const Cluster good = NewCluster(alice_, "good");
  Cluster rename = Patch(good.id());
  rename.set_name("bad");
  EXPECT_THAT(clusters_->Update(alice_, rename, Mask({"name"})),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Get(alice_, good.id()), IsOk());
  EXPECT_EQ(Get(alice_, good.id())->name(), "good");
  EXPECT_EQ(clusters_->List(Caller::System(), {})->clusters_size(), 1);
}

TEST_F(ClusterStoreTest, MalformedIdsAreInvalidArguments) {
  EXPECT_THAT(Get(alice_, "not-a-uuid"), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace assisted::inventory
