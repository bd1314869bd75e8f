// Each step type the core validations read, produced by the agent's own executors (simulated
// host: same code paths, answers from hooks), normalised, then read back as the core reads it.

#include "services/orchestrator/step_results.h"

#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/steps/executors.h"
#include "services/agent/steps/test_util.h"
#include "services/orchestrator/core/agent_reports.h"

namespace assisted::orchestrator {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using types::v1::StepResult;
using types::v1::StepType;

class StepResultsTest : public ::testing::Test {
 protected:
  StepResultsTest() {
    agent::steps::ExecutorsConfig config;
    config.connectivity.probes_per_address = 1;
    config.connectivity.probe_interval = absl::ZeroDuration();
    executors_ = agent::steps::MakeExecutors(config, [] {
      return absl::StatusOr<std::string>(R"({"hostname": "master-0", "cpu": {"count": 8}})");
    });
    hooks_.probe = [](const net::IpAddress& address) -> std::optional<absl::Duration> {
      if (address.ToString() == "192.168.111.11") return absl::Milliseconds(1);
      return std::nullopt;
    };
    hooks_.neighbour_mac = [](const net::IpAddress& address) -> std::optional<std::string> {
      if (address.ToString() == "192.168.111.11") return "52:54:00:00:00:11";
      return std::nullopt;
    };
    hooks_.resolve = [](const std::string& name) {
      agent::steps::ResolvedName resolved;
      if (name == "api.demo.example.com") resolved.ipv4 = {"192.168.111.5"};
      return resolved;
    };
    hooks_.ntp = [](const std::vector<std::string>& requested) {
      std::vector<agent::steps::NtpSourceState> sources;
      for (const std::string& name : requested) sources.push_back({name, "synced"});
      sources.push_back({"10.0.0.9", "unreachable"});
      return sources;
    };
    hooks_.registry = [](const std::string& image) {
      agent::steps::RegistryAnswer answer;
      if (image.rfind("quay.io/", 0) == 0) {
        answer.http_status = 200;
        answer.time = absl::Milliseconds(20);
        answer.bytes = 2'000'000;
      } else {
        answer.error = "connection refused";
      }
      return answer;
    };
    disk_ = ::testing::TempDir() + "/sda.img";
    std::ofstream(disk_, std::ios::binary).write(std::string(4 << 20, '\0').data(), 4 << 20);
    hooks_.disk_image = [this](const std::string& device) {
      return device == "/dev/sda" ? disk_ : std::string();
    };
    holder_.simulation = &hooks_;
  }

  // What the agent answers to a step of `type` with `args`.
  StepResult Run(StepType type, std::vector<std::string> args) {
    types::v1::Step step = agent::steps::testing::MakeStep(type, std::move(args));
    for (const auto& executor : executors_) {
      if (executor->type() != type) continue;
      agent::steps::StepContext context = holder_.context();
      StepResult result = executor->Run(step, context);
      result.set_step_id(step.step_id());
      result.set_step_type(type);
      return result;
    }
    ADD_FAILURE() << "no executor for " << types::v1::StepType_Name(type);
    return {};
  }

  // The host after applying `result` to `host` as the hub does.
  static types::v1::Host Apply(const StepResult& result, types::v1::Host host) {
    absl::StatusOr<HostFieldsUpdate> update = NormalizeStepResult(result, host);
    EXPECT_THAT(update.status(), IsOk());
    if (!update.ok()) return host;
    update->ApplyTo(host);  // each field replaced whole, as the inventory writes it
    return host;
  }

