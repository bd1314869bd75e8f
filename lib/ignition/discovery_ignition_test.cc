#include "lib/ignition/discovery_ignition.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/ignition/test_util.h"
#include "lib/iso/cpio.h"
#include "lib/nmstate/nmcli_offline.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "lib/testing/test_files.h"
#include "nlohmann/json.hpp"

namespace assisted::discovery {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::assisted::types::v1::InfraEnv;
using ::assisted::types::v1::KernelArgumentOperation;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

constexpr char kInfraEnvId[] = "4f4e7c2b-1d5a-4c39-9a47-2f9f0b6a1c11";
constexpr char kToken[] = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZ2VudCJ9.c2lnbmF0dXJlLXNlY3JldA";
constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"dXNlcjpwdWxsLXNlY3JldA=="}}})";
constexpr char kSshKeys[] =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl admin@a\n"
    "# the on-call key\n\n"
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQCoy2 oncall@b\n";

std::string Testdata(absl::string_view path) {
  absl::StatusOr<std::string> text = ReadFile(std::string(path), "test data");
  EXPECT_THAT(text, IsOk());
  return text.value_or("");
}

DiscoveryIgnitionSettings Settings() {
  return {.orchestrator_address = "assisted.example.com:9090",
          .agent_token = kToken,
          .agent_version = "v0.1.0"};
}

InfraEnv MinimalInfraEnv() {
  InfraEnv infra_env;
  infra_env.set_id(kInfraEnvId);
  infra_env.set_name("lab");
  return infra_env;
}

// The seeds/002 agent-config: three hosts, one NIC each, matched by MAC.
InfraEnv StaticNetworkInfraEnv() {
  InfraEnv infra_env = MinimalInfraEnv();
  const std::pair<const char*, const char*> hosts[] = {
      {"vm1", "52:54:00:e7:05:72"}, {"vm2", "52:54:00:95:fd:f3"}, {"vm3", "52:54:00:e8:b9:18"}};
  for (const auto& [host, mac] : hosts) {
    types::v1::HostStaticNetworkConfig* config = infra_env.add_static_network_config();
    config->set_network_yaml(
        Testdata(absl::StrCat("lib/nmstate/testdata/seed002_asus3-", host, ".yaml")));
    types::v1::MacInterfaceMapEntry* entry = config->add_mac_interface_map();
    entry->set_mac_address(mac);
    entry->set_logical_nic_name("enp2s0");
  }
  return infra_env;
}

struct StoredFile {
  int mode = 0;
  std::string contents;
};

// A built config, checked by ignition-validate, with its files decoded.
struct Built {
  DiscoveryIgnition result;
  Json json;
  std::map<std::string, StoredFile> files;
  std::map<std::string, Json> units;

  std::string UnitText(const std::string& name) const {
    auto it = units.find(name);
    return it == units.end() || !it->second.contains("contents")
               ? ""
               : it->second["contents"].get<std::string>();
  }
};

Built BuildValidated(const InfraEnv& infra_env, absl::string_view pull_secret,
                     const DiscoveryIgnitionSettings& settings, const std::string& name) {
  Built built;
  absl::StatusOr<DiscoveryIgnition> result =
      BuildDiscoveryIgnition(infra_env, pull_secret, settings);
  EXPECT_THAT(result, IsOk());
  if (!result.ok()) return built;
  built.result = *result;
  EXPECT_THAT(ignition::IgnitionValidate(result->config, name + ".ign"), IsOk());
  built.json = Json::parse(result->config, nullptr, /*allow_exceptions=*/false);
  for (const Json& file : built.json["storage"]["files"]) {
    absl::StatusOr<std::string> contents =
        ignition::DecodeDataUrl(file["contents"]["source"].get<std::string>());
    EXPECT_THAT(contents, IsOk());
    built.files[file["path"]] = {file["mode"].get<int>(), contents.value_or("")};
  }
  for (const Json& unit : built.json["systemd"]["units"]) built.units[unit["name"]] = unit;
  return built;
}

// Secrets may sit only in 0600 files: never in another file, a unit, or elsewhere in the config
// (Ignition's own proxy setting aside, which Ignition needs to fetch anything).
void ExpectSecretsOnlyIn0600Files(const Built& built, const std::vector<std::string>& secrets) {
  for (const std::string& secret : secrets) {
    for (const auto& [path, file] : built.files) {
      if (absl::StrContains(file.contents, secret)) {
        EXPECT_EQ(file.mode, 0600) << path;
      }
    }
    Json rest = built.json;
    rest.erase("storage");
    if (rest["ignition"].contains("proxy")) rest["ignition"].erase("proxy");
    EXPECT_THAT(rest.dump(), Not(HasSubstr(secret)));
  }
}

