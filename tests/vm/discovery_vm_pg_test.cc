// A real (virtual) machine boots the discovery ISO the image service serves and registers:
// real PostgreSQL, inventory, orchestrator, image service and gateway processes; an SNO cluster
// and an infra-env created through the REST API (aictl, in process); the ISO downloaded from the
// image service, built from ./dev os-images' live ISO; one QEMU machine (tests/vm/vm_fleet.h)
// booted from it, whose agent — started by the discovery Ignition the live initramfs took from
// the ISO's embed area — registers with its virtual hardware: the host shows up with an
// inventory naming its NIC's fixed MAC, its SMBIOS serial, its virtio disk and its vCPUs, its
// checks run for real, and it becomes known (ready to install).
//
// Needs ASSISTED_TEST_OS_IMAGES (the folder ./dev os-images prints; ./dev test sets it).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/commands.h"
#include "tests/harness/image_service.h"
#include "tests/harness/postgres_test.h"
#include "tests/harness/probes.h"
#include "tests/harness/service_launcher.h"
#include "tests/vm/vm_fleet.h"

namespace assisted::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kJwtSecret[] = "vm-discovery-test-jwt-secret-0123456789abcdef";
constexpr char kUrlKey[] = "vm-discovery-test-url-signing-key-0123456789abcdef";
constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}})";
constexpr char kSshKey[] =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl vm";
// Where guests reach the orchestrator: user-mode networking forwards it to the host's loopback.
constexpr char kOrchestratorGuestAddress[] = "10.0.2.100";
constexpr char kMac[] = "52:54:00:a5:00:01";
constexpr char kSerial[] = "ASSISTED-VM-0001";
// What a single-node cluster requires (services/orchestrator/core/data/hw_requirements.json):
// 8 cores, 16 GiB, a 100 GB disk. QEMU commits guest memory only as it is touched and the disk
// is sparse.
constexpr int kCpus = 8;
constexpr int kMemoryMib = 17 * 1024;
constexpr uint64_t kDiskBytes = uint64_t{120} << 30;

std::string WriteFile(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
  std::string Trimmed() const { return std::string(absl::StripAsciiWhitespace(out)); }
};

class DiscoveryVmTest : public PostgresTest {
 protected:
  void SetUp() override {
    const char* images = std::getenv("ASSISTED_TEST_OS_IMAGES");
    if (images == nullptr || *images == '\0') {
      GTEST_SKIP() << "ASSISTED_TEST_OS_IMAGES is not set: build the images with ./dev os-images "
                      "(./dev test does both)";
    }
    live_iso_ = absl::StrCat(images, "/live.iso");
    ASSERT_TRUE(std::filesystem::exists(live_iso_))
        << live_iso_ << " is missing: run ./dev os-images";
    PostgresTest::SetUp();
    const std::string url_key = WriteFile("url.key", kUrlKey);
    auto inventory = LaunchedService::Launch(
        {.binary = "services/inventory/assisted-inventory", .args = {"--postgres-dsn=" + dsn()}});
    ASSERT_THAT(inventory, IsOk());
    inventory_ = *std::move(inventory);
    // The orchestrator listens on loopback only; guests reach it through the forward.
    auto orchestrator_port = FreePort();
    ASSERT_THAT(orchestrator_port, IsOk());
    auto orchestrator = LaunchedService::Launch(
        {.binary = "services/orchestrator/assisted-orchestrator",
         .args = {"--inventory-address=" + inventory_->grpc_target(),
                  "--url-signing-key-file=" + url_key, "--monitor-interval=500ms",
                  absl::StrCat("--os-image-url=file://", images, "/disk.raw")},
         .grpc_port = *orchestrator_port});
    ASSERT_THAT(orchestrator, IsOk());
    orchestrator_ = *std::move(orchestrator);

    auto image =
        LaunchImageService({.dir = ::testing::TempDir() + "/vm-image",
                            .inventory_address = inventory_->grpc_target(),
                            .url_signing_key_file = url_key,
                            .orchestrator_address = absl::StrCat(kOrchestratorGuestAddress, ":",
                                                                 orchestrator_->grpc_port()),
                            .base_iso = live_iso_});
    ASSERT_THAT(image, IsOk());
    image_ = std::move(image->service);

    auto http_port = FreePort();
    ASSERT_THAT(http_port, IsOk());
    auto gateway =
        LaunchedService::Launch({.binary = "services/gateway/assisted-gateway",
                                 .args = {absl::StrCat("--http-listen=127.0.0.1:", *http_port),
                                          "--inventory-address=" + inventory_->grpc_target(),
                                          "--orchestrator-address=" + orchestrator_->grpc_target(),
                                          "--image-address=" + image_->grpc_target(),
                                          "--jwt-secret-file=" + WriteFile("jwt.key", kJwtSecret),
                                          "--url-signing-key-file=" + url_key}});
    ASSERT_THAT(gateway, IsOk());
    gateway_ = *std::move(gateway);
    server_ = absl::StrCat("http://127.0.0.1:", *http_port);
    Outcome token = Aictl({"token", "issue", "--secret-file=" + ::testing::TempDir() + "/jwt.key",
                           "--user=vm", "--org=vm"},
                          /*with_token=*/false);
    ASSERT_EQ(token.code, 0) << token.err;
    token_ = token.Trimmed();

    auto fleet =
        VmFleet::Create({.dir = ::testing::TempDir() + "/vms",
                         .forwards = {{kOrchestratorGuestAddress, orchestrator_->grpc_port(),
                                       orchestrator_->grpc_port()}}});
    ASSERT_THAT(fleet, IsOk());
    fleet_ = *std::move(fleet);
  }

