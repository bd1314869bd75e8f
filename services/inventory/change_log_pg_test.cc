#include "services/inventory/change_log.h"

#include <algorithm>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/artifact_store.h"
#include "services/inventory/change_feed.h"
#include "services/inventory/cluster_store.h"
#include "services/inventory/event_store.h"
#include "services/inventory/host_store.h"
#include "services/inventory/infra_env_store.h"
#include "services/inventory/store_test_base.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::IsOk;
using ::testing::ElementsAre;

// What a watcher learns of one change.
using Entry = std::tuple<v1::ResourceKind, v1::ChangeType, std::string, int64_t>;

class ChangeLogTest : public InventoryDbTest {
 protected:
  // The whole log, numbered, as (kind, type, id, resource_version).
  std::vector<Entry> Log() {
    EXPECT_THAT(SequencePending(*pool_), IsOk());
    absl::StatusOr<int64_t> head = HeadSeq(*pool_);
    EXPECT_THAT(head, IsOk());
    absl::StatusOr<std::vector<v1::WatchEvent>> events =
        ReadChanges(*pool_, 0, head.value_or(0), {}, 1000);
    EXPECT_THAT(events, IsOk());
    std::vector<Entry> entries;
    for (const v1::WatchEvent& event : events.value_or(std::vector<v1::WatchEvent>())) {
      entries.emplace_back(event.kind(), event.change_type(), event.id(), event.resource_version());
    }
    return entries;
  }
};

TEST_F(ChangeLogTest, AnAppendedChangeIsLoggedAsGiven) {
  {
    absl::StatusOr<pg::Pool::Handle> connection = pool_->Acquire();
    ASSERT_THAT(connection, IsOk());
    absl::StatusOr<pg::Transaction> tx = pg::Transaction::Begin(**connection);
    ASSERT_THAT(tx, IsOk());
    ASSERT_THAT(AppendChange(*tx, {v1::RESOURCE_KIND_HOST, Uuid(2, 1), Uuid(1, 1), Uuid(0, 1), 7,
                                   v1::CHANGE_TYPE_UPDATED, "HOST_STATUS_KNOWN"}),
                IsOk());
    ASSERT_THAT(tx->Commit(), IsOk());
  }  // the connection goes back to the pool before Log() takes one
  EXPECT_THAT(Log(),
              ElementsAre(Entry{v1::RESOURCE_KIND_HOST, v1::CHANGE_TYPE_UPDATED, Uuid(2, 1), 7}));
  absl::StatusOr<std::vector<v1::WatchEvent>> events = ReadChanges(*pool_, 0, 1, {}, 1);
  ASSERT_THAT(events, IsOk());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].infra_env_id(), Uuid(1, 1));
  EXPECT_EQ((*events)[0].cluster_id(), Uuid(0, 1));
  EXPECT_EQ((*events)[0].host_status(), types::v1::HOST_STATUS_KNOWN);
}

// Writes of many rows in one statement (a cluster's hosts, a selection of artifacts) log one
// entry per row, like single writes.
TEST_F(ChangeLogTest, EveryWriteLogsOneEntryPerRowItChanged) {
  const Caller system = Caller::System();
  ClusterStore clusters(*pool_);
  InfraEnvStore infra_envs(*pool_);
  HostStore hosts(*pool_);
  ArtifactStore artifacts(*pool_, 1 << 20);
  EventStore events(*pool_);
  const std::string cluster = CreateCluster(system);
  ASSERT_FALSE(cluster.empty());
  types::v1::InfraEnv infra_env;
  infra_env.set_name("discovery");
  infra_env.set_cluster_id(cluster);
  absl::StatusOr<types::v1::InfraEnv> created = infra_envs.Create(system, infra_env);
  ASSERT_THAT(created, IsOk());
  for (int i = 1; i <= 2; ++i) {
    types::v1::Host host;
    host.set_id(Uuid(2, i));
    host.set_infra_env_id(created->id());
    host.set_cluster_id(cluster);
    ASSERT_THAT(hosts.Create(system, host), IsOk());
  }
  for (const char* name : {"a", "b"}) {
    ASSERT_THAT(artifacts.Put(system, {.cluster_id = cluster,
                                       .name = name,
                                       .kind = v1::ARTIFACT_KIND_MANIFEST,
                                       .content = "x"}),
                IsOk());
  }
  types::v1::Event event;
  event.set_cluster_id(cluster);
  event.set_severity(types::v1::EVENT_SEVERITY_INFO);
  event.set_message("hello");
  absl::StatusOr<types::v1::Event> appended = events.Append(system, event);
  ASSERT_THAT(appended, IsOk());
  ASSERT_THAT(artifacts.Delete(system, cluster, {}), IsOk());
  ASSERT_THAT(clusters.Delete(system, cluster), IsOk());

  std::vector<Entry> log = Log();
  // The artifacts' deletions come from one statement, and so do the hosts': their order among
  // themselves is not fixed.
  ASSERT_EQ(log.size(), 12u);
  std::sort(log.begin() + 7, log.begin() + 9);
  std::sort(log.begin() + 10, log.end());
  EXPECT_THAT(
      log,
      ElementsAre(
          Entry{v1::RESOURCE_KIND_CLUSTER, v1::CHANGE_TYPE_CREATED, cluster, 1},
          Entry{v1::RESOURCE_KIND_INFRA_ENV, v1::CHANGE_TYPE_CREATED, created->id(), 1},
          Entry{v1::RESOURCE_KIND_HOST, v1::CHANGE_TYPE_CREATED, Uuid(2, 1), 1},
          Entry{v1::RESOURCE_KIND_HOST, v1::CHANGE_TYPE_CREATED, Uuid(2, 2), 1},
          Entry{v1::RESOURCE_KIND_ARTIFACT, v1::CHANGE_TYPE_UPDATED, "a", 1},
          Entry{v1::RESOURCE_KIND_ARTIFACT, v1::CHANGE_TYPE_UPDATED, "b", 1},
          Entry{v1::RESOURCE_KIND_EVENT, v1::CHANGE_TYPE_CREATED, absl::StrCat(appended->id()), 1},
          Entry{v1::RESOURCE_KIND_ARTIFACT, v1::CHANGE_TYPE_DELETED, "a", 1},
          Entry{v1::RESOURCE_KIND_ARTIFACT, v1::CHANGE_TYPE_DELETED, "b", 1},
          Entry{v1::RESOURCE_KIND_CLUSTER, v1::CHANGE_TYPE_DELETED, cluster, 2},
          Entry{v1::RESOURCE_KIND_HOST, v1::CHANGE_TYPE_DELETED, Uuid(2, 1), 2},
          Entry{v1::RESOURCE_KIND_HOST, v1::CHANGE_TYPE_DELETED, Uuid(2, 2), 2}));
}

}  // namespace
}  // namespace assisted::inventory
