// Reading a host's settings back out of the discovery Ignition the image service generates, and
// out of a test ISO with that Ignition spliced into its embed area.
#include "services/agent/boot/discovery_media.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/ignition/discovery_ignition.h"
#include "lib/iso/cpio.h"
#include "lib/iso/embed.h"
#include "lib/iso/test_image.h"
#include "lib/process/subprocess.h"
#include "lib/status/status_macros.h"
#include "lib/testing/status_matchers.h"

namespace assisted::agent::boot {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kInfraEnvId[] = "0b9c2b47-5e2c-4c4f-9a37-6f2b1c3d4e5f";

std::string TestCa() {
  return ReadFile("services/image/testdata/orchestrator_ca.pem", "test CA").value_or("");
}

absl::StatusOr<std::string> Discovery(const discovery::DiscoveryIgnitionSettings& settings) {
  types::v1::InfraEnv infra_env;
  infra_env.set_id(kInfraEnvId);
  ASSIGN_OR_RETURN(discovery::DiscoveryIgnition built,
                   discovery::BuildDiscoveryIgnition(infra_env, "", settings));
  return built.config;
}

TEST(SettingsFromIgnition, ReadsWhatTheImageServiceWrote) {
  auto config = Discovery({.orchestrator_address = "orchestrator.lab:9090",
                           .agent_token = "token-123",
                           .ca_bundle_pem = TestCa()});
  ASSERT_THAT(config, IsOk());
  auto settings = SettingsFromIgnition(*config);
  ASSERT_THAT(settings, IsOk());
  EXPECT_EQ(settings->orchestrator_address, "orchestrator.lab:9090");
  EXPECT_EQ(settings->infra_env_id, kInfraEnvId);
  EXPECT_EQ(settings->agent_token, "token-123");
  EXPECT_THAT(settings->ca_bundle_pem, HasSubstr("-----BEGIN CERTIFICATE-----"));
  EXPECT_TRUE(settings->tls);
}

TEST(SettingsFromIgnition, PlainTextWithoutTokenOrCa) {
  auto config = Discovery({.orchestrator_address = "127.0.0.1:9090"});
  ASSERT_THAT(config, IsOk());
  auto settings = SettingsFromIgnition(*config);
  ASSERT_THAT(settings, IsOk());
  EXPECT_EQ(settings->agent_token, "");
  EXPECT_EQ(settings->ca_bundle_pem, "");
  EXPECT_FALSE(settings->tls);
}

TEST(SettingsFromIgnition, RefusesConfigsWithoutTheAgent) {
  EXPECT_THAT(SettingsFromIgnition("not json"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a JSON object")));
  EXPECT_THAT(SettingsFromIgnition(R"({"ignition":{"version":"3.2.0"}})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no assisted-agent.service")));
  EXPECT_THAT(
      SettingsFromIgnition(
          R"({"systemd":{"units":[{"name":"assisted-agent.service","contents":"ExecStart=/a --infra-env-id=x\n"}]}})"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--orchestrator-address")));
  EXPECT_THAT(
      SettingsFromIgnition(
          R"({"systemd":{"units":[{"name":"assisted-agent.service","contents":5}]},"storage":[]})"),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(SettingsFromIso, BootsTheIgnitionSplicedIntoAnImage) {
  const std::string dir = ::testing::TempDir() + "/discovery-media";
  const std::string image = dir + "/discovery.iso";
  process::LocalProcessRunner runner;
  ASSERT_THAT(iso::BuildTestImage(runner, {}, dir, image), IsOk());
  EXPECT_THAT(SettingsFromIso(image), StatusIs(absl::StatusCode::kNotFound, HasSubstr("empty")));

  auto config = Discovery({.orchestrator_address = "10.1.2.3:9090", .agent_token = "t"});
  ASSERT_THAT(config, IsOk());
  auto archive = iso::IgnitionArchive(*config);
  ASSERT_THAT(archive, IsOk());
  {
    const int fd = open(image.c_str(), O_RDONLY | O_CLOEXEC);
    auto reader = iso::IsoReader::Open(fd, image);
    ASSERT_THAT(reader, IsOk());
    auto areas = iso::FindEmbedAreas(*reader);
    ASSERT_THAT(areas, IsOk());
    auto patch = iso::IgnitionPatch(areas->ignition, *archive);
    ASSERT_THAT(patch, IsOk());
    close(fd);
    std::fstream file(image, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(patch->offset));
    file.write(patch->bytes.data(), static_cast<std::streamsize>(patch->bytes.size()));
  }
  auto settings = SettingsFromIso(image);
  ASSERT_THAT(settings, IsOk());
  EXPECT_EQ(settings->orchestrator_address, "10.1.2.3:9090");
  EXPECT_EQ(settings->infra_env_id, kInfraEnvId);
  EXPECT_EQ(settings->agent_token, "t");

  EXPECT_THAT(SettingsFromIso(dir + "/absent.iso"), StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace assisted::agent::boot