TEST(DiscoveryIgnition, MinimalInfraEnvRunsTheAgent) {
  Built built = BuildValidated(MinimalInfraEnv(), "", Settings(), "minimal");
  EXPECT_EQ(built.json["ignition"]["version"], "3.2.0");
  EXPECT_FALSE(built.json["ignition"].contains("proxy"));
  EXPECT_FALSE(built.json.contains("passwd"));

  ASSERT_EQ(built.units.count(kAgentUnitName), 1u);
  EXPECT_EQ(built.units[kAgentUnitName]["enabled"], true);
  const std::string unit = built.UnitText(kAgentUnitName);
  EXPECT_EQ(unit, absl::StrCat(R"([Unit]
Description=Assisted agent v0.1.0: registers this host with the orchestrator
Wants=network-online.target
After=network-online.target
StartLimitIntervalSec=0

[Service]
Type=simple
Restart=always
RestartSec=3
EnvironmentFile=/etc/assisted/agent.env
ExecStart=/usr/local/bin/assisted-agent --orchestrator-address=assisted.example.com:9090 --infra-env-id=)",
                               kInfraEnvId, R"(

[Install]
WantedBy=multi-user.target
)"));

  // Only the token file: no pull secret given, no static networking.
  ASSERT_EQ(built.files.size(), 1u);
  const StoredFile& env = built.files.at(kAgentEnvPath);
  EXPECT_EQ(env.mode, 0600);
  EXPECT_EQ(env.contents, absl::StrCat("ASSISTED_AGENT_TOKEN=", kToken, "\n"));
  EXPECT_TRUE(built.result.kernel_arguments.empty());
  ExpectSecretsOnlyIn0600Files(built, {kToken});
}

TEST(DiscoveryIgnition, WithoutTokenThereIsNoEnvironmentFile) {
  DiscoveryIgnitionSettings settings = Settings();
  settings.agent_token.clear();
  settings.tls = true;
  Built built = BuildValidated(MinimalInfraEnv(), "", settings, "no_token");
  EXPECT_TRUE(built.files.empty());
  EXPECT_THAT(built.UnitText(kAgentUnitName),
              AllOf(Not(HasSubstr("EnvironmentFile")), HasSubstr(" --tls\n")));
}

TEST(DiscoveryIgnition, ProxyNtpTrustBundleSshKeysPullSecretAndCa) {
  InfraEnv infra_env = MinimalInfraEnv();
  infra_env.mutable_proxy()->set_http_proxy("http://proxy.example.com:3128");
  infra_env.mutable_proxy()->set_https_proxy("http://proxy.example.com:3128");
  infra_env.mutable_proxy()->set_no_proxy(".example.com, 10.0.0.0/8,,api.lab");
  infra_env.add_additional_ntp_sources("ntp1.example.com");
  infra_env.add_additional_ntp_sources("192.168.0.10");
  infra_env.set_ssh_authorized_key(kSshKeys);
  const std::string seed_ca =
      Testdata("services/image/testdata/seed002_additional_trust_bundle.pem");
  const std::string test_ca = Testdata("services/image/testdata/orchestrator_ca.pem");
  infra_env.set_additional_trust_bundle(seed_ca + "\n" + test_ca);
  types::v1::KernelArgument* karg = infra_env.add_kernel_arguments();
  karg->set_operation(KernelArgumentOperation::KERNEL_ARGUMENT_OPERATION_APPEND);
  karg->set_value("console=ttyS0,115200n8");
  karg = infra_env.add_kernel_arguments();
  karg->set_operation(KernelArgumentOperation::KERNEL_ARGUMENT_OPERATION_APPEND);
  karg->set_value("rd.neednet=1");
  infra_env.set_ignition_config_override(
      R"({"ignition":{"version":"3.1.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,hi"}}]}})");
  DiscoveryIgnitionSettings settings = Settings();
  settings.ca_bundle_pem = test_ca;

  Built built = BuildValidated(infra_env, kPullSecret, settings, "full");

  const Json& proxy = built.json["ignition"]["proxy"];
  EXPECT_EQ(proxy["httpProxy"], "http://proxy.example.com:3128");
  EXPECT_EQ(proxy["httpsProxy"], "http://proxy.example.com:3128");
  EXPECT_EQ(proxy["noProxy"], Json({".example.com", "10.0.0.0/8", "api.lab"}));
  const std::string unit = built.UnitText(kAgentUnitName);
  EXPECT_THAT(unit, HasSubstr("Environment=\"HTTP_PROXY=http://proxy.example.com:3128\"\n"));
  EXPECT_THAT(unit, HasSubstr("Environment=\"https_proxy=http://proxy.example.com:3128\"\n"));
  EXPECT_THAT(unit, HasSubstr("Environment=\"NO_PROXY=.example.com,10.0.0.0/8,api.lab\"\n"));
  EXPECT_THAT(unit, HasSubstr(" --ca-bundle=/etc/assisted/ca.pem\n"));

  EXPECT_EQ(built.files.at(kAgentCaBundlePath).contents, test_ca);
  EXPECT_EQ(built.files.at(kAgentCaBundlePath).mode, 0644);
  EXPECT_EQ(built.files.at(kPullSecretPath).contents, kPullSecret);
  EXPECT_EQ(built.files.at(kPullSecretPath).mode, 0600);

  EXPECT_EQ(built.files.at("/etc/chrony.d/assisted-ntp-sources.conf").contents,
            "server ntp1.example.com iburst\nserver 192.168.0.10 iburst\n");
  EXPECT_EQ(built.units["chronyd.service"]["dropins"][0]["name"], "10-assisted-ntp-sources.conf");

  const StoredFile& anchors =
      built.files.at("/etc/pki/ca-trust/source/anchors/assisted-additional-trust-bundle.pem");
  EXPECT_EQ(anchors.contents, seed_ca + test_ca);
  const Json& cas = built.json["ignition"]["security"]["tls"]["certificateAuthorities"];
  ASSERT_EQ(cas.size(), 2u);
  EXPECT_EQ(*ignition::DecodeDataUrl(cas[0]["source"]), seed_ca);
  EXPECT_EQ(*ignition::DecodeDataUrl(cas[1]["source"]), test_ca);

  ASSERT_EQ(built.json["passwd"]["users"].size(), 1u);
  EXPECT_EQ(built.json["passwd"]["users"][0]["name"], "core");
  EXPECT_EQ(built.json["passwd"]["users"][0]["sshAuthorizedKeys"].size(), 2u);

  const Json& merge = built.json["ignition"]["config"]["merge"];
  ASSERT_EQ(merge.size(), 1u);
  EXPECT_EQ(*ignition::DecodeDataUrl(merge[0]["source"]), infra_env.ignition_config_override());

  EXPECT_THAT(built.result.kernel_arguments, ElementsAre("console=ttyS0,115200n8", "rd.neednet=1"));
  EXPECT_THAT(built.result.config, Not(HasSubstr("kernelArguments")));
  ExpectSecretsOnlyIn0600Files(built, {kToken, "dXNlcjpwdWxsLXNlY3JldA=="});
}

