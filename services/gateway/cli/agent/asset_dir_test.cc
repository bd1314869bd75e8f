#include "services/gateway/cli/agent/asset_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/containers/registries_conf.h"
#include "lib/file/read_file.h"
#include "lib/ignition/config_builder.h"
#include "lib/ignition/test_util.h"
#include "lib/iso/embed.h"
#include "lib/iso/iso9660.h"
#include "lib/iso/test_image.h"
#include "lib/nmstate/nmcli_offline.h"
#include "lib/process/subprocess.h"
#include "lib/random/random.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/agent/agent_ignition.h"
#include "yaml-cpp/yaml.h"

namespace assisted::cli::agent {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using nlohmann::json;
using ::testing::HasSubstr;

std::string TestTmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string Testdata(const std::string& name) {
  absl::StatusOr<std::string> text =
      ReadFile(absl::StrCat("services/gateway/cli/agent/testdata/", name), "testdata");
  EXPECT_THAT(text, IsOk());
  return text.value_or("");
}

void Write(const std::string& path, const std::string& contents) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << contents;
}

// A small CoreOS-style live ISO, built once for all tests.
const std::string& BaseIso() {
  static const std::string* path = [] {
    auto* built = new std::string(absl::StrCat(TestTmpDir(), "/base.iso"));
    process::LocalProcessRunner runner;
    absl::Status status =
        iso::BuildTestImage(runner, {}, absl::StrCat(TestTmpDir(), "/base-tree"), *built);
    EXPECT_THAT(status, IsOk());
    return built;
  }();
  return *path;
}

// An asset folder holding seed 002's two files, `edit` applied to install-config.yaml.
std::string SeedDir(const std::string& name,
                    const std::vector<std::pair<std::string, std::string>>& edit = {}) {
  const std::string dir = absl::StrCat(TestTmpDir(), "/", name);
  Write(absl::StrCat(dir, "/install-config.yaml"),
        absl::StrReplaceAll(Testdata("seed002_install-config.yaml"), edit));
  Write(absl::StrCat(dir, "/agent-config.yaml"), Testdata("seed002_agent-config.yaml"));
  return dir;
}

process::CommandResult RunTool(std::vector<std::string> argv) {
  process::LocalProcessRunner runner;
  absl::StatusOr<process::CommandResult> result = runner.Run({.argv = std::move(argv)});
  EXPECT_THAT(result, IsOk());
  return result.value_or(process::CommandResult{});
}

// The Ignition in the ISO's embed area, as a booting host finds it.
json EmbeddedIgnition(const std::string& iso_path) {
  const int fd = open(iso_path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0);
  absl::StatusOr<iso::IsoReader> reader = iso::IsoReader::Open(fd, iso_path);
  EXPECT_THAT(reader, IsOk());
  absl::StatusOr<std::string> config =
      reader.ok() ? iso::ReadEmbeddedIgnition(*reader) : reader.status();
  close(fd);
  EXPECT_THAT(config, IsOk());
  return json::parse(config.value_or("{}"));
}

// path -> decoded contents of every file of a config.
std::map<std::string, std::string> Files(const json& config) {
  std::map<std::string, std::string> files;
  for (const json& file : config["storage"]["files"]) {
    absl::StatusOr<std::string> contents =
        ignition::DecodeDataUrl(file["contents"]["source"].get<std::string>());
    EXPECT_THAT(contents, IsOk());
    files[file["path"].get<std::string>()] = contents.value_or("");
  }
  return files;
}

int Mode(const std::string& path) {
  struct stat info;
  EXPECT_EQ(stat(path.c_str(), &info), 0) << path;
  return info.st_mode & 0777;
}

class CreateImageFromSeed002 : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(SeedDir("seed002"));
    SeededRandom random(2);
    absl::StatusOr<CreatedImage> created =
        CreateImage(*dir_, BaseIso(), absl::FromUnixSeconds(1800000000), random);
    ASSERT_THAT(created, IsOk());
    created_ = new CreatedImage(*created);
    ignition_ = new json(EmbeddedIgnition(created_->iso_path));
  }
  static std::string* dir_;
  static CreatedImage* created_;
  static json* ignition_;
};
std::string* CreateImageFromSeed002::dir_;
CreatedImage* CreateImageFromSeed002::created_;
json* CreateImageFromSeed002::ignition_;

TEST_F(CreateImageFromSeed002, WritesAnIsoXorrisoReadsWithTheBaseLayoutAndSize) {
  EXPECT_EQ(created_->iso_path, absl::StrCat(*dir_, "/agent.x86_64.iso"));
  EXPECT_EQ(std::filesystem::file_size(created_->iso_path), std::filesystem::file_size(BaseIso()));
  for (const std::string& path : {BaseIso(), created_->iso_path}) {
    const process::CommandResult listing =
        RunTool({"xorriso", "-indev", path, "-find", "/", "-type", "f"});
    ASSERT_TRUE(listing.ok()) << listing.stderr_data;
    EXPECT_THAT(listing.stdout_data, HasSubstr("/images/ignition.img"));
    EXPECT_THAT(listing.stdout_data, HasSubstr("/images/pxeboot/rootfs.img"));
  }
  // Only the embed area differs: the base's other bytes are all there.
  absl::StatusOr<std::string> base = ReadFile(BaseIso(), "base");
  absl::StatusOr<std::string> made = ReadFile(created_->iso_path, "made");
  ASSERT_THAT(base, IsOk());
  ASSERT_THAT(made, IsOk());
  const process::CommandResult lba = RunTool({"xorriso", "-indev", created_->iso_path, "-find",
                                              "/images/ignition.img", "-exec", "report_lba", "--"});
  ASSERT_TRUE(lba.ok()) << lba.stderr_data;
  size_t start = 0, blocks = 0;
  ASSERT_EQ(std::sscanf(lba.stdout_data.substr(lba.stdout_data.find("File data lba:")).c_str(),
                        "File data lba: 0 , %zu , %zu", &start, &blocks),
            2)
      << lba.stdout_data;
  const size_t begin = start * 2048, end = begin + blocks * 2048;
  EXPECT_EQ(base->substr(0, begin), made->substr(0, begin));
  EXPECT_EQ(base->substr(end), made->substr(end));
  EXPECT_NE(base->substr(begin, end - begin), made->substr(begin, end - begin));
}

TEST_F(CreateImageFromSeed002, EmbedsAnIgnitionThatIgnitionValidateAccepts) {
  EXPECT_THAT(ignition::IgnitionValidate(ignition_->dump(), "seed002-agent.ign"), IsOk());
  EXPECT_EQ((*ignition_)["ignition"]["version"], "3.2.0");
}

