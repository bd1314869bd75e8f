#include "lib/step_reports/reference_json.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"

namespace assisted::step_reports {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using nlohmann::json;
using ::testing::HasSubstr;

// Parses `text` into M in `form`, then prints it back: the reference's text survives the trip
// (compared as JSON: field order and number spelling are the printer's).
template <typename M>
M RoundTrip(const std::string& text, JsonForm form) {
  M report;
  EXPECT_THAT(ParseReferenceJson(text, form, "doc", report), IsOk());
  EXPECT_EQ(json::parse(ToReferenceJson(report, form)), json::parse(text));
  return report;
}

TEST(ReferenceJson, ConnectivityReport) {
  const auto report = RoundTrip<types::v1::ConnectivityReport>(
      R"({"remote_hosts":[{"host_id":"h2",
          "l2_connectivity":[{"outgoing_ip_address":"10.0.0.1","outgoing_nic":"eth0",
              "remote_ip_address":"10.0.0.2","remote_mac":"52:54:00:00:00:02","successful":true}],
          "l3_connectivity":[{"average_rtt_ms":0.5,"outgoing_nic":"","packet_loss_percentage":10,
              "remote_ip_address":"10.0.0.2","successful":true}],
          "mtu_report":[{"mtu_successful":false,"outgoing_nic":"eth0",
              "remote_ip_address":"10.0.0.2"}]}]})",
      JsonForm::kObject);
  EXPECT_EQ(report.remote_hosts(0).l3_connectivity(0).average_rtt_ms(), 0.5);
}

TEST(ReferenceJson, FreeNetworksAddressesIsABareList) {
  const auto report = RoundTrip<types::v1::FreeNetworksAddresses>(
      R"([{"network":"192.168.111.0/24","free_addresses":["192.168.111.9"]}])", JsonForm::kList);
  EXPECT_EQ(report.networks(0).free_addresses(0), "192.168.111.9");
}

TEST(ReferenceJson, NtpSourcesAsStepOutputAndAsHostText) {
  const auto output = RoundTrip<types::v1::NtpSynchronizationResponse>(
      R"({"ntp_sources":[{"source_name":"pool.ntp.org","source_state":"synced"}]})",
      JsonForm::kObject);
  EXPECT_EQ(ToReferenceJson(output, JsonForm::kList),
            R"([{"source_name":"pool.ntp.org","source_state":"synced"}])");
}

TEST(ReferenceJson, DiskSpeedCheckResponseAndDisksInfo) {
  RoundTrip<types::v1::DiskSpeedCheckResponse>(R"({"io_sync_duration":12,"path":"/dev/sda"})",
                                               JsonForm::kObject);
  // Integers print as JSON numbers, not proto3's quoted 64-bit form.
  const auto disks = RoundTrip<types::v1::DisksInfo>(
      R"([{"id":"","path":"/dev/sda","disk_speed":{"tested":true,"speed_ms":3,"exit_code":0}}])",
      JsonForm::kList);
  EXPECT_EQ(disks.disks(0).disk_speed().speed_ms(), 3);
}

TEST(ReferenceJson, DomainResolutionResponse) {
  const auto report = RoundTrip<types::v1::DomainResolutionResponse>(
      R"({"resolutions":[{"domain_name":"api.x.example.com","ipv4_addresses":["10.0.0.5"],
          "ipv6_addresses":[],"cnames":[]}]})",
      JsonForm::kObject);
  EXPECT_EQ(report.resolutions(0).ipv4_addresses(0), "10.0.0.5");
}

TEST(ReferenceJson, ContainerImageAvailabilityResponse) {
  RoundTrip<types::v1::ContainerImageAvailabilityResponse>(
      R"({"images":[{"name":"quay.io/x","result":"success","size_bytes":1000,"time":2.5,
          "download_rate":0.4}]})",
      JsonForm::kObject);
}