TEST(DiscoveryIgnition, ProxyCredentialsGoToTheEnvironmentFile) {
  InfraEnv infra_env = MinimalInfraEnv();
  infra_env.mutable_proxy()->set_https_proxy("http://user:p%40ss@proxy.example.com:3128");
  Built built = BuildValidated(infra_env, "", Settings(), "proxy_credentials");
  EXPECT_THAT(built.UnitText(kAgentUnitName), Not(HasSubstr("PROXY")));
  EXPECT_THAT(built.files.at(kAgentEnvPath).contents,
              HasSubstr("HTTPS_PROXY=http://user:p%40ss@proxy.example.com:3128\n"));
  ExpectSecretsOnlyIn0600Files(built, {kToken, "p%40ss"});
}

TEST(DiscoveryIgnition, StaticNetworkingForTheThreeSeedHosts) {
  Built built = BuildValidated(StaticNetworkInfraEnv(), kPullSecret, Settings(), "static_network");
  const std::string macs[] = {"52:54:00:E7:05:72", "52:54:00:95:FD:F3", "52:54:00:E8:B9:18"};
  for (int i = 0; i < 3; ++i) {
    const std::string dir = absl::StrCat(kNetworkConfigDir, "/host", i);
    const StoredFile& keyfile = built.files.at(dir + "/enp2s0.nmconnection");
    EXPECT_EQ(keyfile.mode, 0600);
    EXPECT_THAT(keyfile.contents,
                HasSubstr(absl::StrCat("address1=192.168.0.", 116 + i, "/23,192.168.0.1\n")));
    EXPECT_THAT(nmstate::NmcliNormalise(keyfile.contents), IsOk());
    EXPECT_EQ(built.files.at(dir + "/mac_interface.ini").contents, macs[i] + "=enp2s0\n");
  }
  EXPECT_EQ(built.files.at(kNetworkScriptPath).mode, 0755);
  EXPECT_TRUE(absl::StartsWith(built.files.at(kNetworkScriptPath).contents, "#!/bin/bash\n"));
  ASSERT_EQ(built.units.count(kNetworkUnitName), 1u);
  EXPECT_EQ(built.units[kNetworkUnitName]["enabled"], true);
  EXPECT_THAT(built.UnitText(kNetworkUnitName),
              AllOf(HasSubstr("Type=oneshot\n"), HasSubstr("Before=NetworkManager.service"),
                    HasSubstr(absl::StrCat("ExecStart=", kNetworkScriptPath, "\n"))));
  ExpectSecretsOnlyIn0600Files(built, {kToken, "dXNlcjpwdWxsLXNlY3JldA=="});
}

// The members of a gzip'd cpio archive in order, as `cpio -tv` lists them (one line each).
std::vector<std::string> ListArchive(const std::string& archive) {
  absl::StatusOr<std::string> cpio = iso::Gunzip(archive);
  EXPECT_THAT(cpio, IsOk());
  process::LocalProcessRunner runner;
  auto listed = runner.Run({.argv = {"cpio", "-tv", "--quiet"}, .stdin_data = cpio.value_or("")});
  EXPECT_THAT(listed, IsOk());
  EXPECT_EQ(listed->exit_code, 0) << listed->stderr_data;
  return absl::StrSplit(listed->stdout_data, '\n', absl::SkipEmpty());
}