TEST_F(CreateImageFromSeed002, PointsTheAgentAtRendezvousIpAndCarriesTheClusterDefinition) {
  std::map<std::string, std::string> units;
  for (const json& unit : (*ignition_)["systemd"]["units"]) {
    units[unit["name"].get<std::string>()] = unit.value("contents", "");
  }
  ASSERT_TRUE(units.count("assisted-agent.service"));
  EXPECT_THAT(units["assisted-agent.service"],
              HasSubstr(absl::StrCat("--orchestrator-address=192.168.0.116:9090 --infra-env-id=",
                                     created_->infra_env_id)));
  EXPECT_THAT(units[kNodeZeroUnitName],
              HasSubstr("After=network-online.target\n\n[Service]\nType=oneshot\n"
                        "RemainAfterExit=yes\nExecStart=/usr/local/bin/assisted-node-zero.sh\n"));
  EXPECT_THAT(units[kSetHostnameUnitName],
              HasSubstr("Before=NetworkManager.service network-pre.target\n"));
  EXPECT_TRUE(units.count("pre-network-manager-config.service"));

  std::map<std::string, std::string> files = Files(*ignition_);
  EXPECT_THAT(files[kRendezvousEnvPath], HasSubstr("NODE_ZERO_IP=192.168.0.116\n"));
  EXPECT_THAT(files[kRendezvousEnvPath], HasSubstr("EXPECTED_HOSTS=3\n"));
  const json cluster = json::parse(files[kClusterJsonPath]);
  EXPECT_EQ(cluster["cluster"]["name"], "kni22");
  EXPECT_EQ(cluster["cluster"]["base_dns_domain"], "schmaustech.com");
  EXPECT_EQ(cluster["cluster"]["api_vips"][0]["ip"], "192.168.0.125");
  EXPECT_EQ(cluster["cluster"]["machine_networks"][0]["cidr"], "192.168.0.0/24");
  EXPECT_EQ(cluster["infra_env_id"], created_->infra_env_id);
  EXPECT_EQ(cluster["expected_hosts"], 3);
  EXPECT_EQ(cluster["hosts"][2]["macs"][0], "52:54:00:e8:b9:18");
  EXPECT_EQ(files["/etc/assisted/hostnames/52:54:00:95:fd:f3"], "asus3-vm2\n");
  // The pull secret sits only where podman reads it.
  EXPECT_THAT(files["/root/.docker/config.json"], HasSubstr("provisioning.schmaustech.com:5000"));
  EXPECT_THAT(files[kClusterJsonPath], ::testing::Not(HasSubstr("auths")));
}

TEST_F(CreateImageFromSeed002, CarriesTheMirrorsTheCaAndEveryHostsNetworkByMac) {
  std::map<std::string, std::string> files = Files(*ignition_);
  const std::string& registries = files["/etc/containers/registries.conf"];
  EXPECT_THAT(registries,
              HasSubstr("location = \"quay.io/openshift-release-dev/ocp-v4.0-art-dev\""));
  EXPECT_THAT(registries,
              HasSubstr("location = \"provisioning.schmaustech.com:5000/ocp4/openshift4\""));
  EXPECT_THAT(files["/etc/pki/ca-trust/source/anchors/assisted-additional-trust-bundle.pem"],
              HasSubstr("MIIGKDCCBBCgAwIBAgIUVu+F6PrAXwxVfPs4D0KQA3+50y4wDQYJKoZIhvcNAQEL"));
  EXPECT_EQ((*ignition_)["ignition"]["security"]["tls"]["certificateAuthorities"].size(), 1u);
  const std::string macs[] = {"52:54:00:E7:05:72", "52:54:00:95:FD:F3", "52:54:00:E8:B9:18"};
  const std::string ips[] = {"192.168.0.116/23", "192.168.0.117/23", "192.168.0.118/23"};
  for (int i = 0; i < 3; ++i) {
    const std::string host = absl::StrCat("/etc/assisted/network/host", i);
    EXPECT_EQ(files[absl::StrCat(host, "/mac_interface.ini")], absl::StrCat(macs[i], "=enp2s0\n"));
    const std::string& keyfile = files[absl::StrCat(host, "/enp2s0.nmconnection")];
    absl::StatusOr<nmstate::KeyfileValues> normalised = nmstate::NmcliNormalise(keyfile);
    ASSERT_THAT(normalised, IsOk()) << keyfile;
    EXPECT_THAT((*normalised)["ipv4.address1"], HasSubstr(ips[i]));
  }
}

// Seed 002 with a proxy and NTP sources added, and the release named by digest as seed 002's
// mirror holds it (its imageContentSources' second source).
constexpr char kSeedRelease[] =
    "registry.svc.ci.openshift.org/ocp/release@sha256:"
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(CreateImage, NodeZerosInfraEnvAndClusterCarryTheMirrorsProxyNtpAndTrustBundle) {
  const std::string dir = SeedDir("seed002-settings");
  Write(absl::StrCat(dir, "/install-config.yaml"),
        Testdata("seed002_install-config.yaml") +
            "proxy:\n  httpProxy: http://proxy.lab:3128\n  httpsProxy: http://proxy.lab:3129\n"
            "  noProxy: .lab,192.168.0.0/24\n");
  Write(absl::StrCat(dir, "/agent-config.yaml"),
        absl::StrReplaceAll(Testdata("seed002_agent-config.yaml"),
                            {{"  rendezvousIP: 192.168.0.116\n",
                              "  rendezvousIP: 192.168.0.116\n  additionalNTPSources:\n"
                              "    - ntp1.lab\n    - 192.168.0.10\n"}}));
  SeededRandom random(3);
  absl::StatusOr<CreatedImage> created =
      CreateImage(dir, BaseIso(), absl::FromUnixSeconds(1800000000), random, kSeedRelease);
  ASSERT_THAT(created, IsOk());
  const json ignition = EmbeddedIgnition(created->iso_path);
  std::map<std::string, std::string> files = Files(ignition);
  const json definition = json::parse(files[kClusterJsonPath]);

  // What `agent run-node-zero` posts as node 0's infra-env (REST field names).
  const json& infra_env = definition["infra_env"];
  EXPECT_THAT(infra_env["additional_trust_bundle"].get<std::string>(),
              HasSubstr("MIIGKDCCBBCgAwIBAgIUVu+F6PrAXwxVfPs4D0KQA3+50y4wDQYJKoZIhvcNAQEL"));
  EXPECT_EQ(infra_env["additional_ntp_sources"], "ntp1.lab,192.168.0.10");
  EXPECT_EQ(infra_env["proxy"], (json{{"http_proxy", "http://proxy.lab:3128"},
                                      {"https_proxy", "http://proxy.lab:3129"},
                                      {"no_proxy", ".lab,192.168.0.0/24"}}));
  EXPECT_EQ(infra_env["mirror_registries"],
            (json{{"mirrors",
                   {{{"source", "quay.io/openshift-release-dev/ocp-v4.0-art-dev"},
                     {"mirrors", {"provisioning.schmaustech.com:5000/ocp4/openshift4"}},
                     {"mirror_by_digest_only", true}},
                    {{"source", "registry.svc.ci.openshift.org/ocp/release"},
                     {"mirrors", {"provisioning.schmaustech.com:5000/ocp4/openshift4"}},
                     {"mirror_by_digest_only", true}}}}}));
  EXPECT_EQ(infra_env["static_network_config"].size(), 3u);
  // The cluster's own: its install-config's proxy and its hosts' NTP check.
  EXPECT_EQ(definition["cluster"]["http_proxy"], "http://proxy.lab:3128");
  EXPECT_EQ(definition["cluster"]["https_proxy"], "http://proxy.lab:3129");
  EXPECT_EQ(definition["cluster"]["no_proxy"], ".lab,192.168.0.0/24");
  EXPECT_EQ(definition["cluster"]["additional_ntp_source"], "ntp1.lab,192.168.0.10");
  // The ISO's own discovery settings agree: chrony's sources and the agent's proxy.
  EXPECT_EQ(files["/etc/chrony.d/assisted-ntp-sources.conf"],
            "server ntp1.lab iburst\nserver 192.168.0.10 iburst\n");

  // The release: node 0's orchestrator names it to the hosts, whose registries.conf sends the
  // pull to the mirror first.
  EXPECT_EQ(files[kReleaseImageEnvPath],
            absl::StrCat(R"(ASSISTED_RELEASE_IMAGES='[{"cpu_architecture":"x86_64",)",
                         R"("openshift_version":"4.16","url":")", kSeedRelease,
                         R"(","version":"4.16"}]')", "\n"));
  std::map<std::string, std::string> units;
  for (const json& unit : ignition["systemd"]["units"]) {
    units[unit["name"].get<std::string>()] = unit.value("contents", "");
  }
  EXPECT_THAT(units["assisted-orchestrator.service"],
              HasSubstr(absl::StrCat("EnvironmentFile=", kReleaseImageEnvPath, "\n")));
  absl::StatusOr<std::vector<containers::MirrorRule>> rules =
      containers::ParseRegistriesConf(files["/etc/containers/registries.conf"]);
  ASSERT_THAT(rules, IsOk());
  EXPECT_THAT(containers::PullReferences(kSeedRelease, *rules),
              ::testing::ElementsAre(
                  absl::StrCat(
                      "provisioning.schmaustech.com:5000/ocp4/openshift4",
                      absl::string_view(kSeedRelease)
                          .substr(std::string("registry.svc.ci.openshift.org/ocp/release").size())),
                  kSeedRelease));
}

