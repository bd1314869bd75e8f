#include "services/gateway/read_cache.h"

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "prometheus/registry.h"

namespace assisted::gateway {
namespace {

namespace inv = inventory::v1;
namespace types = types::v1;
using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pointee;
using ::testing::UnorderedElementsAre;

constexpr char kClusterA[] = "aaaaaaaa-0000-4000-8000-000000000001";
constexpr char kClusterB[] = "bbbbbbbb-0000-4000-8000-000000000002";
constexpr char kInfraEnv[] = "eeeeeeee-0000-4000-8000-000000000003";
constexpr char kHost[] = "cccccccc-0000-4000-8000-000000000004";

// Stands for the inventory plus rendering: counts calls, answers `body` with `tags`.
struct FakeFetch {
  std::string body = "{}";
  std::vector<std::string> tags;
  int calls = 0;
  std::function<void()> during;  // runs inside the fetch, to race it

  absl::StatusOr<ReadCache::Fetched> operator()() {
    ++calls;
    if (during) during();
    return ReadCache::Fetched{body, tags};
  }
};

class ReadCacheTest : public ::testing::Test {
 protected:
  ReadCacheTest() { Start({}); }

  void Start(ReadCacheOptions options) {
    cache_.reset();
    registry_ = std::make_unique<prometheus::Registry>();
    metrics_ = std::make_unique<ReadCacheMetrics>(*registry_);
    cache_ = std::make_unique<ReadCache>(options, *metrics_,
                                         [this](absl::Time deadline) { return head_(deadline); });
    callbacks_ = cache_->FollowerCallbacks();
    callbacks_.on_established();
  }

  // The body GetOrFetch answers for `key` with `fetch`.
  std::string Get(const std::string& key, FakeFetch& fetch) {
    absl::StatusOr<std::shared_ptr<const std::string>> body =
        cache_->GetOrFetch(key, [&] { return fetch(); });
    EXPECT_THAT(body, IsOk());
    return body.ok() ? **body : "";
  }

  double Counter(const std::string& name) const {
    for (const prometheus::MetricFamily& family : registry_->Collect()) {
      if (family.name != name) continue;
      return family.metric.at(0).counter.value + family.metric.at(0).gauge.value;
    }
    ADD_FAILURE() << "no metric " << name;
    return -1;
  }

  static inv::WatchEvent Change(inv::ResourceKind kind, std::string id,
                                std::string infra_env_id = "", std::string cluster_id = "") {
    inv::WatchEvent event;
    event.set_kind(kind);
    event.set_id(std::move(id));
    event.set_infra_env_id(std::move(infra_env_id));
    event.set_cluster_id(std::move(cluster_id));
    event.set_change_type(inv::CHANGE_TYPE_UPDATED);
    return event;
  }