// Unpacks a gzip'd cpio archive into a fresh folder named `name` and returns its path.
std::string UnpackArchive(const std::string& archive, const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  std::filesystem::create_directories(dir);
  absl::StatusOr<std::string> cpio = iso::Gunzip(archive);
  EXPECT_THAT(cpio, IsOk());
  process::LocalProcessRunner runner;
  auto unpacked = runner.Run(
      {.argv = {"cpio", "-idm", "--quiet"}, .working_dir = dir, .stdin_data = cpio.value_or("")});
  EXPECT_THAT(unpacked, IsOk());
  EXPECT_EQ(unpacked->exit_code, 0) << unpacked->stderr_data;
  return dir;
}

TEST(DiscoveryIgnition, TheInitrdArchiveCarriesTheNetworkForMinimalAndPxeBoots) {
  Built built = BuildValidated(StaticNetworkInfraEnv(), "", Settings(), "initrd_archive");
  ASSERT_FALSE(built.result.initrd_archive.empty());
  EXPECT_EQ(built.result.initrd_archive.size() % 4, 0u);
  const std::vector<std::string> lines = ListArchive(built.result.initrd_archive);
  std::vector<std::string> names;
  for (const std::string& line : lines) {
    std::vector<std::string> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
    names.push_back(fields.size() >= 9 ? fields[8] : line);
  }
  // Every directory comes before what it holds (the kernel creates nothing implicitly).
  for (size_t i = 0; i < names.size(); ++i) {
    const size_t slash = names[i].rfind('/');
    if (slash == std::string::npos) continue;
    const auto parent = std::find(names.begin(), names.end(), names[i].substr(0, slash));
    EXPECT_LT(parent - names.begin(), static_cast<long>(i)) << names[i];
  }
  const std::string unit = "etc/systemd/system/pre-network-manager-config.service";
  auto line_of = [&](const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? std::string() : lines[it - names.begin()];
  };
  for (int i = 0; i < 3; ++i) {
    EXPECT_THAT(line_of(absl::StrCat("etc/assisted/network/host", i, "/enp2s0.nmconnection")),
                HasSubstr("-rw-------"));
    EXPECT_THAT(line_of(absl::StrCat("etc/assisted/network/host", i, "/mac_interface.ini")),
                HasSubstr("-rw-r--r--"));
  }
  EXPECT_THAT(line_of("usr/local/bin/pre-network-manager-config.sh"), HasSubstr("-rwxr-xr-x"));
  EXPECT_THAT(line_of(unit), HasSubstr("-rw-r--r--"));
  EXPECT_THAT(line_of("etc/systemd/system/initrd.target.wants/pre-network-manager-config.service"),
              AllOf(HasSubstr("lrwxrwxrwx"), HasSubstr("-> /" + unit)));

  // The unit runs in the initramfs, before the profiles are copied for NetworkManager.
  const std::string dir = UnpackArchive(built.result.initrd_archive, "initrd_archive");
  EXPECT_THAT(ReadFile(dir + "/" + unit, "unit").value_or(""),
              AllOf(HasSubstr("Before=coreos-copy-firstboot-network.service"),
                    HasSubstr(absl::StrCat("ExecStart=", kNetworkScriptPath, "\n"))));
  EXPECT_EQ(ReadFile(dir + "/etc/assisted/network/host1/mac_interface.ini", "ini").value_or(""),
            "52:54:00:95:FD:F3=enp2s0\n");
}

TEST(DiscoveryIgnition, TheInitrdArchiveSetsTheProxyForTheRootfsFetch) {
  InfraEnv infra_env = MinimalInfraEnv();
  infra_env.mutable_proxy()->set_https_proxy("http://proxy.example.com:3128");
  infra_env.mutable_proxy()->set_no_proxy("10.0.0.0/8,.lab");
  Built built = BuildValidated(infra_env, "", Settings(), "initrd_proxy");
  const std::string dir = UnpackArchive(built.result.initrd_archive, "initrd_proxy");
  EXPECT_THAT(
      ReadFile(dir + "/etc/systemd/system/coreos-livepxe-rootfs.service.d/10-proxy.conf", "drop-in")
          .value_or(""),
      AllOf(HasSubstr("[Service]\n"),
            HasSubstr("Environment=\"https_proxy=http://proxy.example.com:3128\"\n"),
            HasSubstr("Environment=\"no_proxy=10.0.0.0/8,.lab\"\n")));
  // Neither proxy nor static networking: nothing for the initramfs.
  EXPECT_TRUE(BuildValidated(MinimalInfraEnv(), "", Settings(), "initrd_none")
                  .result.initrd_archive.empty());
}