TEST(CreateImage, AReleaseImageTheHostsCouldNotPullThroughTheMirrorsIsRefused) {
  const std::string dir = SeedDir("seed002-release");
  SeededRandom random(4);
  // Seed 002's own override names the mirror itself by tag: fine. A tag of the mirrored source
  // would go to the source, which a disconnected host cannot reach.
  EXPECT_THAT(CreateImage(dir, BaseIso(), absl::FromUnixSeconds(1800000000), random,
                          "provisioning.schmaustech.com:5000/ocp4/openshift4:4.11.0-rc.7"),
              IsOk());
  EXPECT_THAT(
      CreateImage(dir, BaseIso(), absl::FromUnixSeconds(1800000000), random,
                  "registry.svc.ci.openshift.org/ocp/release:4.11.0-rc.7"),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          HasSubstr("--release-image: \"registry.svc.ci.openshift.org/ocp/release:4.11.0-rc.7\" "
                    "is a tag of registry.svc.ci.openshift.org/ocp/release, which "
                    "install-config.yaml's imageContentSources mirror by digest only")));
  EXPECT_THAT(
      CreateImage(dir, BaseIso(), absl::FromUnixSeconds(1800000000), random, "https://quay.io/x:1"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--release-image: ")));
  // Without one, node 0's orchestrator keeps its own catalog: no release file.
  SeededRandom again(5);
  absl::StatusOr<CreatedImage> plain =
      CreateImage(dir, BaseIso(), absl::FromUnixSeconds(1800000000), again);
  ASSERT_THAT(plain, IsOk());
  EXPECT_EQ(Files(EmbeddedIgnition(plain->iso_path)).count(kReleaseImageEnvPath), 0u);
  // ... which a disconnected install cannot check: the user is told so.
  EXPECT_THAT(
      plain->warnings,
      ::testing::ElementsAre(HasSubstr("imageContentSources list mirrors but no --release-image")));
  SeededRandom named(6);
  absl::StatusOr<CreatedImage> with_release =
      CreateImage(dir, BaseIso(), absl::FromUnixSeconds(1800000000), named,
                  "provisioning.schmaustech.com:5000/ocp4/openshift4:4.11.0-rc.7");
  ASSERT_THAT(with_release, IsOk());
  EXPECT_THAT(with_release->warnings, ::testing::IsEmpty());
}

TEST_F(CreateImageFromSeed002, WritesAuthFilesAndAStateFileForWaitFor) {
  EXPECT_EQ(Mode(absl::StrCat(*dir_, "/auth/kubeconfig")), 0600);
  EXPECT_EQ(Mode(absl::StrCat(*dir_, "/auth/kubeadmin-password")), 0600);
  EXPECT_EQ(Mode(absl::StrCat(*dir_, "/.assisted-agent-state.json")), 0600);
  absl::StatusOr<std::string> kubeconfig = ReadFile(absl::StrCat(*dir_, "/auth/kubeconfig"), "k");
  ASSERT_THAT(kubeconfig, IsOk());
  EXPECT_THAT(*kubeconfig, HasSubstr("https://api.kni22.schmaustech.com:6443"));
  // Node 0 installs the cluster from the same CA and password.
  std::map<std::string, std::string> files = Files(*ignition_);
  EXPECT_EQ(files["/etc/assisted/credentials/kubeconfig"], *kubeconfig);
  EXPECT_EQ(files["/etc/assisted/credentials/kubeadmin-password"],
            *ReadFile(absl::StrCat(*dir_, "/auth/kubeadmin-password"), "p"));
  EXPECT_THAT(files["/etc/assisted/credentials/tls/root-ca.key"], HasSubstr("PRIVATE KEY"));

  absl::StatusOr<std::string> state =
      ReadFile(absl::StrCat(*dir_, "/.assisted-agent-state.json"), "state");
  ASSERT_THAT(state, IsOk());
  const json parsed = json::parse(*state);
  EXPECT_EQ(parsed["rendezvous_ip"], "192.168.0.116");
  EXPECT_EQ(parsed["gateway_url"], "http://192.168.0.116:8080");
  EXPECT_EQ(parsed["infra_env_id"], created_->infra_env_id);
  EXPECT_EQ(parsed["expected_hosts"], 3);
  EXPECT_EQ(parsed["cluster_id"], created_->cluster_id);
  EXPECT_EQ(json::parse(files[kClusterJsonPath])["cluster_id"], created_->cluster_id);
  // wait-for signs its tokens with the key node 0's gateway checks them with.
  EXPECT_EQ(parsed["gateway_jwt_secret"].get<std::string>().size(), 64u);
  EXPECT_EQ(files["/etc/assisted/credentials/jwt.key"], parsed["gateway_jwt_secret"]);
  absl::StatusOr<AgentState> read = ReadState(*dir_);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->cluster_id, created_->cluster_id);
}

