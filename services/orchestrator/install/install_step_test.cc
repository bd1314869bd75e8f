#include "services/orchestrator/install/install_step.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/random/random.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/orchestrator/core/testing_fixtures.h"

namespace assisted::orchestrator::install {
namespace {

using ::assisted::orchestrator::core::testing::HealthyCluster;
using ::assisted::orchestrator::core::testing::HealthyHost;
using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const OsImage kImage{"file:///var/lib/assisted/rhcos.raw",
                     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"};

TEST(InstallStep, ArgsFollowTheAgentContract) {
  types::v1::Host host = HealthyHost(1);
  host.set_bootstrap(true);
  host.add_installer_args("--append-karg");
  host.add_installer_args("rd.multipath=default");
  SeededRandom random(1);
  absl::StatusOr<types::v1::Step> step =
      InstallStepBuilder(kImage).Step(HealthyCluster(), host, R"({"ignition":{}})", random);
  ASSERT_THAT(step, IsOk());
  EXPECT_EQ(step->step_type(), types::v1::STEP_TYPE_INSTALL);
  EXPECT_THAT(step->step_id(), StartsWith("install-"));
  ASSERT_EQ(step->args_size(), 1);
  const nlohmann::json args = nlohmann::json::parse(step->args(0));
  EXPECT_EQ(args, nlohmann::json::parse(R"({
    "cluster_id": "c1", "host_id": "h1", "role": "master", "bootstrap": true,
    "boot_device": "/dev/sda", "installer_args": ["--append-karg", "rd.multipath=default"],
    "os_image": {"url": "file:///var/lib/assisted/rhcos.raw",
                 "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    "ignition": "{\"ignition\":{}}", "high_availability_mode": "Full",
    "olm_operators": []})"));
}

TEST(InstallStep, NamesTheClustersOlmOperatorsForThePostRebootReporter) {
  types::v1::Cluster cluster = HealthyCluster();
  cluster.add_monitored_operators()->set_name("console");  // builtin: not the reporter's
  types::v1::MonitoredOperator* lvm = cluster.add_monitored_operators();
  lvm->set_name("lvm");
  lvm->set_operator_type(types::v1::OPERATOR_TYPE_OLM);
  absl::StatusOr<std::string> args = InstallStepBuilder(kImage).Args(cluster, HealthyHost(1), "{}");
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(nlohmann::json::parse(*args)["olm_operators"], nlohmann::json::array({"lvm"}));
}

TEST(InstallStep, WorkersAndSingleNode) {
  types::v1::Cluster sno = HealthyCluster();
  sno.set_control_plane_count(1);
  types::v1::Host worker = HealthyHost(2);
  worker.set_role(types::v1::HOST_ROLE_WORKER);
  absl::StatusOr<std::string> args = InstallStepBuilder(kImage).Args(sno, worker, "{}");
  ASSERT_THAT(args, IsOk());
  const nlohmann::json json = nlohmann::json::parse(*args);
  EXPECT_EQ(json["role"], "worker");
  EXPECT_EQ(json["bootstrap"], false);
  EXPECT_EQ(json["high_availability_mode"], "None");
}

TEST(InstallStep, RefusesHostsThatCannotInstall) {
  const InstallStepBuilder builder(kImage);
  types::v1::Host host = HealthyHost(1);
  host.set_role(types::v1::HOST_ROLE_AUTO_ASSIGN);
  EXPECT_THAT(builder.Args(HealthyCluster(), host, "{}"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no role")));
  host = HealthyHost(1);
  host.clear_installation_disk_id();
  host.clear_installation_disk_path();
  EXPECT_THAT(builder.Args(HealthyCluster(), host, "{}"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("installation disk")));
  EXPECT_THAT(builder.Args(HealthyCluster(), HealthyHost(1), ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ignition")));
}

TEST(InstallStep, OsImageIsChecked) {
  EXPECT_THAT(CheckOsImage(kImage), IsOk());
  EXPECT_THAT(CheckOsImage({"ftp://x", kImage.sha256}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("os_image.url")));
  EXPECT_THAT(CheckOsImage({kImage.url, "ABC"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("os_image.sha256")));
}

}  // namespace
}  // namespace assisted::orchestrator::install
