#include "services/inventory/host_store.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/store_test_base.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using types::v1::Cluster;
using types::v1::Host;
using types::v1::InfraEnv;

using HostStoreTest = ResourceStoresTest;

TEST_F(HostStoreTest, ListsThousandHostsInPagesWithoutGapsOrRepeats) {
  const InfraEnv infra_env = NewInfraEnv(alice_);
  for (int i = 0; i < 1000; ++i) ASSERT_THAT(NewHost(alice_, infra_env, Uuid(2, i)), IsOk());
  std::set<std::string> seen;
  HostQuery query{.page = {.size = 73}, .infra_env_id = infra_env.id()};
  int pages = 0;
  do {
    auto page = hosts_->List(alice_, query);
    ASSERT_THAT(page, IsOk());
    for (const Host& host : page->hosts()) EXPECT_TRUE(seen.insert(host.id()).second);
    query.page.token = page->next_page_token();
    ++pages;
  } while (!query.page.token.empty());
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_EQ(pages, 14);
  query.page.token = "garbage!";
  EXPECT_THAT(hosts_->List(alice_, query),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("page_token")));
}

TEST_F(HostStoreTest, HostsInheritTheirInfraEnvsOwnerAndAreFiltered) {
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
  auto with_hosts = clusters_->Get(alice_, cluster.id(), /*include_hosts=*/true);
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
  EXPECT_THAT(clusters_->Get(bob_, cluster.id(), /*include_hosts=*/true),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(HostStoreTest, HostsHeldByOtherReplicasAreListedByHolder) {
  const InfraEnv infra_env = NewInfraEnv(alice_);
  const std::vector<std::string> holders = {"replica-a", "replica-b", ""};
  for (size_t i = 0; i < holders.size(); ++i) {
    Host host;
    host.set_id(Uuid(6, static_cast<int>(i)));
    host.set_infra_env_id(infra_env.id());
    host.set_agent_stream_holder(holders[i]);
    ASSERT_THAT(hosts_->Create(alice_, host), IsOk());
  }
  const HostQuery list{.held_by_other_than = "replica-a"};
  auto held = hosts_->List(Caller::System(), list);
  ASSERT_THAT(held, IsOk());
  ASSERT_EQ(held->hosts_size(), 1);
  EXPECT_EQ(held->hosts(0).id(), Uuid(6, 1));
  EXPECT_EQ(held->hosts(0).agent_stream_holder(), "replica-b");
  // A holder cleared by an update leaves the listing.
  Host clear;
  clear.set_id(Uuid(6, 1));
  clear.set_infra_env_id(infra_env.id());
  ASSERT_THAT(hosts_->Update(Caller::System(), clear, Mask({"agent_stream_holder"})), IsOk());
  held = hosts_->List(Caller::System(), list);
  ASSERT_THAT(held, IsOk());
  EXPECT_EQ(held->hosts_size(), 0);
}

TEST_F(HostStoreTest, ARowStoredWithReportsAsJsonTextIsReadWithTypedReports) {
  // What an inventory from before the typed report fields stored: the agent's reports as the
  // reference's JSON text, in the row's binary proto.
  const InfraEnv infra_env = NewInfraEnv(alice_);
  Host old;
  old.set_id(Uuid(7, 1));
  old.set_infra_env_id(infra_env.id());
  old.set_ntp_sources(R"([{"source_name":"clock","source_state":"synced"}])");
  old.set_connectivity(R"({"remote_hosts":[{"host_id":"h2","l3_connectivity":[]}]})");
  old.set_images_status("{unreadable");
  ASSERT_THAT(hosts_->Create(alice_, old), IsOk());

  auto read = hosts_->Get(alice_, {infra_env.id(), old.id()});
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->ntp_sources(), "");
  ASSERT_EQ(read->ntp_sources_report().ntp_sources_size(), 1);
  EXPECT_EQ(read->ntp_sources_report().ntp_sources(0).source_state(), "synced");
  EXPECT_EQ(read->connectivity_report().remote_hosts(0).host_id(), "h2");
  EXPECT_FALSE(read->has_images_status_report());  // unreadable: as if never reported

  // The next write stores the typed form; the text is gone for good.
  Host patch;
  patch.set_id(old.id());
  patch.set_infra_env_id(infra_env.id());
  patch.set_requested_hostname("renamed");
  ASSERT_THAT(hosts_->Update(Caller::System(), patch, Mask({"requested_hostname"})), IsOk());
  read = hosts_->Get(alice_, {infra_env.id(), old.id()});
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->connectivity(), "");
  EXPECT_EQ(read->ntp_sources_report().ntp_sources(0).source_name(), "clock");
}

TEST_F(HostStoreTest, ARegistrationOrUpdateThatChangesNothingWritesNothing) {
  int announced = 0;
  HostStore hosts(*pool_, ResourceStoreOptions{.committed = [&](const Change&) { ++announced; }});
  const InfraEnv infra_env = NewInfraEnv(alice_);
  Host host;
  host.set_id(Uuid(8, 1));
  host.set_infra_env_id(infra_env.id());
  host.set_requested_hostname("node");
  host.set_discovery_agent_version("v1");
  ASSERT_THAT(hosts.Create(alice_, host), IsOk());
  ASSERT_EQ(announced, 1);
  // The row's xmin names the transaction that last wrote it; the log holds one entry per write.
  auto written_by = [&]() -> std::string {
    auto connection = pool_->Acquire();
    EXPECT_THAT(connection.status(), IsOk());
    auto rows =
        (*connection)
            ->Exec(
                "SELECT xmin::text || '/' || (SELECT count(*) FROM changes WHERE resource_id = $1) "
                "FROM hosts WHERE id = $1::uuid",
                {host.id()});
    EXPECT_THAT(rows.status(), IsOk());
    return rows.ok() && rows->rows() == 1 ? std::string(rows->Get(0, 0)) : "";
  };
  const std::string first = written_by();
  ASSERT_THAT(first, EndsWith("/1"));

  // The agent registers again with the same facts, as after a restart of the services.
  auto again = hosts.Create(alice_, host);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->resource_version(), 1);
  Host same;
  same.set_id(host.id());
  same.set_infra_env_id(infra_env.id());
  same.set_discovery_agent_version("v1");
  auto updated = hosts.Update(Caller::System(), same, Mask({"discovery_agent_version"}));
  ASSERT_THAT(updated, IsOk());
  EXPECT_EQ(updated->resource_version(), 1);
  EXPECT_EQ(written_by(), first);
  EXPECT_EQ(announced, 1);

  // A fact that did change is written, once.
  same.set_discovery_agent_version("v2");
  updated = hosts.Update(Caller::System(), same, Mask({"discovery_agent_version"}));
  ASSERT_THAT(updated, IsOk());
  EXPECT_EQ(updated->resource_version(), 2);
  EXPECT_THAT(written_by(), EndsWith("/2"));
  EXPECT_EQ(announced, 2);
}

}  // namespace
}  // namespace assisted::inventory