// The names of a unit's `key=` line ("Wants", "After"), split at spaces.
std::vector<std::string> UnitList(const std::string& unit, const std::string& key) {
  for (absl::string_view line : absl::StrSplit(unit, '\n')) {
    if (absl::ConsumePrefix(&line, key + "=")) {
      return absl::StrSplit(line, ' ', absl::SkipEmpty());
    }
  }
  return {};
}

// The units carry-over puts on node 0's installed disk: its script's `for unit in ...` list.
std::vector<std::string> CarriedUnits(const std::string& script) {
  const size_t from = script.find("for unit in ");
  const size_t to = script.find("; do", from);
  if (from == std::string::npos || to == std::string::npos) return {};
  return absl::StrSplit(script.substr(from + 12, to - from - 12), ' ', absl::SkipEmpty());
}

constexpr char kCarryOverScript[] = "/usr/local/bin/assisted-node-zero-carry-over.sh";

// Node 0's services run only where the marker is, in order, and only the agent port and the
// gateway's HTTP port listen on rendezvousIP (node_zero_pg_test runs them).
TEST_F(CreateImageFromSeed002, CarriesNodeZerosUnitsListeningOnRendezvousIpOnlyForAgentsAndUsers) {
  std::map<std::string, std::string> units;
  for (const json& unit : (*ignition_)["systemd"]["units"]) {
    units[unit["name"].get<std::string>()] = unit.value("contents", "");
  }
  std::vector<std::string> before = {kNodeZeroUnitName};
  std::vector<std::string> on_rendezvous_ip;
  for (const std::string& name : NodeZeroUnitNames()) {
    ASSERT_TRUE(units.count(name)) << name;
    const std::string& unit = units[name];
    EXPECT_THAT(unit, HasSubstr("ConditionPathExists=/etc/assisted/node0\n")) << name;
    EXPECT_THAT(UnitList(unit, "After"), ::testing::ElementsAreArray(before)) << name;
    before.push_back(name);
    for (absl::string_view word : absl::StrSplit(unit, absl::ByAnyChar(" \n"))) {
      if (absl::StrContains(word, "192.168.0.116:")) on_rendezvous_ip.emplace_back(word);
    }
  }
  EXPECT_THAT(on_rendezvous_ip,
              ::testing::UnorderedElementsAre(
                  "--grpc-listen=192.168.0.116:9090", "--orchestrator-address=192.168.0.116:9090",
                  "--http-listen=192.168.0.116:8080", "--server=http://192.168.0.116:8080"));
  EXPECT_THAT(units["assisted-postgres.service"], HasSubstr("-c listen_addresses= -k "));
  std::map<std::string, std::string> files = Files(*ignition_);
  EXPECT_EQ(files["/etc/assisted/credentials/url.key"].size(), 44u);
  EXPECT_EQ(files["/etc/assisted/credentials/secrets.key"].size(), 44u);
}

// Runs a script of the ISO's own Ignition with `env`, on a fake host under `root`.
process::CommandResult RunScript(const std::string& script, const std::string& root,
                                 std::map<std::string, std::string> env) {
  const std::string path = absl::StrCat(root, "/script.sh");
  Write(path, script);
  process::LocalProcessRunner runner;
  absl::StatusOr<process::CommandResult> result =
      runner.Run({.argv = {"bash", path}, .env = std::move(env)});
  EXPECT_THAT(result, IsOk());
  return result.value_or(process::CommandResult{});
}

// A fake host: /sys/class/net/<nic>/address and an `ip` printing one address per NIC.
std::string FakeHost(const std::string& name,
                     const std::vector<std::tuple<std::string, std::string, std::string>>& nics) {
  const std::string root = absl::StrCat(TestTmpDir(), "/host-", name);
  std::string ip = "#!/bin/bash\n";
  for (const auto& [nic, mac, address] : nics) {
    Write(absl::StrCat(root, "/sys/class/net/", nic, "/address"), mac + "\n");
    absl::StrAppend(&ip, "echo '2: ", nic, "    inet ", address, " brd 192.168.1.255 scope global ",
                    nic, "'\n");
  }
  Write(absl::StrCat(root, "/ip"), ip);
  std::filesystem::permissions(absl::StrCat(root, "/ip"), std::filesystem::perms::owner_all);
  return root;
}

TEST_F(CreateImageFromSeed002, NodeZeroScriptMarksOnlyTheHostHoldingRendezvousIp) {
  std::map<std::string, std::string> files = Files(*ignition_);
  Write(absl::StrCat(TestTmpDir(), "/rendezvous-host.env"), files[kRendezvousEnvPath]);
  for (const auto& [name, address, node_zero] :
       {std::make_tuple("vm1", "192.168.0.116/23", true),
        std::make_tuple("vm2", "192.168.0.117/23", false)}) {
    const std::string root = FakeHost(name, {{"enp2s0", "52:54:00:e7:05:72", address}});
    const process::CommandResult result =
        RunScript(files["/usr/local/bin/assisted-node-zero.sh"], root,
                  {{"RENDEZVOUS_ENV", absl::StrCat(TestTmpDir(), "/rendezvous-host.env")},
                   {"NODE_ZERO_MARKER", absl::StrCat(root, "/node0")},
                   {"NODE_ZERO_WAIT_SECONDS", "1"},
                   {"IP_COMMAND", absl::StrCat(root, "/ip")},
                   {"SYS_CLASS_NET", absl::StrCat(root, "/sys/class/net")}});
    ASSERT_TRUE(result.ok()) << result.stderr_data;
    EXPECT_EQ(std::filesystem::exists(absl::StrCat(root, "/node0")), node_zero) << name;
    if (node_zero) {
      EXPECT_EQ(*ReadFile(absl::StrCat(root, "/node0"), "marker"),
                "BOOTSTRAP_HOST_MAC=52:54:00:e7:05:72\n");
    } else {
      EXPECT_THAT(result.stdout_data, HasSubstr("node 0 is 192.168.0.116"));
    }
  }
}

TEST_F(CreateImageFromSeed002, SetHostnameScriptNamesTheHostByItsMac) {
  std::map<std::string, std::string> files = Files(*ignition_);
  const std::string root = FakeHost("named", {{"eno1", "52:54:00:00:00:99", "10.0.0.9/24"},
                                              {"enp2s0", "52:54:00:E8:B9:18", "192.168.0.118/23"}});
  for (const auto& [path, contents] : files) {
    if (absl::StartsWith(path, "/etc/assisted/hostnames/")) {
      Write(absl::StrCat(root, path), contents);
    }
  }
  const process::CommandResult result =
      RunScript(files["/usr/local/bin/assisted-set-hostname.sh"], root,
                {{"HOSTNAMES_DIR", absl::StrCat(root, "/etc/assisted/hostnames")},
                 {"SYS_CLASS_NET", absl::StrCat(root, "/sys/class/net")},
                 {"HOSTNAME_FILE", absl::StrCat(root, "/hostname")}});
  ASSERT_TRUE(result.ok()) << result.stderr_data;
  EXPECT_EQ(*ReadFile(absl::StrCat(root, "/hostname"), "hostname"), "asus3-vm3\n");
}