TEST(ReferenceJson, ApiVipAndTangConnectivity) {
  RoundTrip<types::v1::ApiVipConnectivityResponse>(
      R"({"is_success":false,"url":"http://1.2.3.4:22624/config/worker","ignition":"",
          "download_error":"connection refused"})",
      JsonForm::kObject);
  RoundTrip<types::v1::TangConnectivityResponse>(
      R"({"is_success":true,"tang_server_response":[{"tang_url":"http://t","payload":"p"}]})",
      JsonForm::kObject);
}

TEST(ReferenceJson, UnsetFieldsArePrintedAsTheReferenceAgentPrintsThem) {
  EXPECT_EQ(ToReferenceJson(types::v1::ApiVipConnectivityResponse(), JsonForm::kObject),
            R"({"is_success":false,"url":"","ignition":"","download_error":""})");
  EXPECT_EQ(ToReferenceJson(types::v1::NtpSynchronizationResponse(), JsonForm::kList), "[]");
}

TEST(ReferenceJson, MembersTheMessageLacksAreIgnored) {
  types::v1::NtpSynchronizationResponse report;
  EXPECT_THAT(ParseReferenceJson(R"({"ntp_sources":[{"source_name":"a","extra":1}],"new":{}})",
                                 JsonForm::kObject, "doc", report),
              IsOk());
  EXPECT_EQ(report.ntp_sources(0).source_name(), "a");
}

TEST(ReferenceJson, TextOfTheWrongShapeIsRefusedNamingTheField) {
  types::v1::NtpSynchronizationResponse report;
  report.add_ntp_sources()->set_source_name("old");
  EXPECT_THAT(ParseReferenceJson(R"({"ntp_sources":"x"})", JsonForm::kObject, "output", report),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("output: not a")));
  EXPECT_EQ(report.ntp_sources_size(), 0);  // nothing half-filled
  EXPECT_THAT(
      ParseReferenceJson(R"({"ntp_sources":[]})", JsonForm::kList, "host.ntp_sources", report),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("host.ntp_sources: expected a JSON list")));
  EXPECT_THAT(ParseReferenceJson("{broken", JsonForm::kObject, "output", report),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(HostReportFields, NameEveryTextFieldAndItsTypedField) {
  const google::protobuf::Descriptor& host = *types::v1::Host::descriptor();
  ASSERT_EQ(HostReportFields().size(), 8u);
  for (const HostReportField& field : HostReportFields()) {
    ASSERT_NE(host.FindFieldByName(field.text), nullptr) << field.text;
    ASSERT_NE(host.FindFieldByName(field.typed), nullptr) << field.typed;
    EXPECT_EQ(FindHostReportField(field.typed), &field);
  }
  EXPECT_EQ(FindHostReportField("inventory"), nullptr);
}

TEST(UpgradeLegacyReports, MovesStoredTextIntoTheTypedFields) {
  types::v1::Host host;
  host.set_ntp_sources(R"([{"source_name":"clock","source_state":"synced"}])");
  host.set_connectivity(R"({"remote_hosts":[{"host_id":"h2"}]})");
  host.set_images_status("{broken");
  host.mutable_disks_info_report()->add_disks()->set_path("/dev/new");
  host.set_disks_info(R"([{"path":"/dev/old"}])");

  EXPECT_EQ(UpgradeLegacyReports(host), 1);  // the broken images_status

  EXPECT_EQ(host.ntp_sources_report().ntp_sources(0).source_state(), "synced");
  EXPECT_EQ(host.connectivity_report().remote_hosts(0).host_id(), "h2");
  EXPECT_FALSE(host.has_images_status_report());
  EXPECT_EQ(host.disks_info_report().disks(0).path(), "/dev/new");  // the typed one is newer
  for (const HostReportField& field : HostReportFields()) {
    EXPECT_EQ(
        host.GetReflection()->GetString(host, host.GetDescriptor()->FindFieldByName(field.text)),
        "")
        << field.text;
  }
}

}  // namespace
}  // namespace assisted::step_reports