TEST(DiscoveryIgnition, MirrorRegistriesWriteRegistriesConfAndTrustTheirCa) {
  InfraEnv infra_env = MinimalInfraEnv();
  types::v1::MirrorRegistries* registries = infra_env.mutable_mirror_registries();
  types::v1::RegistryMirror* release = registries->add_mirrors();
  release->set_source("quay.io/openshift-release-dev/ocp-release");
  release->add_mirrors("mirror.lab:5000/ocp/release");
  release->add_mirrors("[fd00::5]:5000/ocp/release");
  release->set_mirror_by_digest_only(true);
  types::v1::RegistryMirror* agent = registries->add_mirrors();
  agent->set_source("registry.example.com");
  agent->add_mirrors("mirror.lab:5000");
  const std::string ca = Testdata("services/image/testdata/orchestrator_ca.pem");
  registries->set_ca_bundle(ca);
  Built built = BuildValidated(infra_env, "", Settings(), "mirrors");
  EXPECT_EQ(built.files.at(kRegistriesConfPath).mode, 0644);
  EXPECT_EQ(built.files.at(kRegistriesConfPath).contents,
            "# Written by assisted: image pulls of the discovery host go through these mirrors.\n"
            "unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]\n"
            "\n[[registry]]\n"
            "  prefix = \"\"\n"
            "  location = \"quay.io/openshift-release-dev/ocp-release\"\n"
            "  mirror-by-digest-only = true\n"
            "\n  [[registry.mirror]]\n"
            "    location = \"mirror.lab:5000/ocp/release\"\n"
            "\n  [[registry.mirror]]\n"
            "    location = \"[fd00::5]:5000/ocp/release\"\n"
            "\n[[registry]]\n"
            "  prefix = \"\"\n"
            "  location = \"registry.example.com\"\n"
            "  mirror-by-digest-only = false\n"
            "\n  [[registry.mirror]]\n"
            "    location = \"mirror.lab:5000\"\n");
  EXPECT_THAT(built.files.at(kMirrorCaPath).contents, HasSubstr("-----BEGIN CERTIFICATE-----"));
  // Without mirrors, no registries.conf: the image's own stays.
  EXPECT_EQ(BuildValidated(MinimalInfraEnv(), "", Settings(), "no_mirrors")
                .files.count(kRegistriesConfPath),
            0u);
}

TEST(DiscoveryIgnition, SameInputSameBytes) {
  absl::StatusOr<DiscoveryIgnition> first =
      BuildDiscoveryIgnition(StaticNetworkInfraEnv(), kPullSecret, Settings());
  absl::StatusOr<DiscoveryIgnition> second =
      BuildDiscoveryIgnition(StaticNetworkInfraEnv(), kPullSecret, Settings());
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(first->config, second->config);
}

// Runs the generated network script against a fake /sys/class/net and returns the installed
// profiles (file name -> contents).
std::map<std::string, std::string> RunNetworkScript(
    const Built& built, const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& nics) {
  const std::string prefix = absl::StrCat(kNetworkConfigDir, "/");
  std::string root;
  for (const auto& [path, file] : built.files) {
    if (!absl::StartsWith(path, prefix)) continue;
    absl::StatusOr<std::string> written = testing::WriteTestFile(
        absl::StrCat(name, "/network/", path.substr(prefix.size())), file.contents);
    EXPECT_THAT(written, IsOk());
  }
  for (const auto& [nic, mac] : nics) {
    EXPECT_THAT(testing::WriteTestFile(absl::StrCat(name, "/sys/", nic, "/address"), mac + "\n"),
                IsOk());
    EXPECT_THAT(testing::WriteTestFile(absl::StrCat(name, "/sys/", nic, "/device"), ""), IsOk());
  }
  // A virtual interface with a MAC of the map must be ignored.
  EXPECT_THAT(testing::WriteTestFile(absl::StrCat(name, "/sys/lo/address"), "00:00:00:00:00:00\n"),
              IsOk());
  absl::StatusOr<std::string> script =
      testing::WriteTestFile(absl::StrCat(name, "/pre-network-manager-config.sh"),
                             built.files.at(kNetworkScriptPath).contents);
  EXPECT_THAT(script, IsOk());
  const std::string dir = std::filesystem::path(*script).parent_path().string();

  process::LocalProcessRunner runner;
  absl::StatusOr<process::CommandResult> result =
      runner.Run({.argv = {"bash", *script},
                  .env = {{"NETWORK_CONFIG_DIR", dir + "/network"},
                          {"SYS_CLASS_NET", dir + "/sys"},
                          {"TARGET_DIR", dir + "/target"},
                          {"SETTLE_SECONDS", "0"}}});
  EXPECT_THAT(result, IsOk());
  EXPECT_EQ(result->exit_code, 0) << result->stderr_data;
  std::map<std::string, std::string> installed;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/target", error)) {
    installed[entry.path().filename().string()] = *ReadFile(entry.path().string(), "profile");
    EXPECT_EQ(std::filesystem::status(entry.path()).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  }
  return installed;
}

TEST(NetworkScript, InstallsTheProfilesOfTheHostWhoseMacIsPresentUnderTheRealName) {
  Built built = BuildValidated(StaticNetworkInfraEnv(), "", Settings(), "script_seed");
  // This machine is asus3-vm2, whose NIC the kernel named ens3.
  std::map<std::string, std::string> installed = RunNetworkScript(
      built, "script_seed", {{"ens3", "52:54:00:95:fd:f3"}, {"ens4", "52:54:00:00:00:01"}});
  ASSERT_EQ(installed.size(), 1u);
  const std::string& profile = installed["ens3.nmconnection"];
  EXPECT_THAT(profile, AllOf(HasSubstr("\nid=ens3\n"), HasSubstr("\ninterface-name=ens3\n"),
                             HasSubstr("address1=192.168.0.117/23,192.168.0.1\n")));
  absl::StatusOr<nmstate::KeyfileValues> normalised = nmstate::NmcliNormalise(profile);
  ASSERT_THAT(normalised, IsOk());
  EXPECT_EQ(normalised->at("connection.interface-name"), "ens3");
}