// On node 0's installed OS every carried unit but the image service runs (carry-over), so what
// a unit needs must be carried too, and each service counts as started once it serves: before,
// the gateway there waited only for the absent image service, started with PostgreSQL and
// recovered by restarting.
TEST_F(CreateImageFromSeed002, NodeZerosUnitsNeedOnlyWhatIsCarriedAndStartOnceServing) {
  std::map<std::string, std::string> units;
  for (const json& unit : (*ignition_)["systemd"]["units"]) {
    units[unit["name"].get<std::string>()] = unit.value("contents", "");
  }
  std::map<std::string, std::string> files = Files(*ignition_);
  const std::vector<std::string> carried = CarriedUnits(files[kCarryOverScript]);
  EXPECT_THAT(carried, ::testing::UnorderedElementsAre(
                           "assisted-postgres.service", "assisted-inventory.service",
                           "assisted-orchestrator.service", "assisted-gateway.service",
                           "assisted-node-zero-register.service"));
  for (const std::string& name : carried) {
    for (const std::string& needed : UnitList(units[name], "Wants")) {
      // assisted-node-zero.service marks node 0 on the live ISO; the marker itself is carried.
      if (needed == kNodeZeroUnitName) continue;
      EXPECT_THAT(carried, ::testing::Contains(needed)) << name << " needs " << needed;
    }
  }
  EXPECT_THAT(UnitList(units["assisted-inventory.service"], "Wants"),
              ::testing::ElementsAre("assisted-postgres.service"));
  EXPECT_THAT(
      UnitList(units["assisted-gateway.service"], "Wants"),
      ::testing::ElementsAre("assisted-inventory.service", "assisted-orchestrator.service"));
  EXPECT_THAT(UnitList(units["assisted-node-zero-register.service"], "Wants"),
              ::testing::ElementsAre("assisted-gateway.service"));
  for (const auto& [name, port] :
       {std::pair{"assisted-inventory.service", 9091},
        std::pair{"assisted-orchestrator.service", 9094}, std::pair{"assisted-image.service", 9092},
        std::pair{"assisted-gateway.service", 9093}}) {
    EXPECT_THAT(units[name],
                HasSubstr(absl::StrCat("ExecStartPost=/bin/sh -c 'until /usr/local/bin/aictl "
                                       "health 127.0.0.1:",
                                       port, " >/dev/null 2>&1; do sleep 1; done'\n")))
        << name;
  }
}

// A fake host for the carry-over script: node 0's files under `root` (the ISO's Ignition files
// and units, the carried binaries and folders), and `blkid`, `lsblk`, `mount` and `umount` in
// root/bin acting on disks whose partitions are folders under root/devices/<name> (`mount`
// makes the mount point a link to one).
void LayDownNodeZero(const std::string& root, const json& ignition, const std::string& script) {
  for (const auto& [path, contents] : Files(ignition)) Write(root + path, contents);
  for (const json& unit : ignition["systemd"]["units"]) {
    const std::string dir = root + "/etc/systemd/system/";
    if (unit.contains("contents")) {
      Write(dir + unit["name"].get<std::string>(), unit["contents"].get<std::string>());
    }
    for (const json& dropin : unit.value("dropins", json::array())) {
      Write(absl::StrCat(dir, unit["name"].get<std::string>(), ".d/",
                         dropin["name"].get<std::string>()),
            dropin["contents"].get<std::string>());
    }
  }
  Write(root + "/etc/systemd/system/assisted-orchestrator.service.d/lab.conf", "[Service]\n");
  // What the live image holds: whatever cp --parents copies that the Ignition did not write.
  const size_t from = script.find("cp -a --parents ") + 16;
  const std::string paths = script.substr(from, script.find(" \"$work/root\"", from) - from);
  for (absl::string_view path : absl::StrSplit(paths, ' ', absl::SkipEmpty())) {
    const std::string full = absl::StrCat(root, "/", path);
    if (std::filesystem::exists(full)) continue;
    if (absl::StartsWith(path, "usr/local/bin/") || absl::EndsWith(path, ".env")) {
      Write(full, absl::StrCat("content of /", path, "\n"));
    } else {
      Write(full + "/held", absl::StrCat("a file in /", path, "\n"));
    }
  }
  Write(root + "/usr/local/bin/assisted-image", "the image service\n");
  Write(root + "/var/lib/assisted/images/cache", "the image service's cache\n");
  const std::map<std::string, std::string> commands = {
      {"mount",
       "dir=${@: -1}; dev=${@: -2:1}\n"
       "rmdir \"$dir\" && ln -s \"$FAKE/devices/$(basename \"$dev\")\" \"$dir\"\n"},
      {"umount", "rm \"$1\" && mkdir \"$1\"\n"},
      {"blkid", "cat \"$FAKE/boot-partitions\"\n"},
      {"lsblk",
       "case \"$*\" in\n"
       "  \"-no PKNAME \"*) basename \"${@: -1}\" | tr -d 0-9 ;;\n"
       "  \"-rno PATH,PARTLABEL \"*) d=${@: -1}; echo \"$d\"; echo \"${d}2 boot\"; "
       "echo \"${d}4 root\" ;;\n"
       "esac\n"}};
  for (const auto& [name, body] : commands) {
    const std::string path = absl::StrCat(root, "/bin/", name);
    Write(path, "#!/bin/bash\n" + body);
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  }
}

