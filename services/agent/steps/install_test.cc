#include "services/agent/steps/install.h"

#include <fcntl.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/steps/install_disk.h"
#include "services/agent/steps/reporter_settings.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/test_util.h"
#include "services/agent/steps/unique_fd.h"

namespace assisted::agent::steps {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using types::v1::HostStage;

class RecordingReporter final : public InstallReporter {
 public:
  void Progress(HostStage stage, const std::string& info, int percentage) override {
    absl::MutexLock lock(&mu_);
    if (stages_.empty() || stages_.back() != stage) stages_.push_back(stage);
    infos_.push_back(info);
    if (stage == types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK) percentages_.push_back(percentage);
  }
  void RebootAfterResult(const InstallRequest& request) override {
    absl::MutexLock lock(&mu_);
    reboot_role_ = request.role;
  }
  std::optional<ControllerAccess> PostRebootAccess() override {
    absl::MutexLock lock(&mu_);
    return access_;
  }
  void set_access(ControllerAccess access) {
    absl::MutexLock lock(&mu_);
    access_ = std::move(access);
  }
  std::vector<HostStage> stages() const {
    absl::MutexLock lock(&mu_);
    return stages_;
  }
  std::vector<int> percentages() const {
    absl::MutexLock lock(&mu_);
    return percentages_;
  }
  std::vector<std::string> infos() const {
    absl::MutexLock lock(&mu_);
    return infos_;
  }
  std::string reboot_role() const {
    absl::MutexLock lock(&mu_);
    return reboot_role_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<HostStage> stages_ ABSL_GUARDED_BY(mu_);
  std::vector<int> percentages_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> infos_ ABSL_GUARDED_BY(mu_);
  std::string reboot_role_ ABSL_GUARDED_BY(mu_);
  std::optional<ControllerAccess> access_ ABSL_GUARDED_BY(mu_);
};

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

class InstallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/install-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_);
    image_ = std::string(3 * (1 << 20) + 12345, '\0');
    for (size_t i = 0; i < image_.size(); ++i) image_[i] = static_cast<char>((i * 131) % 251);
    WriteFile(dir_ + "/os.img", image_);
    disk_ = dir_ + "/disk.img";
    std::filesystem::resize_file(disk_ = (WriteFile(disk_, ""), disk_), 16 << 20);
    hooks_.disk_image = [this](const std::string& device) {
      return device == "/dev/vda" ? disk_ : std::string();
    };
    holder_.simulation = &hooks_;
  }

  nlohmann::json Request(const std::string& role) {
    return {{"cluster_id", "c1"},
            {"host_id", "h1"},
            {"role", role},
            {"boot_device", "/dev/vda"},
            {"installer_args", {"--append-karg", "ip=dhcp"}},
            {"os_image", {{"url", "file://" + dir_ + "/os.img"}, {"sha256", Sha256Hex(image_)}}},
            {"ignition", ignition_}};
  }

  StepResult Run(const nlohmann::json& request, InstallOptions options = {}) {
    StepContext context = holder_.context();
    context.install = &reporter_;
    InstallStep step(options);
    return step.Run(testing::MakeStep(types::v1::STEP_TYPE_INSTALL, {request.dump()}), context);
  }

  std::string dir_;
  std::string image_;
  std::string disk_;
  const std::string ignition_ = R"({"ignition":{"version":"3.2.0"}})";
  SimulationHooks hooks_;
  testing::ContextHolder holder_;
  RecordingReporter reporter_;
};