TEST(NetworkScript, InstallsNothingOnAnUnknownMachine) {
  Built built = BuildValidated(StaticNetworkInfraEnv(), "", Settings(), "script_unknown");
  EXPECT_TRUE(RunNetworkScript(built, "script_unknown", {{"ens3", "52:54:00:aa:bb:cc"}}).empty());
}

TEST(NetworkScript, RewritesSwappedNamesVlanParentsAndShortensLongVlanNames) {
  InfraEnv infra_env = MinimalInfraEnv();
  types::v1::HostStaticNetworkConfig* host = infra_env.add_static_network_config();
  host->set_network_yaml(R"(
interfaces:
  - {name: eth0, type: ethernet, state: up}
  - name: eth0.300
    type: vlan
    vlan: {base-iface: eth0, id: 300}
    ipv4: {enabled: true, address: [{ip: 10.3.0.5, prefix-length: 24}]}
  - {name: eth1, type: ethernet, ipv4: {enabled: true, dhcp: true}}
routes:
  config:
    - {destination: 0.0.0.0/0, next-hop-address: 10.3.0.1, next-hop-interface: eth0.300}
)");
  types::v1::MacInterfaceMapEntry* entry = host->add_mac_interface_map();
  entry->set_mac_address("02:00:00:00:00:0a");
  entry->set_logical_nic_name("eth0");
  entry = host->add_mac_interface_map();
  entry->set_mac_address("02:00:00:00:00:0b");
  entry->set_logical_nic_name("eth1");
  Built built = BuildValidated(infra_env, "", Settings(), "script_vlan");

  // The kernel named the first NIC with a long name and the second "eth0".
  std::map<std::string, std::string> installed =
      RunNetworkScript(built, "script_vlan",
                       {{"enp0s20f0u1u2", "02:00:00:00:00:0a"}, {"eth0", "02:00:00:00:00:0b"}});
  ASSERT_EQ(installed.size(), 3u) << absl::StrJoin(installed, ",", absl::PairFormatter("="));
  EXPECT_THAT(installed["enp0s20f0u1u2.nmconnection"],
              AllOf(HasSubstr("\ninterface-name=enp0s20f0u1u2\n"), HasSubstr("method=disabled")));
  EXPECT_THAT(
      installed["enp0s20f0u1.300.nmconnection"],
      AllOf(HasSubstr("\nid=enp0s20f0u1.300\n"), HasSubstr("\ninterface-name=enp0s20f0u1.300\n"),
            HasSubstr("\nparent=enp0s20f0u1u2\n"), HasSubstr("address1=10.3.0.5/24,10.3.0.1")));
  // The logical eth1 is the real eth0 and must not have been renamed twice.
  EXPECT_THAT(installed["eth0.nmconnection"],
              AllOf(HasSubstr("\ninterface-name=eth0\n"), HasSubstr("[ipv4]\nmethod=auto")));
  absl::StatusOr<nmstate::KeyfileValues> vlan =
      nmstate::NmcliNormalise(installed["enp0s20f0u1.300.nmconnection"]);
  ASSERT_THAT(vlan, IsOk());
  EXPECT_EQ(vlan->at("connection.interface-name"), "enp0s20f0u1.300");
  EXPECT_EQ(vlan->at("vlan.id"), "300");
  EXPECT_EQ(vlan->at("vlan.parent"), "enp0s20f0u1u2");
  for (const auto& [file, profile] : installed) {
    EXPECT_THAT(nmstate::NmcliNormalise(profile), IsOk()) << file;
  }
}

TEST(NetworkScript, RewritesBondPortsAndPrimary) {
  InfraEnv infra_env = MinimalInfraEnv();
  types::v1::HostStaticNetworkConfig* host = infra_env.add_static_network_config();
  host->set_network_yaml(Testdata("lib/nmstate/testdata/bond_vlan.yaml"));
  for (const auto& [mac, name] : {std::pair<const char*, const char*>{"02:00:00:00:01:01", "eno1"},
                                  {"02:00:00:00:01:02", "eno2"}}) {
    types::v1::MacInterfaceMapEntry* entry = host->add_mac_interface_map();
    entry->set_mac_address(mac);
    entry->set_logical_nic_name(name);
  }
  Built built = BuildValidated(infra_env, "", Settings(), "script_bond");
  std::map<std::string, std::string> installed = RunNetworkScript(
      built, "script_bond", {{"ens1f0", "02:00:00:00:01:01"}, {"ens1f1", "02:00:00:00:01:02"}});
  ASSERT_EQ(installed.size(), 4u) << absl::StrJoin(installed, ",", absl::PairFormatter("="));
  for (const char* port : {"ens1f0", "ens1f1"}) {
    absl::StatusOr<nmstate::KeyfileValues> values =
        nmstate::NmcliNormalise(installed[absl::StrCat(port, ".nmconnection")]);
    ASSERT_THAT(values, IsOk());
    EXPECT_EQ(values->at("connection.interface-name"), port);
    EXPECT_EQ(values->at("connection.master"), "bond0");
  }
  absl::StatusOr<nmstate::KeyfileValues> bond =
      nmstate::NmcliNormalise(installed["bond0.nmconnection"]);
  ASSERT_THAT(bond, IsOk());
  EXPECT_EQ(bond->at("bond.primary"), "ens1f0");
  EXPECT_EQ(bond->at("bond.mode"), "active-backup");
  EXPECT_THAT(installed["bond0.300.nmconnection"], HasSubstr("\nparent=bond0\n"));
}