TEST_F(CreateImageFromSeed002, CarryOverCopiesNodeZerosServicesOntoItsInstalledDiskOnly) {
  std::map<std::string, std::string> files = Files(*ignition_);
  const std::string script = files[kCarryOverScript];
  const std::string root = absl::StrCat(TestTmpDir(), "/carry-over-host");
  LayDownNodeZero(root, *ignition_, script);
  // Two disks with an installed boot partition: another cluster's, and this one's.
  Write(root + "/devices/vda2/assisted/install.json", R"({"cluster_id":"another"})");
  Write(root + "/devices/vda4/etc/systemd/system/.keep", "");
  Write(root + "/devices/vdb2/assisted/install.json",
        json{{"cluster_id", created_->cluster_id}}.dump());
  Write(root + "/devices/vdb4/etc/systemd/system/.keep", "");
  const std::map<std::string, std::string> env = {
      {"PATH", absl::StrCat(root, "/bin:/usr/bin:/bin:/usr/sbin:/sbin")},
      {"FAKE", root},
      {"HOST_ROOT", root},
      {"RENDEZVOUS_ENV", root + kRendezvousEnvPath},
      {"CARRY_OVER_WORK_DIR", root + "/run/carry-over"}};

  // Before the install nothing is on a disk of this cluster: nothing is copied.
  Write(root + "/boot-partitions", "/dev/vda2\n");
  process::CommandResult result = RunScript(script, root, env);
  ASSERT_TRUE(result.ok()) << result.stderr_data;
  EXPECT_THAT(result.stdout_data, HasSubstr("nothing to carry"));
  EXPECT_FALSE(std::filesystem::exists(root + "/devices/vda4/usr"));

  Write(root + "/boot-partitions", "/dev/vda2\n/dev/vdb2\n");
  result = RunScript(script, root, env);
  ASSERT_TRUE(result.ok()) << result.stdout_data << result.stderr_data;
  EXPECT_THAT(result.stdout_data, HasSubstr("carried onto /dev/vdb4"));
  const std::string installed = root + "/devices/vdb4";
  EXPECT_FALSE(std::filesystem::exists(root + "/devices/vda4/usr")) << "another cluster's disk";
  // The services, PostgreSQL and its data, node 0's settings and credentials.
  for (const std::string path :
       {"/usr/local/bin/aictl", "/usr/local/bin/assisted-gateway",
        "/usr/local/bin/assisted-inventory", "/usr/local/bin/assisted-orchestrator",
        "/usr/local/bin/assisted-postgres-init.sh", "/usr/lib/postgresql/15/held",
        "/usr/share/postgresql/15/held", "/usr/share/assisted/node-zero-images.env",
        "/var/lib/assisted/postgres/held", "/root/.docker/config.json"}) {
    EXPECT_EQ(*ReadFile(installed + path, path), *ReadFile(root + path, path)) << path;
  }
  for (const auto& [path, contents] : files) {
    if (!absl::StartsWith(path, "/etc/assisted/")) continue;
    EXPECT_EQ(*ReadFile(installed + path, path), contents) << path;
  }
  // Not the image service: its base ISO and cache do not fit the installed root.
  EXPECT_FALSE(std::filesystem::exists(installed + "/usr/local/bin/assisted-image"));
  EXPECT_FALSE(std::filesystem::exists(installed + "/var/lib/assisted/images"));
  EXPECT_FALSE(std::filesystem::exists(installed + "/etc/systemd/system/assisted-image.service"));
  // The units, their drop-ins, enabled.
  for (const std::string& unit : CarriedUnits(script)) {
    const std::string path = "/etc/systemd/system/" + unit;
    EXPECT_EQ(*ReadFile(installed + path, unit), *ReadFile(root + path, unit));
    EXPECT_EQ(std::filesystem::read_symlink(installed +
                                            "/etc/systemd/system/multi-user.target.wants/" + unit),
              path);
  }
  EXPECT_TRUE(std::filesystem::exists(
      installed + "/etc/systemd/system/assisted-orchestrator.service.d/lab.conf"));
  // Both mount points are released.
  EXPECT_TRUE(std::filesystem::is_directory(
      std::filesystem::symlink_status(root + "/run/carry-over/root")));
  EXPECT_TRUE(std::filesystem::is_directory(
      std::filesystem::symlink_status(root + "/run/carry-over/boot")));
}

// Seed 002 is a compact cluster: three machines boot the same ISO. Each, seen on a fake host with
// only its own MAC (under a name the kernel chose), gets its own static address from the ISO's
// pre-network script, its own host name, and only the one holding rendezvousIP becomes node 0;
// node 0 waits for all three, with the roles agent-config gives (none: masters first).
TEST_F(CreateImageFromSeed002, EveryCompactHostGetsItsOwnNetworkAndNameAndOnlyOneIsNodeZero) {
  std::map<std::string, std::string> files = Files(*ignition_);
  Write(absl::StrCat(TestTmpDir(), "/compact-rendezvous.env"), files[kRendezvousEnvPath]);
  const struct {
    std::string mac, address, hostname;
  } kHosts[] = {{"52:54:00:e7:05:72", "192.168.0.116", "asus3-vm1"},
                {"52:54:00:95:fd:f3", "192.168.0.117", "asus3-vm2"},
                {"52:54:00:e8:b9:18", "192.168.0.118", "asus3-vm3"}};
  int node_zeros = 0;
  for (const auto& host : kHosts) {
    const std::string root = FakeHost(absl::StrCat("compact-", host.hostname),
                                      {{"ens3", host.mac, host.address + "/23"}});
    for (const auto& [path, contents] : files) {
      if (absl::StartsWith(path, "/etc/assisted/")) Write(root + path, contents);
    }
    Write(root + "/sys/class/net/ens3/device", "");
    // NetworkManager's profiles, before NetworkManager starts.
    process::CommandResult result =
        RunScript(files["/usr/local/bin/pre-network-manager-config.sh"], root,
                  {{"NETWORK_CONFIG_DIR", root + "/etc/assisted/network"},
                   {"SYS_CLASS_NET", root + "/sys/class/net"},
                   {"TARGET_DIR", root + "/target"},
                   {"SETTLE_SECONDS", "0"}});
    ASSERT_TRUE(result.ok()) << host.hostname << ": " << result.stderr_data;
    absl::StatusOr<std::string> profile = ReadFile(root + "/target/ens3.nmconnection", "profile");
    ASSERT_THAT(profile, IsOk()) << host.hostname;
    absl::StatusOr<nmstate::KeyfileValues> normalised = nmstate::NmcliNormalise(*profile);
    ASSERT_THAT(normalised, IsOk()) << *profile;
    EXPECT_EQ(normalised->at("connection.interface-name"), "ens3") << host.hostname;
    EXPECT_THAT(normalised->at("ipv4.address1"), HasSubstr(host.address + "/23")) << host.hostname;
    // Its name.
    result = RunScript(files["/usr/local/bin/assisted-set-hostname.sh"], root,
                       {{"HOSTNAMES_DIR", root + "/etc/assisted/hostnames"},
                        {"SYS_CLASS_NET", root + "/sys/class/net"},
                        {"HOSTNAME_FILE", root + "/hostname"}});
    ASSERT_TRUE(result.ok()) << result.stderr_data;
    EXPECT_EQ(*ReadFile(root + "/hostname", "hostname"), host.hostname + "\n");
    // Node 0 or not.
    result = RunScript(files["/usr/local/bin/assisted-node-zero.sh"], root,
                       {{"RENDEZVOUS_ENV", absl::StrCat(TestTmpDir(), "/compact-rendezvous.env")},
                        {"NODE_ZERO_MARKER", root + "/node0"},
                        {"NODE_ZERO_WAIT_SECONDS", "1"},
                        {"IP_COMMAND", root + "/ip"},
                        {"SYS_CLASS_NET", root + "/sys/class/net"}});
    ASSERT_TRUE(result.ok()) << result.stderr_data;
    if (std::filesystem::exists(root + "/node0")) ++node_zeros;
    EXPECT_EQ(std::filesystem::exists(root + "/node0"), host.address == "192.168.0.116");
  }
  EXPECT_EQ(node_zeros, 1);
  const json cluster = json::parse(files[kClusterJsonPath]);
  EXPECT_EQ(cluster["expected_hosts"], 3);
  EXPECT_EQ(cluster["cluster"]["control_plane_count"], 3);
  EXPECT_EQ(cluster["cluster"]["high_availability_mode"], "Full");
  ASSERT_EQ(cluster["hosts"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(cluster["hosts"][i]["hostname"], kHosts[i].hostname);
    EXPECT_EQ(cluster["hosts"][i]["macs"], json::array({kHosts[i].mac}));
  }
}

TEST(CreateImage, NamesInstallConfigsTrustBundleWhenItIsNotACertificate) {
  const std::string dir = SeedDir(
      "bad-bundle", {{"MIIGKDCCBBCgAwIBAgIUVu+F6PrAXwxVfPs4D0KQA3+50y4wDQYJKoZIhvcNAQEL",
                      "MIIGKDCCBBCgAwIBAgIUVu+F6PrAXwxVfPs4D0KQA3+50y4wDQYJKoZIhvcNAQEM"},
                     {"BQAwgYQxCzAJBgNVBAYTAlVTMRYwFAYDVQQIDA1Ob3J0aENhcm9saW5hMRAwDgYD", "AAAA"}});
  SeededRandom random(1);
  EXPECT_THAT(CreateImage(dir, BaseIso(), absl::Now(), random),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("install-config.yaml: additionalTrustBundle: certificate 1 is "
                                 "not a valid PEM X.509 certificate")));
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir, "/agent.x86_64.iso")));
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir, "/auth")));
}

