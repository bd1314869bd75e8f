#include "services/inventory/resource_store.h"

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

class ResourceStoreTest : public InventoryDbTest {
 protected:
  void SetUp() override {
    InventoryDbTest::SetUp();
    store_ = std::make_unique<ResourceStore>(*pool_, Validators{});
  }

  Cluster NewCluster(const Caller& caller, const std::string& name, std::string id = "") {
    Cluster cluster_to_be;
    cluster_to_be.set_id(id);
    cluster_to_be.set_name(name);
    cluster_to_be.set_base_dns_domain("example.com");
    auto cluster =
        store_->CreateCluster(caller, cluster_to_be, R"({"auths":{"r.io":{"auth":"dTpw"}}})");
    EXPECT_THAT(cluster, IsOk());
    return cluster.ok() ? *cluster : Cluster();
  }

  InfraEnv NewInfraEnv(const Caller& caller, const std::string& cluster_id = "") {
    InfraEnv to_be;
    to_be.set_name("discovery");
    to_be.set_cluster_id(cluster_id);
    auto infra_env = store_->CreateInfraEnv(caller, to_be);
    EXPECT_THAT(infra_env, IsOk());
    return infra_env.ok() ? *infra_env : InfraEnv();
  }

  absl::StatusOr<Host> NewHost(const Caller& caller, const InfraEnv& infra_env,
                               const std::string& id) {
    Host host;
    host.set_id(id);
    host.set_infra_env_id(infra_env.id());
    host.set_cluster_id(infra_env.cluster_id());
    host.set_requested_hostname("node");
    return store_->CreateHost(caller, host);
  }

  absl::StatusOr<Cluster> Get(const Caller& caller, const std::string& id) {
    return store_->GetCluster(caller, id);
  }

  absl::StatusOr<Cluster> SetStatus(const std::string& id, types::v1::ClusterStatus expected,
                                    types::v1::ClusterStatus next) {
    return store_->UpdateClusterStatus(Caller::System(), id,
                                       {.expected = expected, .next = next, .info = "because"});
  }

  // A cluster patch carrying `id`, and the mask naming `paths`.
  static Cluster Patch(const std::string& id) {
    Cluster patch;
    patch.set_id(id);
    return patch;
  }
  static google::protobuf::FieldMask Mask(std::initializer_list<std::string> paths) {
    google::protobuf::FieldMask mask;
    for (const std::string& path : paths) mask.add_paths(path);
    return mask;
  }

  const Caller alice_ = Caller::User("alice", "org-a");
  const Caller bob_ = Caller::User("bob", "org-b");
  std::unique_ptr<ResourceStore> store_;
};

TEST_F(ResourceStoreTest, CreateThenGetReturnsWhatWasStoredWithoutTheSecret) {
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

TEST_F(ResourceStoreTest, CreatingTheSameIdTwiceIsIdempotentOnlyForTheSameContent) {
  const std::string id = Uuid(1, 1);
  const Cluster first = NewCluster(alice_, "same", id);
  Cluster again;
  again.set_id(id);
  again.set_name("same");
  again.set_base_dns_domain("example.com");
  EXPECT_THAT(store_->CreateCluster(alice_, again), IsOk());
  again.set_name("different");
  EXPECT_THAT(store_->CreateCluster(alice_, again),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr(id)));
}

TEST_F(ResourceStoreTest, UpdateWritesOnlyTheMaskedFieldsAndBumpsTheVersion) {
  const Cluster created = NewCluster(alice_, "before");
  Cluster patch = Patch(created.id());
  patch.set_name("after");
  patch.set_base_dns_domain("ignored.com");
  auto updated = store_->UpdateCluster(alice_, patch, Mask({"name"}));
  ASSERT_THAT(updated, IsOk());
  EXPECT_EQ(updated->name(), "after");
  EXPECT_EQ(updated->base_dns_domain(), "example.com");
  EXPECT_EQ(updated->resource_version(), 2);
}

TEST_F(ResourceStoreTest, StaleResourceVersionIsAborted) {
  const Cluster created = NewCluster(alice_, "v");
  Cluster patch = Patch(created.id());
  patch.set_name("w");
  const Precondition at_version{.resource_version = created.resource_version()};
  ASSERT_THAT(store_->UpdateCluster(alice_, patch, Mask({"name"}), at_version), IsOk());
  EXPECT_THAT(store_->UpdateCluster(alice_, patch, Mask({"name"}), at_version),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("resource_version is 2, expected 1")));
}