  std::vector<std::unique_ptr<agent::steps::StepExecutor>> executors_;
  agent::steps::SimulationHooks hooks_;
  agent::steps::testing::ContextHolder holder_;
  std::string disk_;
};

TEST_F(StepResultsTest, InventoryProtoAndJsonBothLandOnTheHost) {
  StepResult typed;
  typed.set_step_type(types::v1::STEP_TYPE_INVENTORY);
  typed.mutable_inventory()->set_hostname("typed");
  EXPECT_EQ(Apply(typed, {}).inventory().hostname(), "typed");

  const StepResult json = Run(types::v1::STEP_TYPE_INVENTORY, {});
  ASSERT_EQ(json.exit_code(), 0) << json.error();
  const types::v1::Host host = Apply(json, {});
  EXPECT_EQ(host.inventory().hostname(), "master-0");
  EXPECT_EQ(host.inventory().cpu().count(), 8);
}

TEST_F(StepResultsTest, ConnectivityIsStoredAsTheCoreReadsIt) {
  const StepResult result =
      Run(types::v1::STEP_TYPE_CONNECTIVITY_CHECK,
          {R"([{"host_id": "11111111-1111-1111-1111-111111111111", "nics": [{"name": "eth0",
           "mac": "52:54:00:00:00:11", "ip_addresses": ["192.168.111.11/24"]}]}])"});
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  const core::HostReports reports = core::ReportsOf(Apply(result, {}));
  ASSERT_TRUE(reports.connectivity.has_value());
  ASSERT_EQ(reports.connectivity->remote_hosts.size(), 1u);
  const core::RemoteHostConnectivity& remote = reports.connectivity->remote_hosts[0];
  EXPECT_EQ(remote.host_id, "11111111-1111-1111-1111-111111111111");
  ASSERT_EQ(remote.l3.size(), 1u);
  EXPECT_TRUE(remote.l3[0].successful);
}

TEST_F(StepResultsTest, FreeAddressesAreKeptAsSent) {
  const StepResult result =
      Run(types::v1::STEP_TYPE_FREE_NETWORK_ADDRESSES, {R"(["192.168.111.8/30"])"});
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  const types::v1::Host host = Apply(result, {});
  ASSERT_EQ(host.free_addresses_report().networks_size(), 1);
  EXPECT_EQ(host.free_addresses_report().networks(0).network(), "192.168.111.8/30");
  EXPECT_THAT(host.free_addresses_report().networks(0).free_addresses(),
              ::testing::Contains("192.168.111.9"));
}

TEST_F(StepResultsTest, NtpSourcesAreUnwrapped) {
  const StepResult result =
      Run(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, {R"({"ntp_source": "clock.example.com"})"});
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  const core::HostReports reports = core::ReportsOf(Apply(result, {}));
  ASSERT_TRUE(reports.ntp_sources.has_value());
  ASSERT_EQ(reports.ntp_sources->size(), 2u);
  EXPECT_EQ((*reports.ntp_sources)[0].name, "clock.example.com");
  EXPECT_EQ((*reports.ntp_sources)[0].state, "synced");
}

TEST_F(StepResultsTest, DomainResolutionsAreStoredAsTheCoreReadsThem) {
  const StepResult result = Run(types::v1::STEP_TYPE_DOMAIN_RESOLUTION,
                                {R"({"domains": [{"domain_name": "api.demo.example.com"},
                           {"domain_name": "nothing.example.com"}]})"});
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  const core::HostReports reports = core::ReportsOf(Apply(result, {}));
  ASSERT_NE(reports.Resolution("api.demo.example.com"), nullptr);
  EXPECT_TRUE(reports.Resolution("api.demo.example.com")->Resolved());
  ASSERT_NE(reports.Resolution("nothing.example.com"), nullptr);
  EXPECT_FALSE(reports.Resolution("nothing.example.com")->Resolved());
}

TEST_F(StepResultsTest, ImageAvailabilityIsStoredEvenWhenAnImageFailed) {
  const StepResult result =
      Run(types::v1::STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY,
          {R"({"images": ["quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64",
                          "registry.example.com/missing:1"], "timeout": 60})"});
  EXPECT_EQ(result.exit_code(), 2);  // the reference agent's "some image failed"
  const core::HostReports reports = core::ReportsOf(Apply(result, {}));
  ASSERT_TRUE(reports.images.has_value());
  ASSERT_EQ(reports.images->size(), 2u);
  EXPECT_TRUE((*reports.images)[0].success);
  EXPECT_FALSE((*reports.images)[1].success);
}