TEST(CreateImage, NamesTheMirrorSourceTheDiscoveryBuilderRefuses) {
  const std::string dir =
      SeedDir("bad-source", {{"source: registry.svc.ci.openshift.org/ocp/release",
                              "source: https://registry.svc.ci.openshift.org/ocp"}});
  SeededRandom random(1);
  EXPECT_THAT(CreateImage(dir, BaseIso(), absl::Now(), random),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("install-config.yaml: imageContentSources[1].source: "
                                 "\"https://registry.svc.ci.openshift.org/ocp\" must not have a "
                                 "scheme")));
}

TEST(CreateImage, RefusesABaseIsoWhoseEmbedAreaIsTooSmall) {
  const std::string small = absl::StrCat(TestTmpDir(), "/small.iso");
  process::LocalProcessRunner runner;
  ASSERT_THAT(iso::BuildTestImage(runner, {.ignition_area_bytes = 4096},
                                  absl::StrCat(TestTmpDir(), "/small-tree"), small),
              IsOk());
  SeededRandom random(1);
  EXPECT_THAT(CreateImage(SeedDir("small"), small, absl::Now(), random),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("--base-iso")));
}

TEST(CreateImage, RefusesABaseThatIsNotAnIso) {
  const std::string dir = SeedDir("not-iso");
  Write(absl::StrCat(dir, "/not.iso"), "hello");
  SeededRandom random(1);
  EXPECT_THAT(CreateImage(dir, absl::StrCat(dir, "/not.iso"), absl::Now(), random),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--base-iso")));
}

TEST(CreateImage, LeavesNoIsoWhenItCannotWriteTheRest) {
  const std::string dir = SeedDir("auth-blocked");
  Write(absl::StrCat(dir, "/auth"), "a file where the auth folder should be");
  SeededRandom random(1);
  EXPECT_THAT(CreateImage(dir, BaseIso(), absl::Now(), random),
              StatusIs(absl::StatusCode::kInternal));
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir, "/agent.x86_64.iso")));
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir, "/agent.x86_64.iso.tmp")));
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir, "/.assisted-agent-state.json")));
}

TEST(CreateImage, NamesAMissingInputFile) {
  const std::string dir = absl::StrCat(TestTmpDir(), "/empty");
  std::filesystem::create_directories(dir);
  SeededRandom random(1);
  EXPECT_THAT(
      CreateImage(dir, BaseIso(), absl::Now(), random),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("install-config.yaml: cannot read")));
}

TEST(CreateClusterManifests, WritesSeed002AsZtpResourcesInTheClustersNamespace) {
  const std::string dir = SeedDir("manifests");
  absl::StatusOr<std::vector<std::string>> written = CreateClusterManifests(dir);
  ASSERT_THAT(written, IsOk());
  EXPECT_EQ(written->size(), 5u);
  const std::string manifests = absl::StrCat(dir, "/cluster-manifests/");
  EXPECT_EQ(Mode(absl::StrCat(manifests, "pull-secret.yaml")), 0600);
  const YAML::Node install = YAML::LoadFile(absl::StrCat(manifests, "agent-cluster-install.yaml"));
  EXPECT_EQ(install["kind"].as<std::string>(), "AgentClusterInstall");
  EXPECT_EQ(install["metadata"]["namespace"].as<std::string>(), "kni22");
  EXPECT_EQ(install["spec"]["provisionRequirements"]["controlPlaneAgents"].as<int>(), 3);
  EXPECT_EQ(install["spec"]["apiVIPs"][0].as<std::string>(), "192.168.0.125");
  EXPECT_EQ(install["spec"]["networking"]["machineNetwork"][0]["cidr"].as<std::string>(),
            "192.168.0.0/24");
  const YAML::Node deployment = YAML::LoadFile(absl::StrCat(manifests, "cluster-deployment.yaml"));
  EXPECT_EQ(deployment["spec"]["baseDomain"].as<std::string>(), "schmaustech.com");
  EXPECT_EQ(deployment["spec"]["pullSecretRef"]["name"].as<std::string>(), "kni22-pull-secret");
  const std::vector<YAML::Node> configs =
      YAML::LoadAllFromFile(absl::StrCat(manifests, "nmstateconfig.yaml"));
  ASSERT_EQ(configs.size(), 3u);
  EXPECT_EQ(configs[1]["metadata"]["name"].as<std::string>(), "asus3-vm2");
  EXPECT_EQ(configs[1]["spec"]["interfaces"][0]["macAddress"].as<std::string>(),
            "52:54:00:95:fd:f3");
  EXPECT_EQ(
      configs[1]["spec"]["config"]["interfaces"][0]["ipv4"]["address"][0]["ip"].as<std::string>(),
      "192.168.0.117");
  const YAML::Node secret = YAML::LoadFile(absl::StrCat(manifests, "pull-secret.yaml"));
  EXPECT_THAT(secret["stringData"][".dockerconfigjson"].as<std::string>(),
              HasSubstr("provisioning.schmaustech.com:5000"));
}

