#include "services/orchestrator/core/agent_reports.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::orchestrator::core {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(AgentReports, ParsesTheReferenceConnectivityFormat) {
  absl::StatusOr<ConnectivityReport> r = ParseConnectivity(R"({"remote_hosts": [{
      "host_id": "h2",
      "l2_connectivity": [{"outgoing_ip_address": "10.0.0.1", "outgoing_nic": "eth0",
                           "remote_ip_address": "10.0.0.2", "remote_mac": "aa", "successful": true}],
      "l3_connectivity": [{"outgoing_nic": "eth0", "remote_ip_address": "10.0.0.2",
                           "successful": true, "average_rtt_ms": 0.5,
                           "packet_loss_percentage": 1.5}],
      "mtu_report": [{"outgoing_nic": "eth0", "remote_ip_address": "10.0.0.2",
                      "mtu_successful": false}]}]})");
  ASSERT_THAT(r, IsOk());
  ASSERT_EQ(r->remote_hosts.size(), 1u);
  const RemoteHostConnectivity& h = r->remote_hosts[0];
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

TEST(AgentReports, ParsesTheSmallReports) {
  auto ntp = ParseNtpSources(R"([{"source_name": "a", "source_state": "synced"}])");
  ASSERT_THAT(ntp, IsOk());
  EXPECT_EQ((*ntp)[0].state, "synced");
  auto images = ParseImagesStatus(
      R"([{"name": "quay.io/x", "result": "failure"}, {"name": "y", "result": "success",
          "download_rate": 12.5}])");
  ASSERT_THAT(images, IsOk());
  EXPECT_FALSE((*images)[0].success);
  EXPECT_FALSE((*images)[0].download_rate_mbps.has_value());
  EXPECT_EQ((*images)[1].download_rate_mbps, 12.5);
  auto disks = ParseDisksInfo(
      R"([{"path": "/dev/sda", "disk_speed": {"tested": true, "speed_ms": 7, "exit_code": 0}}])");
  ASSERT_THAT(disks, IsOk());
  EXPECT_EQ((*disks)[0].speed_ms, 7);
  auto dns = ParseDomainResolutions(
      R"({"resolutions": [{"domain_name": "api.c.example.com", "ipv4_addresses": ["1.2.3.4"]}]})");
  ASSERT_THAT(dns, IsOk());
  EXPECT_THAT((*dns)[0].ipv4, ElementsAre("1.2.3.4"));
  auto vip = ParseReachability(R"({"is_success": false, "download_error": "timeout"})");
  ASSERT_THAT(vip, IsOk());
  EXPECT_FALSE(vip->success);
  EXPECT_EQ(vip->error, "timeout");
}

TEST(AgentReports, RejectsTheWrongShape) {
  EXPECT_THAT(ParseNtpSources("{}"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ntp sources")));
  EXPECT_THAT(ParseConnectivity("not json"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(AgentReports, HostReportsLeaveBadOrMissingFieldsAbsent) {
  types::v1::Host host;
  host.set_ntp_sources("[]");
  host.set_images_status("{broken");
  host.set_disks_info(R"([{"path": "/dev/sda", "disk_speed": {"tested": true}}])");
  host.set_domain_name_resolutions(R"({"resolutions": [{"domain_name": "api.x.",
                                       "cnames": ["lb"]}]})");
  std::vector<std::string> errors;
  HostReports r = ParseHostReports(host, &errors);
  EXPECT_TRUE(r.ntp_sources.has_value());
  EXPECT_FALSE(r.images.has_value());
  EXPECT_FALSE(r.connectivity.has_value());
  EXPECT_THAT(errors, ElementsAre(HasSubstr("images status")));
  ASSERT_NE(r.SpeedOf("/dev/sda"), nullptr);
  EXPECT_EQ(r.SpeedOf("/dev/sdb"), nullptr);
  ASSERT_NE(r.Resolution("api.x"), nullptr);
  EXPECT_TRUE(r.Resolution("api.x.")->Resolved());
}

}  // namespace
}  // namespace assisted::orchestrator::core