TEST_F(StepResultsTest, DiskSpeedMergesIntoDisksInfoPerPath) {
  types::v1::Host host;
  for (const auto& [path, ms] : {std::pair{"/dev/sdb", 3}, std::pair{"/dev/sda", 99}}) {
    types::v1::DiskInfo* disk = host.mutable_disks_info_report()->add_disks();
    disk->set_path(path);
    disk->mutable_disk_speed()->set_tested(true);
    disk->mutable_disk_speed()->set_speed_ms(ms);
  }
  const StepResult measured =
      Run(types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK, {R"({"path": "/dev/sda"})", "60"});
  ASSERT_EQ(measured.exit_code(), 0) << measured.error();
  host = Apply(measured, host);
  core::HostReports reports = core::ReportsOf(host);
  ASSERT_TRUE(reports.disk_speeds.has_value());
  EXPECT_EQ(reports.disk_speeds->size(), 2u);
  ASSERT_NE(reports.SpeedOf("/dev/sdb"), nullptr);
  EXPECT_EQ(reports.SpeedOf("/dev/sdb")->speed_ms, 3);
  ASSERT_NE(reports.SpeedOf("/dev/sda"), nullptr);
  EXPECT_TRUE(reports.SpeedOf("/dev/sda")->tested);
  EXPECT_EQ(reports.SpeedOf("/dev/sda")->exit_code, 0);

  // A disk the agent cannot measure: the failure is what the validation reads.
  const StepResult failed =
      Run(types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK, {R"({"path": "/dev/sdz"})"});
  ASSERT_NE(failed.exit_code(), 0);
  reports = core::ReportsOf(Apply(failed, host));
  ASSERT_NE(reports.SpeedOf("/dev/sdz"), nullptr);
  EXPECT_NE(reports.SpeedOf("/dev/sdz")->exit_code, 0);
}

TEST_F(StepResultsTest, FailedStepsStoreNothing) {
  const StepResult bad_args = Run(types::v1::STEP_TYPE_DOMAIN_RESOLUTION, {"not json"});
  EXPECT_EQ(bad_args.exit_code(), -1);
  absl::StatusOr<HostFieldsUpdate> update = NormalizeStepResult(bad_args, {});
  ASSERT_THAT(update.status(), IsOk());
  EXPECT_TRUE(update->paths.empty());
}

TEST_F(StepResultsTest, MediaDisconnectionIsRecordedAndHeals) {
  StepResult media;
  media.set_step_type(types::v1::STEP_TYPE_NTP_SYNCHRONIZER);
  media.set_exit_code(256);
  types::v1::Host host = Apply(media, {});
  EXPECT_EQ(host.media_status(), types::v1::MEDIA_STATUS_DISCONNECTED);
  const StepResult ntp = Run(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, {});
  host = Apply(ntp, host);
  EXPECT_EQ(host.media_status(), types::v1::MEDIA_STATUS_CONNECTED);
}