struct InvalidCase {
  std::string name;
  void (*change)(InfraEnv&, DiscoveryIgnitionSettings&, std::string& pull_secret);
  std::string message;
};

class DiscoveryIgnitionRejects : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(DiscoveryIgnitionRejects, NamingTheField) {
  InfraEnv infra_env = StaticNetworkInfraEnv();
  DiscoveryIgnitionSettings settings = Settings();
  std::string pull_secret = kPullSecret;
  GetParam().change(infra_env, settings, pull_secret);
  absl::StatusOr<DiscoveryIgnition> result =
      BuildDiscoveryIgnition(infra_env, pull_secret, settings);
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
  EXPECT_THAT(result.status().message(), AllOf(Not(HasSubstr(kToken)), Not(HasSubstr("hunter2"))));
  // What the infra-env alone holds is refused by an infra-env create in the same words.
  if (absl::StartsWith(GetParam().message, "infra_env.") &&
      !absl::StartsWith(GetParam().message, "infra_env.id")) {
    EXPECT_EQ(CheckDiscoveryInputs(infra_env), result.status());
  }
}

TEST(DiscoveryInputs, WhatBuildsPassesWithoutAnId) {
  InfraEnv infra_env = StaticNetworkInfraEnv();
  ASSERT_THAT(BuildDiscoveryIgnition(infra_env, kPullSecret, Settings()), IsOk());
  infra_env.clear_id();
  EXPECT_THAT(CheckDiscoveryInputs(infra_env), IsOk());
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, DiscoveryIgnitionRejects,
    ::testing::Values(
        InvalidCase{"NoId", [](InfraEnv& e, auto&, auto&) { e.clear_id(); }, "infra_env.id: "},
        InvalidCase{"BadOrchestratorAddress",
                    [](auto&, DiscoveryIgnitionSettings& s, auto&) {
                      s.orchestrator_address = "assisted.example.com";
                    },
                    "settings.orchestrator_address: \"assisted.example.com\" is not host:port"},
        InvalidCase{"TokenWithNewline",
                    [](auto&, DiscoveryIgnitionSettings& s, auto&) {
                      s.agent_token = std::string(kToken) + "\nExecStartPre=/bin/evil";
                    },
                    "settings.agent_token: holds a character that cannot be written safely"},
        InvalidCase{"RelativeAgentPath",
                    [](auto&, DiscoveryIgnitionSettings& s, auto&) {
                      s.agent_binary_path = "assisted-agent";
                    },
                    "settings.agent_binary_path: must be an absolute path"},
        InvalidCase{"BadCaBundle",
                    [](auto&, DiscoveryIgnitionSettings& s, auto&) { s.ca_bundle_pem = "hello"; },
                    "settings.ca_bundle_pem: holds no PEM certificate"},
        InvalidCase{"PullSecretNotJson",
                    [](auto&, auto&, std::string& p) { p = "{\"auths\": hunter2"; },
                    "pull_secret: is not a JSON object"},
        InvalidCase{"SocksProxy",
                    [](InfraEnv& e, auto&, auto&) {
                      e.mutable_proxy()->set_http_proxy("socks5://proxy:1080");
                    },
                    "infra_env.proxy.http_proxy: must be an http:// or https:// URL"},
        InvalidCase{"BadNoProxy",
                    [](InfraEnv& e, auto&, auto&) {
                      e.mutable_proxy()->set_http_proxy("http://proxy:3128");
                      e.mutable_proxy()->set_no_proxy("a.com,b c");
                    },
                    "infra_env.proxy.no_proxy: \"b c\" holds a character"},
        InvalidCase{"MirrorWithScheme",
                    [](InfraEnv& e, auto&, auto&) {
                      auto* mirror = e.mutable_mirror_registries()->add_mirrors();
                      mirror->set_source("https://quay.io/ocp");
                      mirror->add_mirrors("mirror.lab:5000/ocp");
                    },
                    "infra_env.mirror_registries.mirrors[0].source: \"https://quay.io/ocp\" must "
                    "not have a scheme"},
        InvalidCase{"MirrorWithTag",
                    [](InfraEnv& e, auto&, auto&) {
                      auto* mirror = e.mutable_mirror_registries()->add_mirrors();
                      mirror->set_source("quay.io/ocp");
                      mirror->add_mirrors("mirror.lab:5000/ocp:4.16");
                    },
                    "infra_env.mirror_registries.mirrors[0].mirrors[0]: \"mirror.lab:5000/ocp:4.16\" "
                    "must not name a tag"},
        InvalidCase{"MirrorQuote",
                    [](InfraEnv& e, auto&, auto&) {
                      auto* mirror = e.mutable_mirror_registries()->add_mirrors();
                      mirror->set_source("quay.io/ocp\"x");
                      mirror->add_mirrors("mirror.lab");
                    },
                    "infra_env.mirror_registries.mirrors[0].source: \"quay.io/ocp\\\"x\" is not a "
                    "registry or repository"},
        InvalidCase{"MirrorSourceTwice",
                    [](InfraEnv& e, auto&, auto&) {
                      for (int i = 0; i < 2; ++i) {
                        auto* mirror = e.mutable_mirror_registries()->add_mirrors();
                        mirror->set_source("quay.io/ocp");
                        mirror->add_mirrors("mirror.lab/ocp");
                      }
                    },
                    "infra_env.mirror_registries.mirrors[1].source: \"quay.io/ocp\" is listed twice"},
        InvalidCase{"MirrorWithoutMirrors",
                    [](InfraEnv& e, auto&, auto&) {
                      e.mutable_mirror_registries()->add_mirrors()->set_source("quay.io/ocp");
                    },
                    "infra_env.mirror_registries.mirrors[0].mirrors: must list at least one"},
        InvalidCase{"MirrorCaNotPem",
                    [](InfraEnv& e, auto&, auto&) {
                      e.mutable_mirror_registries()->set_ca_bundle("not a certificate");
                    },
                    "infra_env.mirror_registries.ca_bundle: holds no PEM certificate"},
        InvalidCase{"BadNtpSource",
                    [](InfraEnv& e, auto&, auto&) { e.add_additional_ntp_sources("ntp;reboot"); },
                    "infra_env.additional_ntp_sources[0]: \"ntp;reboot\" is not a host name or IP"},
        InvalidCase{
            "BadTrustBundle",
            [](InfraEnv& e, auto&, auto&) {
              e.set_additional_trust_bundle(
                  "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n");
            },
            "infra_env.additional_trust_bundle: certificate 1 is not a valid PEM X.509"},
        InvalidCase{
            "OverrideWithoutVersion",
            [](InfraEnv& e, auto&, auto&) { e.set_ignition_config_override(R"({"ignition":{}})"); },
            "infra_env.ignition_config_override: needs ignition.version"},
        InvalidCase{"DeleteKernelArgument",
                    [](InfraEnv& e, auto&, auto&) {
                      types::v1::KernelArgument* a = e.add_kernel_arguments();
                      a->set_operation(KernelArgumentOperation::KERNEL_ARGUMENT_OPERATION_DELETE);
                      a->set_value("quiet");
                    },
                    "infra_env.kernel_arguments[0]: only append is applied"},
        InvalidCase{"KernelArgumentWithSpace",
                    [](InfraEnv& e, auto&, auto&) {
                      types::v1::KernelArgument* a = e.add_kernel_arguments();
                      a->set_operation(KernelArgumentOperation::KERNEL_ARGUMENT_OPERATION_APPEND);
                      a->set_value("a b");
                    },
                    "infra_env.kernel_arguments[0].value: \"a b\" is not one printable argument"},
        InvalidCase{"BadNmState",
                    [](InfraEnv& e, auto&, auto&) {
                      e.mutable_static_network_config(1)->set_network_yaml(
                          "interfaces:\n- {name: team0, type: team}\n");
                    },
                    "infra_env.static_network_config[1].network_yaml: nmstate: "
                    "interfaces[0].type: \"team\" is not supported"},
        InvalidCase{"NoMacMap",
                    [](InfraEnv& e, auto&, auto&) {
                      e.mutable_static_network_config(0)->clear_mac_interface_map();
                    },
                    "infra_env.static_network_config[0].mac_interface_map: must list at least "
                    "one MAC"},
        InvalidCase{
            "MacOfAnotherHost",
            [](InfraEnv& e, auto&, auto&) {
              e.mutable_static_network_config(2)->mutable_mac_interface_map(0)->set_mac_address(
                  "52:54:00:E7:05:72");
            },
            "infra_env.static_network_config[2].mac_interface_map[0].mac_address: "
            "52:54:00:E7:05:72 is already mapped"},
        InvalidCase{
            "BadMac",
            [](InfraEnv& e, auto&, auto&) {
              e.mutable_static_network_config(0)->mutable_mac_interface_map(0)->set_mac_address(
                  "52-54-00-e7-05-72");
            },
            "mac_interface_map[0].mac_address: \"52-54-00-e7-05-72\" is not a MAC address"},
        InvalidCase{"BadLogicalName",
                    [](InfraEnv& e, auto&, auto&) {
                      e.mutable_static_network_config(0)
                          ->mutable_mac_interface_map(0)
                          ->set_logical_nic_name("eth0/x");
                    },
                    "mac_interface_map[0].logical_nic_name: \"eth0/x\" is not an interface name"}),
    [](const ::testing::TestParamInfo<InvalidCase>& info) { return info.param.name; });

}  // namespace
}  // namespace assisted::discovery
