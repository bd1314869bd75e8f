#include "services/orchestrator/core/agent_reports.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace assisted::orchestrator::core {
namespace {

using ::testing::ElementsAre;

TEST(ReportsOf, ReadsTheTypedConnectivityReport) {
  types::v1::Host host;
  types::v1::ConnectivityRemoteHost* remote =
      host.mutable_connectivity_report()->add_remote_hosts();
  remote->set_host_id("h2");
  types::v1::L2Connectivity* l2 = remote->add_l2_connectivity();
  l2->set_outgoing_nic("eth0");
  l2->set_remote_ip_address("10.0.0.2");
  l2->set_successful(true);
  types::v1::L3Connectivity* l3 = remote->add_l3_connectivity();
  l3->set_remote_ip_address("10.0.0.2");
  l3->set_successful(true);
  l3->set_average_rtt_ms(0.5);
  l3->set_packet_loss_percentage(1.5);
  remote->add_mtu_report()->set_outgoing_nic("eth0");

  const HostReports r = ReportsOf(host);
  ASSERT_TRUE(r.connectivity.has_value());
  ASSERT_EQ(r.connectivity->remote_hosts.size(), 1u);
  const RemoteHostConnectivity& h = r.connectivity->remote_hosts[0];
  EXPECT_EQ(h.host_id, "h2");
  ASSERT_EQ(h.l2.size(), 1u);
  EXPECT_TRUE(h.l2[0].successful);
  EXPECT_EQ(h.l2[0].outgoing_nic, "eth0");
  ASSERT_EQ(h.l3.size(), 1u);
  EXPECT_DOUBLE_EQ(h.l3[0].average_rtt_ms, 0.5);
  EXPECT_DOUBLE_EQ(h.l3[0].packet_loss_percentage, 1.5);
  ASSERT_EQ(h.mtu.size(), 1u);
  EXPECT_FALSE(h.mtu[0].successful);
}

TEST(ReportsOf, ReadsTheSmallReports) {
  types::v1::Host host;
  types::v1::NtpSource* ntp = host.mutable_ntp_sources_report()->add_ntp_sources();
  ntp->set_source_name("a");
  ntp->set_source_state("synced");
  types::v1::ContainerImageAvailability* failed = host.mutable_images_status_report()->add_images();
  failed->set_name("quay.io/x");
  failed->set_result("failure");
  types::v1::ContainerImageAvailability* pulled = host.mutable_images_status_report()->add_images();
  pulled->set_result("success");
  pulled->set_download_rate(12.5);
  types::v1::DiskInfo* disk = host.mutable_disks_info_report()->add_disks();
  disk->set_path("/dev/sda");
  disk->mutable_disk_speed()->set_tested(true);
  disk->mutable_disk_speed()->set_speed_ms(7);
  types::v1::DomainResolution* dns =
      host.mutable_domain_name_resolutions_report()->add_resolutions();
  dns->set_domain_name("api.x.");
  dns->add_ipv4_addresses("1.2.3.4");
  host.mutable_api_vip_connectivity_report()->set_download_error("timeout");
  host.mutable_tang_connectivity_report()->set_is_success(true);

  const HostReports r = ReportsOf(host);
  ASSERT_TRUE(r.ntp_sources.has_value());
  EXPECT_EQ((*r.ntp_sources)[0].state, "synced");
  ASSERT_TRUE(r.images.has_value());
  EXPECT_FALSE((*r.images)[0].success);
  EXPECT_FALSE((*r.images)[0].download_rate_mbps.has_value());  // 0: not measured
  EXPECT_TRUE((*r.images)[1].success);
  EXPECT_EQ((*r.images)[1].download_rate_mbps, 12.5);
  ASSERT_NE(r.SpeedOf("/dev/sda"), nullptr);
  EXPECT_EQ(r.SpeedOf("/dev/sda")->speed_ms, 7);
  EXPECT_EQ(r.SpeedOf("/dev/sdb"), nullptr);
  ASSERT_NE(r.Resolution("api.x"), nullptr);
  EXPECT_THAT(r.Resolution("api.x.")->ipv4, ElementsAre("1.2.3.4"));
  EXPECT_TRUE(r.Resolution("api.x.")->Resolved());
  ASSERT_TRUE(r.api_vip.has_value());
  EXPECT_FALSE(r.api_vip->success);
  EXPECT_EQ(r.api_vip->error, "timeout");
  ASSERT_TRUE(r.tang.has_value());
  EXPECT_TRUE(r.tang->success);
}

TEST(ReportsOf, AnUnsetReportIsAbsentAndAnEmptyOneIsNot) {
  types::v1::Host host;
  host.mutable_ntp_sources_report();  // the agent reported no sources
  const HostReports r = ReportsOf(host);
  ASSERT_TRUE(r.ntp_sources.has_value());
  EXPECT_TRUE(r.ntp_sources->empty());
  EXPECT_FALSE(r.connectivity.has_value());
  EXPECT_FALSE(r.images.has_value());
  EXPECT_FALSE(r.disk_speeds.has_value());
  EXPECT_FALSE(r.domains.has_value());
  EXPECT_FALSE(r.api_vip.has_value());
  EXPECT_FALSE(r.tang.has_value());
}

TEST(ReportsOf, NeverReadsTheLegacyTextFields) {
  // What the inventory moves into the typed fields when it reads an old row; a Host that still
  // carries such text here has not been through it, and the text is not looked at.
  types::v1::Host host;
  host.set_ntp_sources(R"([{"source_name":"a","source_state":"synced"}])");
  host.set_connectivity("{broken");
  const HostReports r = ReportsOf(host);
  EXPECT_FALSE(r.ntp_sources.has_value());
  EXPECT_FALSE(r.connectivity.has_value());
}

}  // namespace
}  // namespace assisted::orchestrator::core