TEST_F(StepResultsTest, OutputsOfTheWrongShapeAreRefusedNamingTheStep) {
  StepResult result;
  result.set_step_id("ntp-synchronizer-00000001");
  result.set_step_type(types::v1::STEP_TYPE_NTP_SYNCHRONIZER);
  result.set_output(R"([{"source_name": "x"}])");  // unwrapped: not what the agent sends
  EXPECT_THAT(NormalizeStepResult(result, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("STEP_TYPE_NTP_SYNCHRONIZER result ntp-synchronizer-00000001")));
  result.set_step_type(types::v1::STEP_TYPE_CONNECTIVITY_CHECK);
  result.set_output("{");
  EXPECT_THAT(NormalizeStepResult(result, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
  result.set_step_type(types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK);
  result.set_output(R"({"io_sync_duration": 3})");  // a measurement of no disk
  EXPECT_THAT(NormalizeStepResult(result, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("disk_speed.path")));
  result.set_step_type(types::v1::STEP_TYPE_DOMAIN_RESOLUTION);
  result.clear_output();  // a success that reports nothing
  EXPECT_THAT(
      NormalizeStepResult(result, {}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("step_result.domain_resolution")));
}

TEST_F(StepResultsTest, AReportOfAnotherStepTypeIsRefusedNamingTheMember) {
  StepResult result;
  result.set_step_id("ntp-synchronizer-00000001");
  result.set_step_type(types::v1::STEP_TYPE_NTP_SYNCHRONIZER);
  result.mutable_connectivity()->add_remote_hosts()->set_host_id("h2");
  EXPECT_THAT(NormalizeStepResult(result, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("step_result.connectivity: not the report of this step type")));
  // Even on failure, and for a step type that reports nothing typed.
  result.set_exit_code(1);
  EXPECT_THAT(NormalizeStepResult(result, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
  result.set_step_type(types::v1::STEP_TYPE_LOGS_GATHER);
  EXPECT_THAT(NormalizeStepResult(result, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("it has none")));
}

TEST_F(StepResultsTest, ATypedReportIsStoredAsSent) {
  StepResult result;
  result.set_step_type(types::v1::STEP_TYPE_TANG_CONNECTIVITY_CHECK);
  result.mutable_tang_connectivity()->set_is_success(true);
  result.mutable_tang_connectivity()->add_tang_server_response()->set_tang_url("http://tang");
  const types::v1::Host host = Apply(result, {});
  EXPECT_TRUE(host.tang_connectivity_report().is_success());
  EXPECT_EQ(host.tang_connectivity_report().tang_server_response(0).tang_url(), "http://tang");
  EXPECT_TRUE(core::ReportsOf(host).tang->success);
}

TEST_F(StepResultsTest, TheTextOutputOfAnOlderAgentIsParsedOnceIntoTheTypedField) {
  StepResult result;
  result.set_step_type(types::v1::STEP_TYPE_NTP_SYNCHRONIZER);
  result.set_output(R"({"ntp_sources":[{"source_name":"clock","source_state":"synced"}]})");
  const types::v1::Host host = Apply(result, {});
  EXPECT_EQ(host.ntp_sources(), "");  // the text field is not written
  ASSERT_EQ(host.ntp_sources_report().ntp_sources_size(), 1);
  EXPECT_EQ(host.ntp_sources_report().ntp_sources(0).source_state(), "synced");
}

TEST(StepResultBounds, ATypedReportOverTheSizeLimitIsRefusedNamingTheMember) {
  StepResult result;
  result.set_step_id("domain-resolution-00000001");
  result.set_step_type(types::v1::STEP_TYPE_DOMAIN_RESOLUTION);
  result.mutable_domain_resolution()->add_resolutions()->set_domain_name(
      std::string(kMaxStepOutputBytes, 'a'));
  EXPECT_THAT(
      NormalizeStepResult(result, {}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("step_result.domain_resolution: ")));
}

// An output nested deeper than any agent writes, but small enough to pass the size limit: a
// recursive walk of it (nlohmann's dump(), the core parsers) overflows the stack.
StepResult DeeplyNested(types::v1::StepType type, const std::string& prefix,
                        const std::string& suffix) {
  constexpr int kDepth = 400'000;
  StepResult result;
  result.set_step_id("deep-00000001");
  result.set_step_type(type);
  result.set_output(prefix + std::string(kDepth, '[') + std::string(kDepth, ']') + suffix);
  return result;
}

TEST(StepResultBounds, ADeeplyNestedStepOutputIsRefusedBeforeItIsParsed) {
  for (const StepResult& result :
       {DeeplyNested(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, R"({"ntp_sources":)", "}"),
        DeeplyNested(types::v1::STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY, R"({"images":)", "}"),
        DeeplyNested(types::v1::STEP_TYPE_CONNECTIVITY_CHECK, "", ""),
        DeeplyNested(types::v1::STEP_TYPE_INVENTORY, R"({"disks":)", "}")}) {
    EXPECT_THAT(NormalizeStepResult(result, {}).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("step_result.output")))
        << types::v1::StepType_Name(result.step_type());
  }
}

TEST(StepResultBounds, AStepOutputOverTheSizeLimitIsRefusedNamingTheField) {
  StepResult result;
  result.set_step_id("domain-resolution-00000001");
  result.set_step_type(types::v1::STEP_TYPE_DOMAIN_RESOLUTION);
  result.set_output(R"({"resolutions":[{"domain_name":")" + std::string(kMaxStepOutputBytes, 'a') +
                    R"("}]})");
  EXPECT_THAT(NormalizeStepResult(result, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("step_result.output")));
}

TEST(StepResultBounds, AnInventoryOverTheSizeLimitIsRefusedNamingTheField) {
  StepResult result;
  result.set_step_id("inventory-00000001");
  result.set_step_type(types::v1::STEP_TYPE_INVENTORY);
  result.mutable_inventory()->set_hostname(std::string(kMaxInventoryBytes, 'h'));
  EXPECT_THAT(NormalizeStepResult(result, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("step_result.inventory")));
}

}  // namespace
}  // namespace assisted::orchestrator