TEST_F(ResourceStoreTest, MasksNamingReservedOrUnknownFieldsAreRefused) {
  const Cluster created = NewCluster(alice_, "m");
  const Cluster patch = Patch(created.id());
  EXPECT_THAT(store_->UpdateCluster(alice_, patch, Mask({"status"})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("update_mask: \"status\" cannot be written here")));
  EXPECT_THAT(store_->UpdateCluster(alice_, patch, Mask({"no_such_field"})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no_such_field")));
  EXPECT_THAT(store_->UpdateCluster(alice_, patch, Mask({})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("update_mask: empty")));
}

TEST_F(ResourceStoreTest, StatusCompareAndSetNamesTheActualStatusWhenItLoses) {
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

TEST_F(ResourceStoreTest, OfTwoConcurrentTransitionsFromTheSameStatusExactlyOneWins) {
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

TEST_F(ResourceStoreTest, ConcurrentUpdatesOfDifferentFieldsAllLand) {
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
        if (!store_->UpdateCluster(alice_, patch, Mask({field})).ok()) ++failures;
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

TEST_F(ResourceStoreTest, AnotherTenantsResourcesAreNotFound) {
  const Cluster mine = NewCluster(alice_, "mine");
  EXPECT_THAT(Get(bob_, mine.id()), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(Get(Caller::User("carol", "org-a"), mine.id()), IsOk());  // same org
  EXPECT_THAT(Get(Caller::System(), mine.id()), IsOk());
  auto bobs = store_->ListClusters(bob_, {});
  ASSERT_THAT(bobs, IsOk());
  EXPECT_EQ(bobs->clusters_size(), 0);
  EXPECT_THAT(store_->DeleteCluster(bob_, mine.id()), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(store_->UpdateCluster(bob_, Patch(mine.id()), Mask({"name"})),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ResourceStoreTest, ListsThousandHostsInPagesWithoutGapsOrRepeats) {
  const InfraEnv infra_env = NewInfraEnv(alice_);
  for (int i = 0; i < 1000; ++i) ASSERT_THAT(NewHost(alice_, infra_env, Uuid(2, i)), IsOk());
  std::set<std::string> seen;
  HostQuery query{.page = {.size = 73}, .infra_env_id = infra_env.id()};
  int pages = 0;
  do {
    auto page = store_->ListHosts(alice_, query);
    ASSERT_THAT(page, IsOk());
    for (const Host& host : page->hosts()) EXPECT_TRUE(seen.insert(host.id()).second);
    query.page.token = page->next_page_token();
    ++pages;
  } while (!query.page.token.empty());
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_EQ(pages, 14);
  query.page.token = "garbage!";
  EXPECT_THAT(store_->ListHosts(alice_, query),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("page_token")));
}

TEST_F(ResourceStoreTest, HostsInheritTheirInfraEnvsOwnerAndAreFiltered) {
  const Cluster cluster = NewCluster(alice_, "hosts");
  const InfraEnv infra_env = NewInfraEnv(alice_, cluster.id());
  auto host = NewHost(alice_, infra_env, Uuid(3, 1));
  ASSERT_THAT(host, IsOk());
  EXPECT_EQ(host->status(), types::v1::HOST_STATUS_DISCOVERING);
  EXPECT_EQ(host->owner().org_id(), "org-a");
  EXPECT_EQ(host->cluster_id(), cluster.id());
  EXPECT_THAT(NewHost(bob_, infra_env, Uuid(3, 2)), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(NewHost(alice_, infra_env, Uuid(3, 1)), IsOk());  // the agent's retry
  ASSERT_THAT(NewHost(alice_, infra_env, Uuid(3, 3)), IsOk());
  ASSERT_THAT(NewHost(alice_, infra_env, Uuid(3, 0)), IsOk());
  auto with_hosts = store_->GetCluster(alice_, cluster.id(), /*include_hosts=*/true);
  ASSERT_THAT(with_hosts, IsOk());
  EXPECT_EQ(with_hosts->name(), "hosts");
  ASSERT_EQ(with_hosts->hosts_size(), 3);
  EXPECT_EQ(with_hosts->total_host_count(), 3);
  // In the order they were created, each whole.
  EXPECT_EQ(with_hosts->hosts(0).id(), Uuid(3, 1));
  EXPECT_EQ(with_hosts->hosts(1).id(), Uuid(3, 3));
  EXPECT_EQ(with_hosts->hosts(2).id(), Uuid(3, 0));
  EXPECT_EQ(with_hosts->hosts(2).requested_hostname(), "node");
  EXPECT_EQ(with_hosts->hosts(2).infra_env_id(), infra_env.id());
  // Another tenant learns nothing, hosts or not.
  EXPECT_THAT(store_->GetCluster(bob_, cluster.id(), /*include_hosts=*/true),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ResourceStoreTest, ListingClustersWithHostsCarriesEachClustersLiveHostsAndCounts) {
  const Cluster empty = NewCluster(alice_, "empty");
  const Cluster full = NewCluster(alice_, "full");
  const InfraEnv infra_env = NewInfraEnv(alice_, full.id());
  ASSERT_THAT(NewHost(alice_, infra_env, Uuid(7, 2)), IsOk());
  ASSERT_THAT(NewHost(alice_, infra_env, Uuid(7, 1)), IsOk());
  ASSERT_THAT(NewHost(alice_, infra_env, Uuid(7, 3)), IsOk());
  ASSERT_THAT(store_->UpdateHostStatus(Caller::System(), {infra_env.id(), Uuid(7, 1)},
                                       {.expected = types::v1::HOST_STATUS_DISCOVERING,
                                        .next = types::v1::HOST_STATUS_KNOWN}),
              IsOk());
  ASSERT_THAT(store_->DeleteHost(alice_, {infra_env.id(), Uuid(7, 3)}), IsOk());

  ClusterQuery list{.include_hosts = true};
  auto listed = store_->ListClusters(alice_, list);
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
  auto got = store_->GetCluster(alice_, full.id(), /*include_hosts=*/true);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->hosts_size(), with_hosts.hosts_size());
  EXPECT_EQ(got->ready_host_count(), with_hosts.ready_host_count());
  // Without include_hosts, none.
  list.include_hosts = false;
  listed = store_->ListClusters(alice_, list);
  ASSERT_THAT(listed, IsOk());
  EXPECT_EQ(listed->clusters(1).hosts_size(), 0);
}

TEST_F(ResourceStoreTest, MoreConcurrentListsWithHostsThanConnectionsAllFinish) {
  // Fewer connections than callers: a list that takes a second connection while holding its
  // first leaves callers each holding one and waiting for another, until their acquire times out.
  pg::Pool small({.dsn = dsn(), .max_connections = 2, .acquire_timeout = absl::Seconds(2)});
  ResourceStore store(small, Validators{});
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
        } else if (auto listed = store.ListClusters(alice_, list); !listed.ok()) {
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

TEST_F(ResourceStoreTest, HostsHeldByOtherReplicasAreListedByHolder) {
  const InfraEnv infra_env = NewInfraEnv(alice_);
  const std::vector<std::string> holders = {"replica-a", "replica-b", ""};
  for (size_t i = 0; i < holders.size(); ++i) {
    Host host;
    host.set_id(Uuid(6, static_cast<int>(i)));
    host.set_infra_env_id(infra_env.id());
    host.set_agent_stream_holder(holders[i]);
    ASSERT_THAT(store_->CreateHost(alice_, host), IsOk());
  }
  const HostQuery list{.held_by_other_than = "replica-a"};
  auto held = store_->ListHosts(Caller::System(), list);
  ASSERT_THAT(held, IsOk());
  ASSERT_EQ(held->hosts_size(), 1);
  EXPECT_EQ(held->hosts(0).id(), Uuid(6, 1));
  EXPECT_EQ(held->hosts(0).agent_stream_holder(), "replica-b");
  // A holder cleared by an update leaves the listing.
  Host clear;
  clear.set_id(Uuid(6, 1));
  clear.set_infra_env_id(infra_env.id());
  ASSERT_THAT(store_->UpdateHost(Caller::System(), clear, Mask({"agent_stream_holder"})), IsOk());
  held = store_->ListHosts(Caller::System(), list);
  ASSERT_THAT(held, IsOk());
  EXPECT_EQ(held->hosts_size(), 0);
}

TEST_F(ResourceStoreTest, SoftDeletedClustersAndTheirHostsDisappearUnlessAskedFor) {
  const Cluster cluster = NewCluster(alice_, "gone");
  const InfraEnv infra_env = NewInfraEnv(alice_, cluster.id());
  ASSERT_THAT(NewHost(alice_, infra_env, Uuid(4, 1)), IsOk());
  ASSERT_THAT(store_->DeleteCluster(alice_, cluster.id()), IsOk());
  EXPECT_THAT(Get(alice_, cluster.id()), StatusIs(absl::StatusCode::kNotFound));
  auto deleted = store_->GetCluster(alice_, cluster.id(), /*include_hosts=*/false,
                                    /*include_deleted=*/true);
  ASSERT_THAT(deleted, IsOk());
  EXPECT_TRUE(deleted->has_deleted_at());
  EXPECT_THAT(store_->GetHost(alice_, {infra_env.id(), Uuid(4, 1)}),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ResourceStoreTest, PullSecretIsWriteOnlyExceptThroughGetPullSecret) {
  const Cluster cluster = NewCluster(alice_, "secret");
  EXPECT_THAT(store_->GetClusterPullSecret(Caller::System(), cluster.id()),
              IsOkAndHolds(R"({"auths":{"r.io":{"auth":"dTpw"}}})"));
  EXPECT_THAT(store_->GetClusterPullSecret(bob_, cluster.id()),
              StatusIs(absl::StatusCode::kNotFound));
  ASSERT_THAT(store_->UpdateCluster(alice_, Patch(cluster.id()), Mask({"pull_secret"}), {},
                                    R"({"auths":{}})"),
              IsOk());
  EXPECT_THAT(store_->GetClusterPullSecret(Caller::System(), cluster.id()),
              IsOkAndHolds(R"({"auths":{}})"));
}

TEST_F(ResourceStoreTest, InfraEnvSigningKeysAreForServicesAndRegeneratedByTheirTenantOnly) {
  const InfraEnv infra_env = NewInfraEnv(alice_);
  // Made on first use, the same on every later read, never shown to a tenant.
  auto key = store_->GetInfraEnvSigningKey(Caller::System(), infra_env.id());
  ASSERT_THAT(key, IsOk());
  EXPECT_EQ(key->size(), 32u);
  EXPECT_THAT(store_->GetInfraEnvSigningKey(Caller::System(), infra_env.id()), IsOkAndHolds(*key));
  EXPECT_THAT(store_->GetInfraEnvSigningKey(alice_, infra_env.id()),
              StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(store_->GetInfraEnvSigningKey(Caller::System(), Uuid(9, 9)),
              StatusIs(absl::StatusCode::kNotFound));
  auto before = store_->GetInfraEnv(alice_, infra_env.id());
  ASSERT_THAT(before, IsOk());

  // Another tenant cannot rotate it, nor tell the infra-env exists.
  EXPECT_THAT(store_->RegenerateInfraEnvSigningKey(bob_, infra_env.id()),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(store_->GetInfraEnvSigningKey(Caller::System(), infra_env.id()), IsOkAndHolds(*key));

  // Its owner can: a new key, a new version (caches keyed by it let go), a logged change.
  auto regenerated = store_->RegenerateInfraEnvSigningKey(alice_, infra_env.id());
  ASSERT_THAT(regenerated, IsOk());
  EXPECT_EQ(regenerated->resource_version(), before->resource_version() + 1);
  EXPECT_EQ(regenerated->name(), "discovery");
  auto rotated = store_->GetInfraEnvSigningKey(Caller::System(), infra_env.id());
  ASSERT_THAT(rotated, IsOk());
  EXPECT_EQ(rotated->size(), 32u);
  EXPECT_NE(*rotated, *key);
  auto after = store_->GetInfraEnv(alice_, infra_env.id());
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->resource_version(), regenerated->resource_version());
  EXPECT_EQ(after->name(), "discovery");
}

TEST_F(ResourceStoreTest, RowsStoredAsJsonBeforeBinaryStorageAreReadAndRewrittenWhole) {
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
  ASSERT_THAT(store_->UpdateCluster(alice_, rename, Mask({"name"})), IsOk());
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
  auto listed = store_->ListClusters(alice_, {.openshift_cluster_id = "ocp-1"});
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

TEST_F(ResourceStoreTest, ValidatorsRunBeforeAnythingIsWritten) {
  store_ = std::make_unique<ResourceStore>(*pool_, Validators{.cluster = [](const Cluster& c) {
    return c.name() == "bad" ? absl::InvalidArgumentError("cluster.name: bad") : absl::OkStatus();
  }});
  Cluster bad;
  bad.set_name("bad");
  EXPECT_THAT(store_->CreateCluster(alice_, bad),
              StatusIs(absl::StatusCode::kInvalidArgument, "cluster.name: bad"));
  const Cluster good = NewCluster(alice_, "good");
  Cluster rename = Patch(good.id());
  rename.set_name("bad");
  EXPECT_THAT(store_->UpdateCluster(alice_, rename, Mask({"name"})),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Get(alice_, good.id()), IsOk());
  EXPECT_EQ(Get(alice_, good.id())->name(), "good");
  EXPECT_EQ(store_->ListClusters(Caller::System(), {})->clusters_size(), 1);
}

TEST_F(ResourceStoreTest, MalformedIdsAreInvalidArguments) {
  EXPECT_THAT(Get(alice_, "not-a-uuid"), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace assisted::inventory
