// File: tests/vm/vm_test.cc

#include "tests/vm/vm_test.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "lib/status/status_macros.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/eventually.h"
#include "tests/harness/probes.h"

namespace assisted::testing {
namespace {

using nlohmann::json;

}  // namespace

std::string VmTest::WriteTempFile(const std::string& name, const std::string& content) {
  return WriteLabFile(::testing::TempDir(), name, content);
}

void VmTest::SetUp() {
  const char* images = std::getenv("ASSISTED_TEST_OS_IMAGES");
  if (images == nullptr || *images == '\0') {
    GTEST_SKIP() << "ASSISTED_TEST_OS_IMAGES is not set: build the images with ./dev os-images "
                    "(./dev test does both)";
  }
  images_ = images;
  ASSERT_TRUE(std::filesystem::exists(images_ + "/live.iso"))
      << images_ << "/live.iso is missing: run ./dev os-images";
  absl::StatusOr<std::string> requirements = LabHwRequirements();
  ASSERT_THAT(requirements, IsOk());
  hw_requirements_file_ = WriteTempFile("hw-requirements.json", *requirements);
  ASSERT_NO_FATAL_FAILURE(StartTestServers());
  ASSERT_NO_FATAL_FAILURE(StackTest::SetUp());

  AictlOutcome token = Aictl(
      {"token", "issue", "--secret-file=" + stack().jwt_secret_file(), "--user=vm", "--org=vm"},
      /*with_token=*/false);
  ASSERT_EQ(token.code, 0) << token.err;
  token_ = token.Trimmed();

  // The orchestrator listens on loopback only; guests reach it through the forward.
  const int agent_port = orchestrator().grpc_port();
  std::vector<GuestForward> forwards = {{kOrchestratorGuestAddress, agent_port, agent_port}};
  for (const GuestForward& forward : VmOptions().forwards) forwards.push_back(forward);
  auto fleet = VmFleet::Create({.dir = ::testing::TempDir() + "/vms", .forwards = forwards});
  ASSERT_THAT(fleet, IsOk());
  fleet_ = *std::move(fleet);
}

StackOptions VmTest::Options() const {
  return VmStackOptions(images_, hw_requirements_file_, VmOptions().orchestrator_flags);
}

void VmTest::TearDown() {
  if (HasFailure() && fleet_ != nullptr) {
    for (int vm = 0; vm < machines_; ++vm) {
      std::cerr << "--- console of " << fleet_->spec(vm).name << " (" << fleet_->ConsolePath(vm)
                << ")\n"
                << fleet_->ConsoleTail(vm, 30000) << "\n";
    }
  }
  fleet_.reset();
  StackTest::TearDown();
}

AictlOutcome VmTest::Aictl(std::vector<std::string> args, bool with_token) const {
  return RunAictl(stack().gateway_http(), with_token ? token_ : "", args);
}

cli::RestClient VmTest::Rest() const {
  return cli::RestClient({.server = stack().gateway_http(), .token = token_});
}

void VmTest::CreateSnoCluster(const json& infra_env_fields) {
  absl::StatusOr<LabCluster> lab =
      CreateLabCluster(stack().gateway_http(), token_, ::testing::TempDir(), 1, infra_env_fields);
  ASSERT_THAT(lab, IsOk());
  cluster_id_ = lab->cluster_id;
  infra_env_id_ = lab->infra_env_id;
  iso_ = lab->iso;
}

int VmTest::AddSnoMachine(const std::string& name, const std::string& mac,
                          const std::string& serial) {
  auto vm = fleet_->Add({.name = name,
                         .mac = mac,
                         .serial = serial,
                         .disk_bytes = kSnoDiskBytes,
                         .memory_mib = kSnoMemoryMib,
                         .cpus = kSnoCpus});
  EXPECT_THAT(vm, IsOk());
  machines_ = std::max(machines_, vm.ok() ? *vm + 1 : machines_);
  return vm.value_or(-1);
}

void StageLog::operator()(const std::string& stage) const {
  std::cout << "[vm +" << static_cast<int>(absl::ToDoubleSeconds(absl::Now() - started_)) << " s] "
            << stage << std::endl;
}

std::pair<std::string, json> VmTest::Look() const { return LookAt(Rest(), cluster_id_); }

std::pair<std::string, json> LookAt(cli::RestClient rest, const std::string& cluster_id) {
  absl::StatusOr<json> cluster = rest.Call("GET", "/clusters/" + cluster_id);
  absl::StatusOr<json> hosts = rest.Call("GET", "/clusters/" + cluster_id + "/hosts");
  const std::string status = cluster.ok() ? StringField(*cluster, "status") : "";
  if (!hosts.ok() || !hosts->is_array() || hosts->empty() || !(*hosts)[0].is_object()) {
    return {status, json::object()};
  }
  return {status, (*hosts)[0]};
}

std::string VmTest::Stopped(int vm) { return MachineStopped(*fleet_, vm); }

std::string VmTest::Where(int vm) const {
  return WhereStuck(*fleet_, vm, [this] { return Look(); });
}

void VmTest::WaitUntilKnown(int vm, absl::Time power_on, absl::Duration timeout,
                            HostProgress& progress) {
  WaitUntilHostKnown(
      *fleet_, vm, [this] { return Look(); }, [this, vm] { return Stopped(vm); }, progress_,
      power_on, timeout, progress);
}

std::string WhereStuck(VmFleet& fleet, int vm, const LookAtCluster& look) {
  const auto [cluster_status, host] = look();
  return absl::StrCat("console: ", fleet.ConsolePath(vm), "; cluster ", cluster_status, "; host ",
                      StringField(host, "status"), ": ", StringField(host, "status_info"),
                      "; stage ",
                      StringField(host.value("progress", json::object()), "current_stage"));
}

void WaitUntilHostKnown(VmFleet& fleet, int vm, const LookAtCluster& look,
                        const std::function<std::string()>& stopped_now, const StageLog& log,
                        absl::Time power_on, absl::Duration timeout, HostProgress& progress) {
  // The host appears once its agent registered; its inventory follows with the first step, and
  // its validations once the orchestrator evaluated that inventory and the checks' results.
  // The REST API has no watch: the wait polls it, as aictl wait does.
  std::string stopped;  // why the machine can no longer get there
  const ::testing::AssertionResult settled = Eventually(
      [&]() -> Observed {
        stopped = stopped_now();
        if (!stopped.empty()) return {true, stopped};
        const auto [cluster_status, host] = look();
        if (host.empty()) return {false, "no host registered"};
        for (const std::string& milestone : progress.Note(host, absl::Now() - power_on)) {
          if (milestone != "validated" && milestone != "known") {
            log("discovery: host " + milestone);
          }
        }
        return {progress.done(), absl::StrCat("host ", StringField(progress.host, "status"), ": ",
                                              StringField(progress.host, "status_info"))};
      },
      power_on + timeout - absl::Now(), "the host to be validated (known or insufficient)");
  log(absl::StrCat("discovery: host ", StringField(progress.host, "status"),
                   "; console: ", BootTimeline(fleet.ConsoleTail(vm, 1 << 20))));
  ASSERT_TRUE(stopped.empty()) << stopped;
  ASSERT_TRUE(settled) << WhereStuck(fleet, vm, look);
  ASSERT_NE(progress.inventoried, absl::InfiniteDuration()) << progress.host.dump();
  // ntp-synced fails: no NTP server is within reach of a loopback-only uplink; that validation
  // is informative, as upstream.
  ASSERT_EQ(StringField(progress.host, "status"), "known")
      << StringField(progress.host, "status_info") << "\n"
      << StringField(progress.host, "validations_info");
  const std::string validations = StringField(progress.host, "validations_info");
  EXPECT_TRUE(HardwareValidated(validations)) << validations;
  EXPECT_THAT(PendingChecks(validations), ::testing::IsEmpty()) << validations;
}

}  // namespace assisted::testing