  void TearDown() override {
    if (HasFailure() && fleet_ != nullptr) {
      for (int vm = 0; vm < machines_; ++vm) {
        std::cerr << "--- console of " << fleet_->spec(vm).name << " (" << fleet_->ConsolePath(vm)
                  << ")\n"
                  << fleet_->ConsoleTail(vm, 30000) << "\n";
      }
      if (orchestrator_ != nullptr) std::cerr << "--- orchestrator log\n" << orchestrator_->Log();
    }
    fleet_.reset();
  }

  Outcome Aictl(std::vector<std::string> args, bool with_token = true) {
    config::Environment env = {{"AICTL_SERVER", server_}};
    if (with_token) env["AICTL_TOKEN"] = token_;
    std::ostringstream out, err;
    Outcome outcome;
    outcome.code = cli::Run(args, env, {out, err});
    outcome.out = out.str();
    outcome.err = err.str();
    return outcome;
  }

  std::string live_iso_;
  std::unique_ptr<LaunchedService> inventory_, orchestrator_, image_, gateway_;
  std::unique_ptr<VmFleet> fleet_;
  int machines_ = 0;
  std::string server_, token_;
};

double Seconds(absl::Duration d) { return absl::ToDoubleSeconds(d); }

std::string StringField(const json& object, const std::string& name) {
  if (!object.is_object() || !object.contains(name) || !object[name].is_string()) return "";
  return object[name].get<std::string>();
}

// Whether the validations of the host's own hardware (inventory, CPU, memory, disks for its
// role) passed: what the machine's real inventory decides. The network checks are not among
// them.
bool HardwareValidated(const std::string& validations_info) {
  const json info = json::parse(validations_info, nullptr, false);
  if (!info.is_object()) return false;
  int passed = 0;
  for (const auto& [category, results] : info.items()) {
    for (const json& v : results) {
      const std::string id = v.value("id", "");
      if (id == "has-inventory" || id == "has-min-cpu-cores" || id == "has-min-memory" ||
          id == "has-min-valid-disks" || id == "has-cpu-cores-for-role" ||
          id == "has-memory-for-role") {
        if (v.value("status", "") != "success") return false;
        ++passed;
      }
    }
  }
  return passed == 6;
}

// Validations still waiting for a result of the host's checks. Those the orchestrator only runs
// while preparing an installation (installation disk speed, container images) and the MTU check,
// which waits for a connectivity check between hosts, are not counted.
std::vector<std::string> PendingChecks(const std::string& validations_info) {
  const json info = json::parse(validations_info, nullptr, false);
  std::vector<std::string> pending;
  if (!info.is_object()) return {"(no validations)"};
  for (const auto& [category, results] : info.items()) {
    for (const json& v : results) {
      const std::string id = v.value("id", "");
      if (v.value("status", "") == "pending" && id != "sufficient-installation-disk-speed" &&
          id != "container-images-available" && id != "mtu-valid") {
        pending.push_back(id);
      }
    }
  }
  return pending;
}