TEST(CreateClusterManifests, WritesNothingForInputsWithProblems) {
  const std::string dir =
      SeedDir("manifests-bad", {{"baseDomain: schmaustech.com", "baseDomain: a..b"}});
  EXPECT_THAT(CreateClusterManifests(dir), StatusIs(absl::StatusCode::kInvalidArgument,
                                                    HasSubstr("install-config.yaml: baseDomain")));
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir, "/cluster-manifests")));
}

// DIR with cluster-manifests/ and no install-config.yaml: the ZTP fixture (testdata/ztp_compact_*).
std::string ZtpDir(const std::string& name) {
  const std::string dir = absl::StrCat(TestTmpDir(), "/", name);
  for (const char* file : {"agent-cluster-install.yaml", "cluster-deployment.yaml", "infraenv.yaml",
                           "nmstateconfig.yaml", "pull-secret.yaml"}) {
    Write(absl::StrCat(dir, "/cluster-manifests/", file),
          Testdata(absl::StrCat("ztp_compact_", file)));
  }
  return dir;
}

TEST(CreateImage, BuildsTheIsoFromZtpManifestsWhenThereIsNoInstallConfig) {
  const std::string dir = ZtpDir("ztp");
  SeededRandom random(1);
  absl::StatusOr<CreatedImage> created = CreateImage(dir, BaseIso(), absl::Now(), random);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->rendezvous_ip, "192.168.122.10");
  EXPECT_EQ(created->expected_hosts, 3);
  // Every host's network, from its NMStateConfig, is in the Ignition.
  const std::map<std::string, std::string> files = Files(EmbeddedIgnition(created->iso_path));
  const std::string cluster_json = files.at(kClusterJsonPath);
  EXPECT_THAT(cluster_json, HasSubstr("02:00:c0:a8:7a:0c"));
}

TEST(CreateImage, NamesTheManifestFileOfAProblemInZtpInput) {
  const std::string dir = ZtpDir("ztp-bad");
  Write(absl::StrCat(dir, "/cluster-manifests/cluster-image-set.yaml"),
        "apiVersion: hive.openshift.io/v1\nkind: ClusterImageSet\n");
  SeededRandom random(1);
  EXPECT_THAT(CreateImage(dir, BaseIso(), absl::Now(), random),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cluster-manifests/cluster-image-set.yaml: is not supported")));
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir, "/agent.x86_64.iso")));
}

TEST(CreateImage, ReadsInstallConfigWhenBothItAndZtpManifestsAreThere) {
  // What `agent create cluster-manifests` leaves: the two files stay the input.
  const std::string dir = SeedDir("both");
  ASSERT_THAT(CreateClusterManifests(dir), IsOk());
  absl::StatusOr<ClusterDefinition> definition = ReadClusterDefinition(dir);
  ASSERT_THAT(definition, IsOk());
  EXPECT_EQ(definition->source.file, "install-config.yaml");
  EXPECT_FALSE(definition->install.mirrors.empty());
}

TEST(CreatePxeFiles, WritesKernelInitrdRootfsAndAnIpxeScriptBootingThemFromTheBaseUrl) {
  const std::string dir = SeedDir("pxe");
  SeededRandom random(1);
  absl::StatusOr<CreatedPxeFiles> created =
      CreatePxeFiles(dir, BaseIso(), "http://192.168.0.10:8000/agent", absl::Now(), random);
  ASSERT_THAT(created, IsOk());
  const std::string artifacts = absl::StrCat(dir, "/boot-artifacts/");
  EXPECT_EQ(created->paths,
            (std::vector<std::string>{absl::StrCat(artifacts, "agent.x86_64-vmlinuz"),
                                      absl::StrCat(artifacts, "agent.x86_64-initrd.img"),
                                      absl::StrCat(artifacts, "agent.x86_64-rootfs.img"),
                                      absl::StrCat(artifacts, "agent.x86_64.ipxe")}));
  for (const std::string& path : created->paths) {
    EXPECT_GT(std::filesystem::file_size(path), 0u) << path;
  }
  EXPECT_EQ(*ReadFile(created->paths[0], "kernel"), "test kernel\n");
  EXPECT_EQ(std::filesystem::file_size(created->paths[2]), iso::TestImageOptions{}.rootfs_bytes);
  const absl::StatusOr<std::string> script = ReadFile(created->paths[3], "script");
  ASSERT_THAT(script, IsOk());
  EXPECT_THAT(*script, HasSubstr("initrd --name initrd "
                                 "http://192.168.0.10:8000/agent/agent.x86_64-initrd.img\n"));
  EXPECT_THAT(*script, HasSubstr("kernel http://192.168.0.10:8000/agent/agent.x86_64-vmlinuz "
                                 "initrd=initrd coreos.live.rootfs_url="
                                 "http://192.168.0.10:8000/agent/agent.x86_64-rootfs.img"));
  // auth/ and the state file, as for the ISO; no ISO.
  EXPECT_EQ(Mode(absl::StrCat(dir, "/auth/kubeconfig")), 0600);
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir, "/agent.x86_64.iso")));
  absl::StatusOr<AgentState> state = ReadState(dir);
  ASSERT_THAT(state, IsOk());
  EXPECT_EQ(state->cluster_id, created->image.cluster_id);
}

TEST(CreatePxeFiles, TheInitrdHoldsTheSameIgnitionAsTheIso) {
  const std::string dir = SeedDir("pxe-ignition");
  SeededRandom random(1);
  absl::StatusOr<CreatedPxeFiles> created =
      CreatePxeFiles(dir, BaseIso(), "https://boot.example.com/a/", absl::Now(), random);
  ASSERT_THAT(created, IsOk());
  // The base initrd, padded to 4 bytes, then the Ignition archive: gzip'd cpio of config.ign.
  const std::string initrd = *ReadFile(created->paths[1], "initrd");
  const std::string base_initrd = iso::TestInitrd();
  ASSERT_GT(initrd.size(), base_initrd.size());
  EXPECT_EQ(initrd.substr(0, base_initrd.size()), base_initrd);
  const size_t archive_at = (base_initrd.size() + 3) / 4 * 4;
  const std::string archive_path = absl::StrCat(TestTmpDir(), "/pxe-ignition.cpio.gz");
  Write(archive_path, initrd.substr(archive_at));
  const process::CommandResult listed =
      RunTool({"sh", "-c", absl::StrCat("zcat ", archive_path, " | cpio -t")});
  EXPECT_THAT(listed.stdout_data, HasSubstr("config.ign"));
}

TEST(CreatePxeFiles, RefusesABaseUrlThatIsNotAbsoluteHttp) {
  const std::string dir = SeedDir("pxe-bad-url");
  SeededRandom random(1);
  for (const char* url : {"", "boot-artifacts/", "ftp://host/a", "http://host/a b"}) {
    EXPECT_THAT(
        CreatePxeFiles(dir, BaseIso(), url, absl::Now(), random),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--boot-artifacts-base-url")))
        << url;
  }
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir, "/boot-artifacts")));
}

}  // namespace
}  // namespace assisted::cli::agent
