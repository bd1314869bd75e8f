#include "services/inventory/change_hints.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace assisted::inventory {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Change HostChange(const std::string& id, const std::string& cluster_id = "c1") {
  return {v1::RESOURCE_KIND_HOST, id, "ie1", cluster_id, 3, v1::CHANGE_TYPE_UPDATED,
          "HOST_STATUS_KNOWN"};
}

std::vector<std::string> Ids(const std::vector<v1::WatchEvent>& events) {
  std::vector<std::string> ids;
  for (const v1::WatchEvent& event : events) ids.push_back(event.id());
  return ids;
}

TEST(EventOfTest, CarriesTheChangeAndItsStatusButNoPosition) {
  const v1::WatchEvent host = EventOf(HostChange("h1"));
  EXPECT_EQ(host.kind(), v1::RESOURCE_KIND_HOST);
  EXPECT_EQ(host.infra_env_id(), "ie1");
  EXPECT_EQ(host.cluster_id(), "c1");
  EXPECT_EQ(host.resource_version(), 3);
  EXPECT_EQ(host.change_type(), v1::CHANGE_TYPE_UPDATED);
  EXPECT_EQ(host.host_status(), types::v1::HOST_STATUS_KNOWN);
  EXPECT_EQ(host.seq(), 0);
  EXPECT_FALSE(host.has_changed_at());

  const v1::WatchEvent cluster = EventOf({v1::RESOURCE_KIND_CLUSTER, "c1", "", "c1", 2,
                                          v1::CHANGE_TYPE_CREATED, "CLUSTER_STATUS_READY"});
  EXPECT_EQ(cluster.cluster_status(), types::v1::CLUSTER_STATUS_READY);
  // A status of the wrong kind, or none, leaves the oneof unset rather than guessing.
  EXPECT_EQ(EventOf({v1::RESOURCE_KIND_HOST, "h", "", "", 1, v1::CHANGE_TYPE_UPDATED,
                     "CLUSTER_STATUS_READY"})
                .status_case(),
            v1::WatchEvent::STATUS_NOT_SET);
}

TEST(MatchesTest, EverySetCriterionMustHold) {
  const v1::WatchEvent host = EventOf(HostChange("h1"));
  v1::WatchFilter filter;
  EXPECT_TRUE(Matches(filter, host));
  filter.add_kinds(v1::RESOURCE_KIND_CLUSTER);
  EXPECT_FALSE(Matches(filter, host));
  filter.add_kinds(v1::RESOURCE_KIND_HOST);
  EXPECT_TRUE(Matches(filter, host));
  filter.set_cluster_id("c2");
  EXPECT_FALSE(Matches(filter, host));
  filter.set_cluster_id("c1");
  filter.set_infra_env_id("ie2");
  EXPECT_FALSE(Matches(filter, host));
  filter.set_infra_env_id("ie1");
  EXPECT_TRUE(Matches(filter, host));
}

TEST(HintRingTest, ReadsWhatCameAfterAPositionAsUnnumberedHints) {
  HintRing ring(8);
  EXPECT_EQ(ring.last(), 0);
  EXPECT_THAT(ring.After(0, {}), IsEmpty());
  EXPECT_EQ(ring.Add(HostChange("h1")), 1);
  EXPECT_EQ(ring.Add(HostChange("h2")), 2);
  EXPECT_EQ(ring.Add(HostChange("h3")), 3);
  EXPECT_THAT(Ids(ring.After(0, {})), ElementsAre("h1", "h2", "h3"));
  EXPECT_THAT(Ids(ring.After(2, {})), ElementsAre("h3"));
  EXPECT_THAT(ring.After(3, {}), IsEmpty());
  for (const v1::WatchEvent& hint : ring.After(0, {})) {
    EXPECT_TRUE(hint.hint());
    EXPECT_EQ(hint.seq(), 0);
  }
}

TEST(HintRingTest, FiltersLikeTheChangeLog) {
  HintRing ring(8);
  ring.Add(HostChange("h1", "c1"));
  ring.Add(HostChange("h2", "c2"));
  v1::WatchFilter filter;
  filter.set_cluster_id("c2");
  EXPECT_THAT(Ids(ring.After(0, filter)), ElementsAre("h2"));
}

TEST(HintRingTest, AReaderFurtherBehindThanTheRingHoldsMissesOnlyTheOldest) {
  HintRing ring(3);
  for (int i = 1; i <= 5; ++i) ring.Add(HostChange("h" + std::to_string(i)));
  EXPECT_EQ(ring.last(), 5);
  EXPECT_THAT(Ids(ring.After(0, {})), ElementsAre("h3", "h4", "h5"));
  EXPECT_THAT(Ids(ring.After(3, {})), ElementsAre("h4", "h5"));
}

}  // namespace
}  // namespace assisted::inventory