TEST_F(InstallTest, MasterWritesImageAndIgnitionAndReportsItsStages) {
  const StepResult result = Run(Request("master"), {.chunk_bytes = 64 << 10});
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  EXPECT_THAT(reporter_.stages(), ElementsAre(types::v1::HOST_STAGE_STARTING_INSTALLATION,
                                              types::v1::HOST_STAGE_INSTALLING,
                                              types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK));
  EXPECT_EQ(reporter_.infos()[0], "master");
  // Every 5 % (or more) and 100 % exactly once at the end.
  const std::vector<int> percentages = reporter_.percentages();
  ASSERT_GE(percentages.size(), 3u);
  EXPECT_EQ(percentages.front(), 0);
  EXPECT_EQ(percentages.back(), 100);
  for (size_t i = 1; i < percentages.size(); ++i) {
    EXPECT_GE(percentages[i] - percentages[i - 1], 5) << i;
  }
  EXPECT_EQ(reporter_.reboot_role(), "master");  // handed over, reported after the result

  absl::StatusOr<InstalledDisk> disk = ReadInstalledDisk(disk_);
  ASSERT_THAT(disk, IsOk());
  EXPECT_EQ(disk->os_image_sha256, Sha256Hex(image_));
  EXPECT_EQ(disk->os_image_size, static_cast<int64_t>(image_.size()));
  EXPECT_EQ(disk->ignition, ignition_);
  EXPECT_EQ(disk->host_id, "h1");
  EXPECT_EQ(disk->role, "master");
  EXPECT_THAT(disk->installer_args, ElementsAre("--append-karg", "ip=dhcp"));
  const nlohmann::json output = nlohmann::json::parse(result.output());
  EXPECT_EQ(output["os_image_sha256"], Sha256Hex(image_));
  EXPECT_EQ(output["ignition_sha256"], Sha256Hex(ignition_));
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_F(InstallTest, OsDiskImageIsFinishedTheWayCoreosInstallerDoes) {
  const std::string os_disk = dir_ + "/os-disk.img";
  ASSERT_THAT(testing::MakeOsDiskImage(os_disk, "root=LABEL=root rw quiet"), IsOk());
  const std::string image = ReadAll(os_disk);
  std::filesystem::resize_file(disk_, 128 << 20);
  nlohmann::json request = Request("master");
  request["os_image"] = {{"url", "file://" + os_disk}, {"sha256", Sha256Hex(image)}};
  request["installer_args"] = {"--append-karg", "ip=dhcp", "--delete-karg=quiet"};
  const StepResult result = Run(request);
  ASSERT_EQ(result.exit_code(), 0) << result.error();

  // The GPT spans the whole disk; the Ignition and the kernel arguments are on the boot
  // partition, where the installed OS's initramfs and grub read them; no footer.
  UniqueFd fd(open(disk_.c_str(), O_RDONLY));
  EXPECT_THAT(CheckGpt(fd.get()), IsOk());
  absl::StatusOr<BootPartition> boot = BootPartition::Find(disk_, holder_.local_processes);
  ASSERT_THAT(boot, IsOk());
  EXPECT_THAT(boot->ReadFile("ignition/config.ign"), IsOkAndHolds(ignition_));
  EXPECT_THAT(boot->ReadFile("kargs.cfg"),
              IsOkAndHolds("set kargs=\"root=LABEL=root rw ip=dhcp\"\n"));
  EXPECT_THAT(ReadAll(disk_), Not(HasSubstr("ASSISTED-INSTALL-1")));
  absl::StatusOr<InstalledDisk> disk = ReadInstalledDisk(disk_);
  ASSERT_THAT(disk, IsOk());
  EXPECT_EQ(disk->ignition, ignition_);
  EXPECT_EQ(disk->os_image_sha256, Sha256Hex(image));
  EXPECT_EQ(disk->host_id, "h1");
  EXPECT_THAT(disk->installer_args, ElementsAre("--append-karg", "ip=dhcp", "--delete-karg=quiet"));
  // No controller token, no reporter settings.
  EXPECT_THAT(boot->ReadFile("assisted/reporter.json"), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(InstallTest, OsDiskImageGetsThePostRebootReportersSettingsReadableByRootOnly) {
  const std::string os_disk = dir_ + "/os-disk.img";
  ASSERT_THAT(testing::MakeOsDiskImage(os_disk, "root=LABEL=root rw"), IsOk());
  std::filesystem::resize_file(disk_, 128 << 20);
  nlohmann::json request = Request("bootstrap");
  request["os_image"] = {{"url", "file://" + os_disk}, {"sha256", Sha256Hex(ReadAll(os_disk))}};
  request["high_availability_mode"] = "None";
  request["olm_operators"] = {"lvm"};
  reporter_.set_access({.orchestrator_address = "10.0.2.100:9090",
                        .tls = true,
                        .ca_bundle_pem = "PEM",
                        .controller_token = "controller-token-1",
                        .infra_env_id = "ie1"});
  const StepResult result = Run(request);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  EXPECT_THAT(result.output(), Not(HasSubstr("controller-token-1")));

  absl::StatusOr<BootPartition> boot = BootPartition::Find(disk_, holder_.local_processes);
  ASSERT_THAT(boot, IsOk());
  absl::StatusOr<std::string> text = boot->ReadFile("assisted/reporter.json");
  ASSERT_THAT(text, IsOk());
  absl::StatusOr<ReporterSettings> settings = ParseReporterSettings(*text);
  ASSERT_THAT(settings, IsOk());
  EXPECT_EQ(settings->access.orchestrator_address, "10.0.2.100:9090");
  EXPECT_TRUE(settings->access.tls);
  EXPECT_EQ(settings->access.ca_bundle_pem, "PEM");
  EXPECT_EQ(settings->access.controller_token, "controller-token-1");
  EXPECT_EQ(settings->access.infra_env_id, "ie1");
  EXPECT_EQ(settings->cluster_id, "c1");
  EXPECT_EQ(settings->host_id, "h1");
  EXPECT_EQ(settings->role, "master");
  EXPECT_TRUE(settings->bootstrap);
  EXPECT_TRUE(settings->sno);
  EXPECT_THAT(settings->olm_operators, ElementsAre("lvm"));
  // The token is a secret: root only, like the Ignition.
  absl::StatusOr<process::CommandResult> stat = holder_.local_processes.Run(
      {.argv = {"debugfs", "-R", "stat assisted/reporter.json",
                absl::StrCat(disk_, "?offset=", boot->partition().offset())}});
  ASSERT_THAT(stat, IsOk());
  EXPECT_THAT(stat->stdout_data, HasSubstr("Mode:  0600"));
  EXPECT_THAT(stat->stdout_data, HasSubstr("User:     0"));
}

TEST_F(InstallTest, UnsupportedInstallerArgumentIsRefusedBeforeTheDiskIsTouched) {
  nlohmann::json request = Request("master");
  request["installer_args"] = {"--append-karg", "ip=dhcp", "--firstboot-args=x"};
  const StepResult result = Run(request);
  EXPECT_EQ(result.exit_code(), -1);
  EXPECT_THAT(result.error(), HasSubstr("--firstboot-args=x"));
  request["installer_args"] = {"--append-karg"};
  EXPECT_THAT(Run(request).error(), HasSubstr("needs a value"));
  EXPECT_THAT(ReadInstalledDisk(disk_), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(InstallTest, StageListsPerRole) {
  auto stages = [this](const std::string& role, bool bootstrap, const std::string& mode) {
    nlohmann::json request = Request(role);
    request["bootstrap"] = bootstrap;
    request["high_availability_mode"] = mode;
    auto parsed =
        ParseInstallRequest(testing::MakeStep(types::v1::STEP_TYPE_INSTALL, {request.dump()}));
    EXPECT_THAT(parsed, IsOk());
    std::vector<HostStage> all = StagesBeforeReboot(*parsed);
    for (HostStage s : StagesAfterReboot(*parsed)) all.push_back(s);
    return all;
  };
  using namespace types::v1;  // NOLINT: stage names read as the reference's lists
  EXPECT_THAT(stages("master", true, "Full"),
              ElementsAre(HOST_STAGE_STARTING_INSTALLATION, HOST_STAGE_INSTALLING,
                          HOST_STAGE_WRITING_IMAGE_TO_DISK, HOST_STAGE_WAITING_FOR_CONTROL_PLANE,
                          HOST_STAGE_WAITING_FOR_BOOTKUBE, HOST_STAGE_WAITING_FOR_CONTROLLER,
                          HOST_STAGE_REBOOTING, HOST_STAGE_CONFIGURING, HOST_STAGE_JOINED,
                          HOST_STAGE_DONE));
  EXPECT_THAT(stages("master", false, "Full"),
              ElementsAre(HOST_STAGE_STARTING_INSTALLATION, HOST_STAGE_INSTALLING,
                          HOST_STAGE_WRITING_IMAGE_TO_DISK, HOST_STAGE_REBOOTING,
                          HOST_STAGE_CONFIGURING, HOST_STAGE_JOINED, HOST_STAGE_DONE));
  EXPECT_THAT(stages("worker", false, "Full"),
              ElementsAre(HOST_STAGE_STARTING_INSTALLATION, HOST_STAGE_INSTALLING,
                          HOST_STAGE_WRITING_IMAGE_TO_DISK, HOST_STAGE_WAITING_FOR_CONTROL_PLANE,
                          HOST_STAGE_REBOOTING, HOST_STAGE_WAITING_FOR_IGNITION,
                          HOST_STAGE_CONFIGURING, HOST_STAGE_JOINED, HOST_STAGE_DONE));
  EXPECT_THAT(stages("master", true, "None"),
              ElementsAre(HOST_STAGE_STARTING_INSTALLATION, HOST_STAGE_INSTALLING,
                          HOST_STAGE_WAITING_FOR_BOOTKUBE, HOST_STAGE_WRITING_IMAGE_TO_DISK,
                          HOST_STAGE_REBOOTING, HOST_STAGE_JOINED, HOST_STAGE_DONE));
}

TEST_F(InstallTest, BootstrapReportsItsWaitsBeforeTheReboot) {
  nlohmann::json request = Request("bootstrap");
  ASSERT_EQ(Run(request).exit_code(), 0);
  EXPECT_THAT(reporter_.stages(), ElementsAre(types::v1::HOST_STAGE_STARTING_INSTALLATION,
                                              types::v1::HOST_STAGE_INSTALLING,
                                              types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK,
                                              types::v1::HOST_STAGE_WAITING_FOR_CONTROL_PLANE,
                                              types::v1::HOST_STAGE_WAITING_FOR_BOOTKUBE,
                                              types::v1::HOST_STAGE_WAITING_FOR_CONTROLLER));
  EXPECT_EQ(reporter_.infos()[0], "bootstrap");
}

TEST_F(InstallTest, AWrongImageDigestFailsWithExitTwoAndStageFailed) {
  nlohmann::json request = Request("worker");
  request["os_image"]["sha256"] = std::string(64, 'a');
  const StepResult result = Run(request);
  EXPECT_EQ(result.exit_code(), 2);
  EXPECT_THAT(result.error(), HasSubstr("sha256"));
  EXPECT_EQ(reporter_.stages().back(), types::v1::HOST_STAGE_FAILED);
  EXPECT_THAT(reporter_.infos().back(), HasSubstr("sha256"));
  EXPECT_EQ(reporter_.reboot_role(), "");  // no reboot after a failure
  EXPECT_THAT(ReadInstalledDisk(disk_), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(InstallTest, AMissingImageOrATooSmallDiskFails) {
  nlohmann::json missing = Request("worker");
  missing["os_image"]["url"] = "file://" + dir_ + "/nothing.img";
  EXPECT_EQ(Run(missing).exit_code(), 2);

  std::filesystem::resize_file(disk_, 2 << 20);
  const StepResult small = Run(Request("worker"));
  EXPECT_EQ(small.exit_code(), 1);
  EXPECT_THAT(small.error(), HasSubstr("does not fit"));
  EXPECT_EQ(reporter_.stages().back(), types::v1::HOST_STAGE_FAILED);

  nlohmann::json other_disk = Request("worker");
  other_disk["boot_device"] = "/dev/sdz";
  EXPECT_THAT(Run(other_disk).error(), HasSubstr("no disk /dev/sdz"));
}

TEST_F(InstallTest, ReadBackNoticesCorruption) {
  ASSERT_EQ(Run(Request("master")).exit_code(), 0);
  {
    std::fstream disk(disk_, std::ios::in | std::ios::out | std::ios::binary);
    disk.seekp(1000);
    disk.put('\x7f');
  }
  EXPECT_THAT(ReadInstalledDisk(disk_), StatusIs(absl::StatusCode::kDataLoss));
}

TEST_F(InstallTest, BadArgumentsNameTheField) {
  auto error = [this](nlohmann::json request) {
    const StepResult result = Run(request);
    EXPECT_EQ(result.exit_code(), kExitInvalid);
    return result.error();
  };
  nlohmann::json r = Request("master");
  r.erase("host_id");
  EXPECT_THAT(error(r), HasSubstr("host_id"));
  EXPECT_THAT(error(Request("chef")), HasSubstr("role"));
  r = Request("master");
  r["boot_device"] = "vda";
  EXPECT_THAT(error(r), HasSubstr("boot_device"));
  r = Request("master");
  r["os_image"]["url"] = "ftp://x";
  EXPECT_THAT(error(r), HasSubstr("os_image.url"));
  r = Request("master");
  r["ignition"] = "{not json";
  EXPECT_THAT(error(r), HasSubstr("ignition"));
  r = Request("master");
  r["high_availability_mode"] = "Half";
  EXPECT_THAT(error(r), HasSubstr("high_availability_mode"));
  r = Request("master");
  r["olm_operators"] = {"lvm", 3};
  EXPECT_THAT(error(r), HasSubstr("olm_operators"));
  EXPECT_TRUE(reporter_.stages().empty());
}

}  // namespace
}  // namespace assisted::agent::steps