TEST_F(DiscoveryVmTest, VirtualMachineBootsTheDiscoveryIsoAndRegistersItsHardware) {
  const std::string pull_secret = WriteFile("pull-secret.json", kPullSecret);
  const std::string ssh_key = WriteFile("id.pub", kSshKey);
  Outcome cluster =
      Aictl({"clusters", "create", "--name=vm", "--base-domain=example.com",
             "--openshift-version=4.16", "--control-plane-count=1", "--user-managed-networking",
             // The uplink's subnet (QEMU user-mode networking), as a user would pick the host's.
             "--machine-networks=10.0.2.0/24", "--pull-secret-file=" + pull_secret,
             "--ssh-key-file=" + ssh_key});
  ASSERT_EQ(cluster.code, 0) << cluster.err;
  const std::string cluster_id = cluster.Trimmed();
  Outcome infra_env = Aictl({"infra-envs", "create", "--cluster=" + cluster_id,
                             "--pull-secret-file=" + pull_secret, "--ssh-key-file=" + ssh_key});
  ASSERT_EQ(infra_env.code, 0) << infra_env.err;
  const std::string iso = ::testing::TempDir() + "/discovery.iso";
  Outcome download = Aictl({"iso", "download", infra_env.Trimmed(), "--output-file=" + iso});
  ASSERT_EQ(download.code, 0) << download.err;

  auto vm = fleet_->Add({.name = "sno-0",
                         .mac = kMac,
                         .serial = kSerial,
                         .disk_bytes = kDiskBytes,
                         .memory_mib = kMemoryMib,
                         .cpus = kCpus});
  ASSERT_THAT(vm, IsOk());
  machines_ = 1;
  const absl::Time power_on = absl::Now();
  ASSERT_THAT(fleet_->Boot(*vm, {.cdrom = iso}), IsOk());

  // The host appears once its agent registered; its inventory follows with the first step, and
  // its validations once the orchestrator evaluated that inventory and the checks' results.
  json host;
  absl::Duration registered = absl::InfiniteDuration();
  absl::Duration inventoried = absl::InfiniteDuration();
  const absl::Time deadline = power_on + absl::Minutes(10);
  while (absl::Now() < deadline) {
    Outcome hosts = Aictl({"hosts", "list", "--cluster=" + cluster_id, "-o", "json"});
    ASSERT_EQ(hosts.code, 0) << hosts.err;
    const json listed = json::parse(hosts.out, nullptr, /*allow_exceptions=*/false);
    if (listed.is_array() && listed.size() == 1) {
      if (registered == absl::InfiniteDuration()) registered = absl::Now() - power_on;
      host = listed[0];
      if (inventoried == absl::InfiniteDuration() && !StringField(host, "inventory").empty()) {
        inventoried = absl::Now() - power_on;
      }
      const std::string status = StringField(host, "status");
      if (inventoried != absl::InfiniteDuration() &&
          (status == "known" || status == "insufficient") &&
          HardwareValidated(StringField(host, "validations_info")) &&
          PendingChecks(StringField(host, "validations_info")).empty()) {
        break;
      }
    }
    ASSERT_TRUE(fleet_->Running(*vm)) << "the machine powered off before registering";
    ASSERT_THAT(fleet_->ConsoleTail(*vm, 2000), Not(HasSubstr("Entering emergency mode")))
        << "the machine's boot failed";
    // The REST API has no watch: poll it, as aictl wait does.
    absl::SleepFor(absl::Seconds(2));
  }
  const absl::Duration validated = absl::Now() - power_on;
  ASSERT_NE(registered, absl::InfiniteDuration()) << "no host registered within 10 minutes";
  ASSERT_NE(inventoried, absl::InfiniteDuration()) << host.dump();
  // Validated: the host's checks reported (PendingChecks), its own hardware passing, and the
  // host is ready to install. (ntp-synced fails: no NTP server is within reach of a
  // loopback-only uplink; that validation is informative, as upstream.)
  ASSERT_EQ(StringField(host, "status"), "known") << StringField(host, "status_info") << "\n"
                                                  << StringField(host, "validations_info");
  std::cout << "timings: power-on -> registered " << Seconds(registered) << " s, -> inventory "
            << Seconds(inventoried) << " s, -> validated (" << StringField(host, "status") << ") "
            << Seconds(validated) << " s\n"
            << "validations: " << StringField(host, "validations_info") << "\n";

  // The real (virtual) hardware: the NIC's fixed MAC, the SMBIOS serial, the virtio disk, the
  // vCPUs.
  const json inventory = json::parse(StringField(host, "inventory"), nullptr, false);
  ASSERT_TRUE(inventory.is_object()) << StringField(host, "inventory");
  const std::string text = inventory.dump();
  EXPECT_THAT(text, HasSubstr(kMac));
  EXPECT_THAT(text, HasSubstr(kSerial));
  EXPECT_THAT(text, HasSubstr("vda"));
  // Proto JSON writes an int64 as a string.
  const json count = inventory.value("cpu", json::object()).value("count", json());
  EXPECT_TRUE(count == kCpus || count == std::to_string(kCpus)) << inventory["cpu"].dump();
  EXPECT_TRUE(HardwareValidated(StringField(host, "validations_info")))
      << StringField(host, "validations_info");
  EXPECT_THAT(PendingChecks(StringField(host, "validations_info")), ::testing::IsEmpty())
      << StringField(host, "validations_info");
  RecordProperty("power_on_to_registered_seconds", static_cast<int>(Seconds(registered)));
  RecordProperty("power_on_to_validated_seconds", static_cast<int>(Seconds(validated)));
}

}  // namespace
}  // namespace assisted::testing