  std::unique_ptr<prometheus::Registry> registry_;
  std::unique_ptr<ReadCacheMetrics> metrics_;
  // Stands for ChangeLogHead: the change-log head each read learns (0: the follower's start).
  ReadCache::CurrentHead head_ = [](absl::Time) -> absl::StatusOr<int64_t> { return 0; };
  std::unique_ptr<ReadCache> cache_;
  inventory_client::WatchFollower::Callbacks callbacks_;
};

TEST_F(ReadCacheTest, MissFetchesOnceThenHitsServeTheSameBytes) {
  FakeFetch fetch{.body = R"({"id":"a"})", .tags = {ClusterTag(kClusterA)}};
  EXPECT_EQ(Get("k", fetch), R"({"id":"a"})");
  EXPECT_EQ(Get("k", fetch), R"({"id":"a"})");
  EXPECT_EQ(Get("k", fetch), R"({"id":"a"})");
  EXPECT_EQ(fetch.calls, 1);
  EXPECT_EQ(cache_->size(), 1);
  EXPECT_EQ(Counter("assisted_gateway_read_cache_misses_total"), 1);
  EXPECT_EQ(Counter("assisted_gateway_read_cache_hits_total"), 2);
  EXPECT_EQ(Counter("assisted_gateway_read_cache_entries"), 1);
}

TEST_F(ReadCacheTest, ACachedAnswerIsServedOnlyOnceTheFollowerHasPassedTheHeadTheReadLearnt) {
  Start({.catch_up_timeout = absl::ZeroDuration()});
  FakeFetch fetch{.body = "old", .tags = {ClusterTag(kClusterA)}};
  callbacks_.on_position(4);
  EXPECT_EQ(Get("k", fetch), "old");
  // A write elsewhere committed as seq 5; the follower has not delivered it yet.
  head_ = [](absl::Time) -> absl::StatusOr<int64_t> { return 5; };
  fetch.body = "new";
  EXPECT_EQ(Get("k", fetch), "new");
  EXPECT_EQ(fetch.calls, 2);
  EXPECT_EQ(Counter("assisted_gateway_read_cache_unconfirmed_total"), 1);
  // Once it has, and changed nothing this answer shows, the cached answer serves.
  callbacks_.on_position(5);
  EXPECT_EQ(Get("k", fetch), "new");
  EXPECT_EQ(fetch.calls, 2);
}

TEST_F(ReadCacheTest, AReadWaitsForTheFollowerAndIsServedWhatTheChangesLeft) {
  FakeFetch fetch{.body = "old", .tags = {ClusterTag(kClusterA)}};
  EXPECT_EQ(Get("k", fetch), "old");
  // The head is 1; the follower delivers the change numbered 1 after the read learnt that,
  // while it waits (or before it looks: either way the read must not see "old").
  std::thread follower;
  head_ = [&](absl::Time) -> absl::StatusOr<int64_t> {
    follower = std::thread([&] {
      callbacks_.on_change(Change(inv::RESOURCE_KIND_CLUSTER, kClusterA));
      callbacks_.on_position(1);
    });
    return 1;
  };
  fetch.body = "new";
  EXPECT_EQ(Get("k", fetch), "new");
  follower.join();
  EXPECT_EQ(Counter("assisted_gateway_read_cache_unconfirmed_total"), 0);
}

TEST_F(ReadCacheTest, AReadThatCannotLearnTheHeadIsFetched) {
  FakeFetch fetch{.body = "old", .tags = {ClusterTag(kClusterA)}};
  EXPECT_EQ(Get("k", fetch), "old");
  head_ = [](absl::Time) -> absl::StatusOr<int64_t> {
    return absl::UnavailableError("inventory down");
  };
  fetch.body = "from the inventory";
  EXPECT_EQ(Get("k", fetch), "from the inventory");
  EXPECT_EQ(Counter("assisted_gateway_read_cache_unconfirmed_total"), 1);
}

TEST_F(ReadCacheTest, FetchErrorsAreReturnedAndNeverKept) {
  int calls = 0;
  auto not_found = [&]() -> absl::StatusOr<ReadCache::Fetched> {
    ++calls;
    return absl::NotFoundError("cluster not found");
  };
  EXPECT_THAT(cache_->GetOrFetch("k", not_found), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(cache_->GetOrFetch("k", not_found), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(cache_->size(), 0);
}

TEST_F(ReadCacheTest, KeepsAtMostMaxEntriesDroppingTheLeastRecentlyUsed) {
  Start({.max_entries = 2});
  FakeFetch a, b, c;
  Get("a", a);
  Get("b", b);
  Get("a", a);  // b is now the least recently used
  Get("c", c);
  EXPECT_EQ(cache_->size(), 2);
  Get("a", a);
  Get("c", c);
  Get("b", b);
  EXPECT_EQ(a.calls, 1);
  EXPECT_EQ(c.calls, 1);
  EXPECT_EQ(b.calls, 2);
  EXPECT_EQ(Counter("assisted_gateway_read_cache_evicted_total"), 2);
}

TEST_F(ReadCacheTest, KeepsWithinMaxBytesAndNeverKeepsAnAnswerLargerThanThat) {
  Start({.max_bytes = 100});
  FakeFetch small{.body = std::string(40, 'x')}, other{.body = std::string(40, 'y')};
  FakeFetch huge{.body = std::string(200, 'z')};
  Get("s", small);
  Get("o", other);
  EXPECT_EQ(cache_->size(), 2);
  Get("h", huge);
  Get("h", huge);
  EXPECT_EQ(huge.calls, 2);
  EXPECT_EQ(cache_->size(), 2);
  FakeFetch third{.body = std::string(40, 'w')};
  Get("t", third);  // 3 x 41 bytes > 100: the oldest goes
  EXPECT_EQ(cache_->size(), 2);
  Get("s", small);
  EXPECT_EQ(small.calls, 2);
}

TEST_F(ReadCacheTest, InvalidatingATagDropsEveryEntryCarryingItAndNoOther) {
  FakeFetch cluster{.tags = {ClusterTag(kClusterA), HostTag(kHost), InfraEnvTag(kInfraEnv)}};
  FakeFetch host{.tags = {HostTag(kHost), InfraEnvTag(kInfraEnv), ClusterTag(kClusterA)}};
  FakeFetch other{.tags = {ClusterTag(kClusterB)}};
  Get("cluster", cluster);
  Get("host", host);
  Get("other", other);
  cache_->Invalidate({ClusterTag(kClusterA)});
  EXPECT_EQ(cache_->size(), 1);
  Get("cluster", cluster);
  Get("host", host);
  Get("other", other);
  EXPECT_EQ(cluster.calls, 2);
  EXPECT_EQ(host.calls, 2);
  EXPECT_EQ(other.calls, 1);
  EXPECT_EQ(Counter("assisted_gateway_read_cache_invalidated_total"), 2);
}

TEST_F(ReadCacheTest, TagsAreCaseInsensitiveLikeTheInventorysUuids) {
  FakeFetch fetch{.tags = {ClusterTag(kClusterA)}};
  Get("k", fetch);
  cache_->Invalidate({ClusterTag(absl::AsciiStrToUpper(kClusterA))});
  EXPECT_EQ(cache_->size(), 0);
}

TEST_F(ReadCacheTest, AnswersCarryTheTagsOfEverythingTheyShow) {
  types::Cluster cluster;
  cluster.set_id(kClusterA);
  types::Host& host = *cluster.add_hosts();
  host.set_id(kHost);
  host.set_infra_env_id(kInfraEnv);
  host.set_cluster_id(kClusterA);
  EXPECT_THAT(TagsOf(cluster),
              UnorderedElementsAre(ClusterTag(kClusterA), HostTag(kHost), InfraEnvTag(kInfraEnv)));
  EXPECT_THAT(TagsOf(host),
              UnorderedElementsAre(ClusterTag(kClusterA), HostTag(kHost), InfraEnvTag(kInfraEnv)));
  types::InfraEnv infra_env;
  infra_env.set_id(kInfraEnv);
  EXPECT_THAT(TagsOf(infra_env), ElementsAre(InfraEnvTag(kInfraEnv)));
  infra_env.set_cluster_id(kClusterB);
  EXPECT_THAT(TagsOf(infra_env),
              UnorderedElementsAre(InfraEnvTag(kInfraEnv), ClusterTag(kClusterB)));
}

TEST_F(ReadCacheTest, ChangesInvalidateTheirResourceAndWhatItBelongsTo) {
  EXPECT_THAT(TagsOfChange(Change(inv::RESOURCE_KIND_CLUSTER, kClusterA)),
              ElementsAre(ClusterTag(kClusterA)));
  EXPECT_THAT(TagsOfChange(Change(inv::RESOURCE_KIND_INFRA_ENV, kInfraEnv, "", kClusterA)),
              ElementsAre(InfraEnvTag(kInfraEnv), ClusterTag(kClusterA)));
  EXPECT_THAT(TagsOfChange(Change(inv::RESOURCE_KIND_INFRA_ENV, kInfraEnv)),
              ElementsAre(InfraEnvTag(kInfraEnv)));
  EXPECT_THAT(TagsOfChange(Change(inv::RESOURCE_KIND_HOST, kHost, kInfraEnv, kClusterA)),
              ElementsAre(HostTag(kHost), InfraEnvTag(kInfraEnv), ClusterTag(kClusterA)));
  EXPECT_THAT(TagsOfChange(Change(inv::RESOURCE_KIND_EVENT, "17", "", kClusterA)), IsEmpty());
  EXPECT_THAT(TagsOfChange(Change(inv::RESOURCE_KIND_ARTIFACT, "kubeconfig", "", kClusterA)),
              IsEmpty());
  EXPECT_THAT(ReadCache::WatchedKinds(),
              UnorderedElementsAre(inv::RESOURCE_KIND_CLUSTER, inv::RESOURCE_KIND_INFRA_ENV,
                                   inv::RESOURCE_KIND_HOST));
}

TEST_F(ReadCacheTest, HostMovedBetweenClustersInvalidatesBothClusters) {
  FakeFetch old_cluster{.tags = {ClusterTag(kClusterA), HostTag(kHost), InfraEnvTag(kInfraEnv)}};
  FakeFetch new_cluster{.tags = {ClusterTag(kClusterB)}};
  Get("a", old_cluster);
  Get("b", new_cluster);
  // The change names the host's new cluster only.
  callbacks_.on_change(Change(inv::RESOURCE_KIND_HOST, kHost, kInfraEnv, kClusterB));
  EXPECT_EQ(cache_->size(), 0);
}

TEST_F(ReadCacheTest, AnInvalidationDuringTheFetchKeepsItsAnswerOut) {
  FakeFetch fetch{.body = "old", .tags = {ClusterTag(kClusterA)}};
  fetch.during = [&] { callbacks_.on_change(Change(inv::RESOURCE_KIND_CLUSTER, kClusterA)); };
  EXPECT_EQ(Get("k", fetch), "old");  // the caller still gets its answer
  EXPECT_EQ(cache_->size(), 0);
  EXPECT_EQ(Counter("assisted_gateway_read_cache_refused_inserts_total"), 1);
  fetch.during = nullptr;
  fetch.body = "new";
  EXPECT_EQ(Get("k", fetch), "new");
  EXPECT_EQ(Get("k", fetch), "new");
  EXPECT_EQ(fetch.calls, 2);
}

TEST_F(ReadCacheTest, AnInvalidationOfOtherTagsDuringTheFetchDoesNotKeepItOut) {
  FakeFetch fetch{.tags = {ClusterTag(kClusterA)}};
  fetch.during = [&] { cache_->Invalidate({ClusterTag(kClusterB), HostTag(kHost)}); };
  Get("k", fetch);
  EXPECT_EQ(cache_->size(), 1);
}

TEST_F(ReadCacheTest, AFetchThatOutlivesTheRingOfRecentInvalidationsIsNotKept) {
  Start({.recent_invalidations = 4});
  FakeFetch fetch{.tags = {ClusterTag(kClusterA)}};
  auto unrelated = [&](int count) {
    for (int i = 0; i < count; ++i) cache_->Invalidate({HostTag(absl::StrCat("h", i))});
  };
  fetch.during = [&] { unrelated(4); };
  Get("k", fetch);
  EXPECT_EQ(cache_->size(), 1) << "four invalidations still fit in the ring";
  cache_->Clear();
  fetch.during = [&] { unrelated(5); };
  Get("k", fetch);
  EXPECT_EQ(cache_->size(), 0) << "the fifth pushed the first one out: unknown, so refused";
}

TEST_F(ReadCacheTest, StandsDownWhileTheChangeLogIsNotFollowed) {
  Start({});
  callbacks_.on_broken();  // as before the first message of a stream
  FakeFetch fetch{.tags = {ClusterTag(kClusterA)}};
  Get("k", fetch);
  Get("k", fetch);
  EXPECT_EQ(fetch.calls, 2);
  EXPECT_EQ(cache_->size(), 0);
  EXPECT_EQ(Counter("assisted_gateway_read_cache_bypassed_total"), 2);

  callbacks_.on_established();
  Get("k", fetch);
  Get("k", fetch);
  EXPECT_EQ(fetch.calls, 3);

  callbacks_.on_broken();  // cleared: changes made now would never reach us
  EXPECT_EQ(cache_->size(), 0);
  Get("k", fetch);
  EXPECT_EQ(fetch.calls, 4);
  callbacks_.on_established();
  Get("k", fetch);
  Get("k", fetch);
  EXPECT_EQ(fetch.calls, 5);
}

TEST_F(ReadCacheTest, StartsStoodDownUntilTheFirstStreamIsEstablished) {
  prometheus::Registry registry;
  ReadCacheMetrics metrics(registry);
  ReadCache cache({}, metrics, head_);
  FakeFetch fetch;
  for (int i = 0; i < 2; ++i) {
    EXPECT_THAT(cache.GetOrFetch("k", [&] { return fetch(); }), IsOk());
  }
  EXPECT_EQ(fetch.calls, 2);
}

TEST_F(ReadCacheTest, AStreamBreakDuringTheFetchKeepsItsAnswerOut) {
  FakeFetch fetch{.tags = {ClusterTag(kClusterA)}};
  fetch.during = [&] {
    callbacks_.on_broken();
    callbacks_.on_established();
  };
  Get("k", fetch);
  EXPECT_EQ(cache_->size(), 0);
}

TEST_F(ReadCacheTest, AResyncClearsEverythingAndKeepsFetchesInFlightOut) {
  FakeFetch a{.tags = {ClusterTag(kClusterA)}}, b{.tags = {ClusterTag(kClusterB)}};
  Get("a", a);
  b.during = [&] { callbacks_.on_resync(); };
  Get("b", b);
  EXPECT_EQ(cache_->size(), 0);
  Get("a", a);
  EXPECT_EQ(a.calls, 2);
}

TEST_F(ReadCacheTest, DifferentIdentitiesNeverShareEntries) {
  const std::string path = absl::StrCat("/clusters/", kClusterA);
  FakeFetch alice{.body = "alice's"}, bob{.body = "bob's"}, other_org{.body = "acme2's"};
  EXPECT_EQ(Get(ReadCacheKey({"user", "alice", "acme", path}), alice), "alice's");
  EXPECT_EQ(Get(ReadCacheKey({"user", "bob", "acme", path}), bob), "bob's");
  EXPECT_EQ(Get(ReadCacheKey({"user", "alice", "acme2", path}), other_org), "acme2's");
  EXPECT_EQ(Get(ReadCacheKey({"user", "alice", "acme", path}), alice), "alice's");
  EXPECT_EQ(alice.calls, 1);
  EXPECT_EQ(bob.calls, 1);
  EXPECT_EQ(other_org.calls, 1);
  // Parts never run into each other, whatever they contain.
  EXPECT_NE(ReadCacheKey({"ab", "c"}), ReadCacheKey({"a", "bc"}));
  EXPECT_NE(ReadCacheKey({"a:1;", ""}), ReadCacheKey({"a", "1;"}));
  EXPECT_NE(ReadCacheKey({"", "x"}), ReadCacheKey({"x", ""}));
}

TEST_F(ReadCacheTest, ConcurrentReadsAndInvalidationsKeepTheIndexConsistent) {
  Start({.max_entries = 8});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::string id = absl::StrCat("c", (i * 7 + t) % 16);
        FakeFetch fetch{.body = id, .tags = {ClusterTag(id)}};
        absl::StatusOr<std::shared_ptr<const std::string>> body =
            cache_->GetOrFetch(id, [&] { return fetch(); });
        ASSERT_THAT(body, IsOk());
        EXPECT_THAT(*body, Pointee(id));
        if (i % 5 == t) cache_->Invalidate({ClusterTag(id)});
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(cache_->size(), 8);
}

}  // namespace
}  // namespace assisted::gateway
