// Whole installs with simulated hosts: the real inventory, orchestrator and PostgreSQL, and a
// Fleet of simulated agents (services/agent/fleet.h) that register, pass their validations, take
// the install step, write the OS image and their Ignition to their disk image files, reboot and
// play the in-cluster controller. For single-node (1 host), compact (3 masters) and HA (3 masters
// + 2 workers) clusters, the test checks what a user would: the cluster is installed, every host
// walked its role's stages in order, the kubeconfig verifies against its CA, every Ignition
// artifact passes ignition-validate, and each disk holds the OS image and its host's Ignition.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "assisted/orchestrator/v1/orchestrator_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "lib/log/log.h"
#include "lib/operators/catalog.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/fleet.h"
#include "services/agent/simulation/profile_paths.h"
#include "services/agent/steps/install.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/stages.h"
#include "tests/harness/eventually.h"
#include "tests/harness/host_watch.h"
#include "tests/harness/install_checks.h"
#include "tests/harness/probes.h"
#include "tests/harness/stack.h"

namespace assisted::testing {
namespace {

namespace inv = ::assisted::inventory::v1;
namespace orch = ::assisted::orchestrator::v1;
namespace core = ::assisted::orchestrator::core;
using ::assisted::agent::Fleet;
using ::assisted::agent::simulation::testing::ProfilePath;
using types::v1::CLUSTER_STATUS_ERROR;
using types::v1::CLUSTER_STATUS_INSTALLED;
using types::v1::CLUSTER_STATUS_READY;
using types::v1::HOST_STATUS_KNOWN;

constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"eDp5"}}})";
constexpr char kSshKey[] =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl e2e";

struct Topology {
  const char* name;
  int masters;
  int workers;
};

class InstallE2eTest : public StackTest {
 protected:
  // The OS image the hosts write: a few MiB of noise, so a digest mismatch cannot hide.
  StackOptions Options() const override {
    return {.orchestrator_flags = {"--monitor-interval=200ms"}, .os_image_mib = 3};
  }

  void TearDown() override {
    for (auto& fleet : fleets_) fleet->Stop();
    StackTest::TearDown();
  }

  // The cluster the simulation profiles are made for ("demo" on 192.168.122.0/24; the profiles
  // answer DNS for api/api-int/apps.demo.example.com), and its infra-env.
  // `operators`: the OLM operators the cluster selects, kept as the gateway keeps a request's
  // olm_operators (its monitored operators; gateway_pg_test covers that mapping).
  void CreateCluster(int control_plane_count, const std::vector<std::string>& operators = {}) {
    inv::CreateClusterRequest create;
    types::v1::Cluster& spec = *create.mutable_cluster();
    for (const std::string& name : operators) {
      *spec.add_monitored_operators() =
          ::assisted::operators::MonitoredOperatorOf(*::assisted::operators::FindOperator(name));
    }
    spec.set_name("demo");
    spec.set_openshift_version("4.16");
    spec.set_base_dns_domain("example.com");
    spec.set_control_plane_count(control_plane_count);
    spec.set_ssh_public_key(kSshKey);
    spec.add_machine_networks()->set_cidr("192.168.122.0/24");
    if (control_plane_count == 1) {
      spec.set_user_managed_networking(true);  // single node: no VIPs, platform none
    } else {
      spec.add_api_vips()->set_ip("192.168.122.5");
      spec.add_ingress_vips()->set_ip("192.168.122.6");
    }
    types::v1::ClusterNetwork& pods = *spec.add_cluster_networks();
    pods.set_cidr("10.128.0.0/14");
    pods.set_host_prefix(23);
    spec.add_service_networks()->set_cidr("172.30.0.0/16");
    create.set_pull_secret(kPullSecret);
    grpc::ClientContext context;
    const grpc::Status created =
        stack().inventory_stub().CreateCluster(&context, create, &cluster_);
    ASSERT_TRUE(created.ok()) << created.error_message();
    inv::CreateInfraEnvRequest create_infra_env;
    create_infra_env.mutable_infra_env()->set_name("demo");
    create_infra_env.mutable_infra_env()->set_cluster_id(cluster_.id());
    create_infra_env.set_pull_secret(kPullSecret);
    grpc::ClientContext infra_env_context;
    const grpc::Status infra_env =
        stack().inventory_stub().CreateInfraEnv(&infra_env_context, create_infra_env, &infra_env_);
    ASSERT_TRUE(infra_env.ok()) << infra_env.error_message();
  }

  // Starts `count` simulated hosts of `profile` (a shipped profile's name, whose "name" it is,
  // or that name and `profile_file`); returns their host ids. Hosts of one profile started
  // again (same `seed`) are the same machines booting the discovery image anew.
  std::vector<std::string> StartHosts(const std::string& profile, int count,
                                      absl::Duration stage_delay = absl::ZeroDuration(),
                                      const std::string& profile_file = "") {
    Fleet::Options options;
    options.profile = profile_file.empty() ? ProfilePath(profile) : profile_file;
    options.count = count;
    options.orchestrator_address = AgentTarget(static_cast<int>(fleets_.size()));
    options.infra_env_id = infra_env_.id();
    options.agent_token = "e2e-token";
    options.state_dir = StateDir();
    options.step_threads = 2;
    options.stage_delay = stage_delay;
    auto fleet = Fleet::Start(options, nullptr, log::Logger::Discard());
    EXPECT_THAT(fleet, IsOk());
    if (!fleet.ok()) return {};
    std::vector<std::string> ids;
    for (int i = 0; i < count; ++i) {
      ids.push_back((*fleet)->host_id(i));
      disk_of_[(*fleet)->host_id(i)] = absl::StrCat(StateDir(), "/", profile, "-", i, ".img");
    }
    fleets_.push_back(*std::move(fleet));
    return ids;
  }

  // The orchestrator address the agents of the `fleet`th StartHosts call dial.
  virtual std::string AgentTarget(int /*fleet*/) const { return orchestrator().grpc_target(); }

  std::string StateDir() const {
    return absl::StrCat(::testing::TempDir(), "/e2e-",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  // A cluster of `masters` + `workers` simulated hosts, known and ready; returns the host ids
  // and the change-feed position.
  std::vector<std::string> StartReadyCluster(int masters, int workers, int64_t* seq,
                                             absl::Duration stage_delay = absl::ZeroDuration()) {
    CreateCluster(masters);
    std::vector<std::string> ids = StartHosts("master", masters, stage_delay);
    if (workers > 0) {
      for (const std::string& id : StartHosts("worker", workers, stage_delay)) ids.push_back(id);
    }
    EXPECT_EQ(ids.size(), static_cast<size_t>(masters + workers));
    *seq = AwaitReady(ids, 1);
    return ids;
  }

  // Waits for every host in `ids` known and the cluster ready; the change-feed position after.
  int64_t AwaitReady(const std::vector<std::string>& ids, int64_t after_seq) {
    const StatusWatch ready = WatchClusterUntil(
        stack().inventory_stub(), cluster_.id(), after_seq,
        [&](const StatusWatch& watch) {
          return watch.cluster == CLUSTER_STATUS_READY &&
                 AllAre(watch.seen, ids, HOST_STATUS_KNOWN);
        },
        absl::Seconds(90));
    EXPECT_TRUE(ready.done) << ready.error << "\n" << Describe();
    return ready.last_seq;
  }

  // Waits for the cluster to reach one of `statuses`.
  StatusWatch AwaitCluster(int64_t after_seq, std::vector<types::v1::ClusterStatus> statuses,
                           absl::Duration timeout = absl::Seconds(180)) {
    return WatchClusterUntil(
        stack().inventory_stub(), cluster_.id(), after_seq,
        [&](const StatusWatch& watch) {
          return std::find(statuses.begin(), statuses.end(), watch.cluster) != statuses.end();
        },
        timeout);
  }

  // Waits until some host of the cluster reports `status`.
  StatusWatch AwaitAnyHost(int64_t after_seq, types::v1::HostStatus status) {
    return WatchClusterUntil(
        stack().inventory_stub(), cluster_.id(), after_seq,
        [&](const StatusWatch& watch) {
          for (const auto& [id, seen] : watch.seen) {
            if (seen == status) return true;
          }
          return false;
        },
        absl::Seconds(90));
  }

  // Installs, and once the cluster is installing (its preparation, whose disk-speed check would
  // catch a bad disk, passed) turns the disk of `host_id` into a directory: the image write,
  // a few simulated stages later, fails. Returns the change-feed position.
  int64_t BreakDiskOnceInstalling(int64_t after_seq, const std::string& host_id) {
    types::v1::Cluster installing;
    const grpc::Status accepted = Install(&installing);
    EXPECT_TRUE(accepted.ok()) << accepted.error_message();
    const StatusWatch started =
        AwaitCluster(after_seq, {types::v1::CLUSTER_STATUS_INSTALLING}, absl::Seconds(90));
    EXPECT_TRUE(started.done) << started.error << "\n" << Describe();
    std::filesystem::remove(disk_of_[host_id]);
    std::filesystem::create_directory(disk_of_[host_id]);
    return started.last_seq;
  }

  template <typename Request>
  grpc::Status CallOrchestrator(grpc::Status (orch::OrchestratorService::Stub::*method)(
      grpc::ClientContext*, const Request&, types::v1::Cluster*)) {
    Request request;
    request.set_cluster_id(cluster_.id());
    types::v1::Cluster cluster;
    grpc::ClientContext context;
    return (stack().orchestrator_stub().*method)(&context, request, &cluster);
  }

  grpc::Status Install(types::v1::Cluster* cluster) {
    orch::InstallClusterRequest request;
    request.set_cluster_id(cluster_.id());
    grpc::ClientContext context;
    return stack().orchestrator_stub().InstallCluster(&context, request, cluster);
  }

  // Installs the ready cluster and waits until it is installed; `cluster` is then as stored.
  void InstallUntilInstalled(int64_t ready_seq, types::v1::Cluster* cluster) {
    const grpc::Status accepted = Install(cluster);
    ASSERT_TRUE(accepted.ok()) << accepted.error_message();
    const StatusWatch done =
        AwaitCluster(ready_seq, {CLUSTER_STATUS_INSTALLED, CLUSTER_STATUS_ERROR});
    ASSERT_TRUE(done.done) << done.error << "\n" << Describe();
    *cluster = StoredCluster();
    ASSERT_EQ(cluster->status(), CLUSTER_STATUS_INSTALLED) << cluster->status_info();
  }

  types::v1::Cluster StoredCluster() {
    inv::GetClusterRequest get;
    get.set_id(cluster_.id());
    get.set_include_hosts(true);
    types::v1::Cluster cluster;
    grpc::ClientContext context;
    EXPECT_TRUE(stack().inventory_stub().GetCluster(&context, get, &cluster).ok());
    return cluster;
  }

  // The stages a host reached, in the order the orchestrator recorded them (its events).
  std::vector<std::string> ReachedStages(const std::string& host_id) {
    inv::ListEventsRequest list;
    list.set_cluster_id(cluster_.id());
    list.set_host_id(host_id);
    list.set_limit(-1);
    list.set_message("reached installation stage");
    inv::ListEventsResponse events;
    grpc::ClientContext context;
    EXPECT_TRUE(stack().inventory_stub().ListEvents(&context, list, &events).ok());
    std::vector<std::string> stages;
    for (const types::v1::Event& event : events.events()) {
      const std::string& message = event.message();
      const size_t at = message.find("reached installation stage ");
      std::string stage = message.substr(at + std::string("reached installation stage ").size());
      stage = stage.substr(0, stage.find(':'));
      stages.push_back(stage);
    }
    return stages;
  }

  // Every host in `ids` is installed and walked its role's stage list to Done, in order, each
  // stage recorded once.
  void ExpectEveryHostWalkedItsStagesOnce(const types::v1::Cluster& cluster,
                                          const std::vector<std::string>& ids) {
    const bool sno = cluster.control_plane_count() == 1;
    std::map<std::string, types::v1::Host> hosts;
    for (const types::v1::Host& host : cluster.hosts()) hosts[host.id()] = host;
    for (const std::string& id : ids) {
      ASSERT_TRUE(hosts.count(id)) << id;
      const types::v1::Host& host = hosts[id];
      EXPECT_EQ(host.status(), types::v1::HOST_STATUS_INSTALLED) << host.status_info();
      std::vector<std::string> expected;
      for (types::v1::HostStage stage :
           core::StagesFor(core::ProfileOf(host.role(), host.bootstrap(), sno))) {
        // Only appliance installs, whose disk image carries a registry, copy registry data.
        if (stage == types::v1::HOST_STAGE_COPYING_REGISTRY_DATA_TO_DISK) continue;
        expected.push_back(std::string(core::HostStageName(stage)));
      }
      EXPECT_EQ(nlohmann::json(ReachedStages(id)).dump(), nlohmann::json(expected).dump())
          << id << " (" << core::HostRoleName(host.role())
          << (host.bootstrap() ? ", bootstrap" : "") << ")";
    }
  }

  // The outcome of validation `id` of host `host_id` as stored, "" until it was judged.
  std::string HostValidation(const std::string& host_id, absl::string_view id) {
    const types::v1::Cluster cluster = StoredCluster();
    for (const types::v1::Host& host : cluster.hosts()) {
      if (host.id() != host_id) continue;
      for (const types::v1::ValidationResult& v : host.validations_info()) {
        if (v.id() == id) {
          return absl::StrCat(types::v1::ValidationStatus_Name(v.status()), ": ", v.message());
        }
      }
    }
    return "";
  }

  // Waits until validation `id` of `host_id` reads `status` (VALIDATION_STATUS_...).
  void AwaitHostValidation(const std::string& host_id, absl::string_view id,
                           absl::string_view status) {
    EXPECT_TRUE(Eventually(
        [&] {
          const std::string seen = HostValidation(host_id, id);
          return Observed{absl::StartsWith(seen, status), seen};
        },
        absl::Seconds(90), absl::StrCat(id, " of host ", host_id, " is ", status)));
  }

  // Where an install stands, for failure messages.
  std::string Describe() {
    const types::v1::Cluster cluster = StoredCluster();
    std::string text = absl::StrCat(
        "cluster ", core::ClusterStatusName(cluster.status()), ": ", cluster.status_info(),
        "; preparation ", cluster.last_installation_preparation().ShortDebugString(), "\n");
    for (const types::v1::Host& host : cluster.hosts()) {
      absl::StrAppend(
          &text, "  host ", host.id(), " ", core::HostStatusName(host.status()), " (",
          host.status_info(), ") stage ", core::HostStageName(host.progress().current_stage()),
          " images_status=", host.images_status(), " disks_info=", host.disks_info(), "\n");
    }
    return text;
  }

  types::v1::Cluster cluster_;
  types::v1::InfraEnv infra_env_;
  std::vector<std::unique_ptr<Fleet>> fleets_;
  std::map<std::string, std::string> disk_of_;
};

class InstallTopologyTest : public InstallE2eTest,
                            public ::testing::WithParamInterface<Topology> {};

TEST_P(InstallTopologyTest, SimulatedHostsInstallTheClusterFromDiscoveryToInstalled) {
  const Topology topology = GetParam();
  int64_t ready_seq = 0;
  const std::vector<std::string> ids =
      StartReadyCluster(topology.masters, topology.workers, &ready_seq);
  ASSERT_FALSE(HasFailure());

  types::v1::Cluster cluster;
  ASSERT_NO_FATAL_FAILURE(InstallUntilInstalled(ready_seq, &cluster));

  ExpectEveryHostWalkedItsStagesOnce(cluster, ids);
  std::map<std::string, types::v1::Host> hosts;
  for (const types::v1::Host& host : cluster.hosts()) hosts[host.id()] = host;
  for (const std::string& id : ids) {
    ASSERT_TRUE(hosts.count(id)) << id;
    // The disk holds the OS image and this host's own Ignition, both verified on read-back.
    absl::StatusOr<agent::steps::InstalledDisk> disk =
        agent::steps::ReadInstalledDisk(disk_of_[id]);
    ASSERT_THAT(disk, IsOk()) << disk_of_[id];
    EXPECT_EQ(disk->os_image_sha256, stack().os_image_sha256());
    EXPECT_EQ(disk->host_id, id);
    EXPECT_EQ(disk->cluster_id, cluster_.id());
    EXPECT_EQ(disk->ignition,
              GetArtifact(stack().inventory_stub(), cluster_.id(), "host-" + id + ".ign"));
  }

  // What the user downloads.
  std::vector<std::string> ignition = {"master.ign", "worker.ign"};
  if (topology.masters > 1) ignition.push_back("bootstrap.ign");
  for (const std::string& id : ids) ignition.push_back("host-" + id + ".ign");
  ExpectValidIgnition(stack().inventory_stub(), cluster_.id(), ignition);
  EXPECT_FALSE(ExpectVerifiableKubeconfig(stack().inventory_stub(), cluster_.id()).empty());
  EXPECT_TRUE(
      GetArtifact(stack().inventory_stub(), cluster_.id(), "kubeadmin-password").has_value());
  EXPECT_TRUE(
      GetArtifact(stack().inventory_stub(), cluster_.id(), "install-config.yaml").has_value());
}

// An SNO cluster that selects LVM storage (olm_operators: [{name: lvm}]): lvm-requirements-
// satisfied fails on a host whose one disk is the installation disk and passes on a host with a
// spare disk (and the operator's extra core); the installation writes LVM's Namespace,
// OperatorGroup, Subscription and LVMCluster into bootstrap.ign, and the post-reboot reporter,
// playing the controller, reports lvm progressing and then available before the cluster is
// installed.
TEST_F(InstallE2eTest, LvmIsValidatedInstalledAndMonitoredUntilAvailable) {
  CreateCluster(1, {"lvm"});
  const std::vector<std::string> laptop = StartHosts("single-disk", 1);
  ASSERT_EQ(laptop.size(), 1u);
  AwaitHostValidation(laptop[0], "lvm-requirements-satisfied", "VALIDATION_STATUS_FAILURE");
  EXPECT_THAT(HostValidation(laptop[0], "lvm-requirements-satisfied"),
              ::testing::HasSubstr("requires at least one non-installation HDD/SSD disk"));
  // That machine leaves; one with a spare disk (vdb) takes its place.
  fleets_.back()->Stop();
  inv::DeleteHostRequest remove;
  remove.set_infra_env_id(infra_env_.id());
  remove.set_id(laptop[0]);
  google::protobuf::Empty removed;
  grpc::ClientContext remove_context;
  ASSERT_TRUE(stack().inventory_stub().DeleteHost(&remove_context, remove, &removed).ok());

  const std::vector<std::string> ids = StartHosts("storage", 1);
  ASSERT_EQ(ids.size(), 1u);
  const int64_t ready_seq = AwaitReady(ids, 1);
  ASSERT_FALSE(HasFailure());
  EXPECT_THAT(HostValidation(ids[0], "lvm-requirements-satisfied"),
              ::testing::HasSubstr("VALIDATION_STATUS_SUCCESS: Logical Volume Manager Storage "
                                   "can use vdb"));

  types::v1::Cluster cluster;
  ASSERT_NO_FATAL_FAILURE(InstallUntilInstalled(ready_seq, &cluster));

  // The manifests, where the bootstrap applies the installer's openshift folder.
  const std::optional<std::string> bootstrap =
      GetArtifact(stack().inventory_stub(), cluster_.id(), "bootstrap.ign");
  ASSERT_TRUE(bootstrap.has_value());
  const nlohmann::json bootstrap_config = nlohmann::json::parse(*bootstrap);
  std::vector<std::string> paths;
  for (const nlohmann::json& file : bootstrap_config["storage"]["files"]) {
    paths.push_back(file["path"].get<std::string>());
  }
  for (const char* name : {"ns", "operator_group", "subscription", "lvmcluster"}) {
    EXPECT_THAT(paths, ::testing::Contains(absl::StrCat(
                           "/opt/openshift/openshift/50_openshift-lvm_", name, ".yaml")));
  }
  ExpectValidIgnition(stack().inventory_stub(), cluster_.id(), {"bootstrap.ign"});

  // Monitored until available: progressing first, then available, as the reporter said.
  ASSERT_EQ(cluster.monitored_operators_size(), 1);
  EXPECT_EQ(cluster.monitored_operators(0).name(), "lvm");
  EXPECT_EQ(cluster.monitored_operators(0).status(), types::v1::OPERATOR_STATUS_AVAILABLE);
  inv::ListEventsRequest list;
  list.set_cluster_id(cluster_.id());
  list.set_limit(-1);
  list.set_message("Operator lvm is");
  inv::ListEventsResponse events;
  grpc::ClientContext events_context;
  ASSERT_TRUE(stack().inventory_stub().ListEvents(&events_context, list, &events).ok());
  std::vector<std::string> said;
  for (const types::v1::Event& event : events.events()) said.push_back(event.message());
  EXPECT_THAT(said, ::testing::ElementsAre(::testing::HasSubstr("Operator lvm is progressing"),
                                           ::testing::HasSubstr("Operator lvm is available")));
}

INSTANTIATE_TEST_SUITE_P(Topologies, InstallTopologyTest,
                         ::testing::Values(Topology{"sno", 1, 0}, Topology{"compact", 3, 0},
                                           Topology{"ha", 3, 2}),
                         [](const ::testing::TestParamInfo<Topology>& info) {
                           return std::string(info.param.name);
                         });

namespace failures {

using types::v1::CLUSTER_STATUS_CANCELLED;
using types::v1::HOST_STATUS_ERROR;
using types::v1::HOST_STATUS_INSTALLED;
using types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS;

}  // namespace failures

using namespace failures;  // NOLINT: the failure tests below read better unqualified

TEST_F(InstallE2eTest, AFailedWorkerIsInErrorAndTheOthersStillInstallTheCluster) {
  int64_t seq = 0;
  const std::vector<std::string> ids = StartReadyCluster(3, 3, &seq, absl::Milliseconds(300));
  ASSERT_FALSE(HasFailure());
  // Three workers are assigned, so two are enough (the reference's criteria): one may fail.
  std::string broken;
  const types::v1::Cluster ready = StoredCluster();
  for (const types::v1::Host& host : ready.hosts()) {
    if (host.suggested_role() == types::v1::HOST_ROLE_WORKER) broken = host.id();
  }
  ASSERT_FALSE(broken.empty()) << Describe();
  const int64_t installing_seq = BreakDiskOnceInstalling(seq, broken);
  ASSERT_FALSE(HasFailure());

  const StatusWatch done =
      AwaitCluster(installing_seq, {CLUSTER_STATUS_INSTALLED, CLUSTER_STATUS_ERROR});
  ASSERT_TRUE(done.done) << done.error << "\n" << Describe();
  const types::v1::Cluster cluster = StoredCluster();
  EXPECT_EQ(cluster.status(), CLUSTER_STATUS_INSTALLED) << Describe();
  for (const types::v1::Host& host : cluster.hosts()) {
    EXPECT_EQ(host.status(), host.id() == broken ? HOST_STATUS_ERROR : HOST_STATUS_INSTALLED)
        << host.id() << ": " << host.status_info();
  }
  // The failed host was asked for its logs: the bundle it streamed is the cluster's artifact.
  absl::StatusOr<std::string> logs =
      WatchArtifactUntilComplete(stack().inventory_stub(), cluster_.id(), installing_seq,
                                 "logs/host_" + broken + ".tar.gz", absl::Seconds(60));
  ASSERT_THAT(logs, IsOk());
  ASSERT_GE(logs->size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>((*logs)[0]), 0x1f);  // gzip
  EXPECT_EQ(static_cast<unsigned char>((*logs)[1]), 0x8b);
}

TEST_F(InstallE2eTest, AFailedMasterFailsTheCluster) {
  int64_t seq = 0;
  const std::vector<std::string> ids = StartReadyCluster(3, 0, &seq, absl::Milliseconds(300));
  ASSERT_FALSE(HasFailure());
  const int64_t installing_seq = BreakDiskOnceInstalling(seq, ids[1]);
  ASSERT_FALSE(HasFailure());

  const StatusWatch done =
      AwaitCluster(installing_seq, {CLUSTER_STATUS_INSTALLED, CLUSTER_STATUS_ERROR});
  ASSERT_TRUE(done.done) << done.error << "\n" << Describe();
  const types::v1::Cluster failed = StoredCluster();
  EXPECT_EQ(failed.status(), CLUSTER_STATUS_ERROR) << Describe();
  for (const types::v1::Host& host : failed.hosts()) {
    if (host.id() == ids[1]) {
      EXPECT_EQ(host.status(), HOST_STATUS_ERROR) << host.status_info();
    }
  }
}

TEST_F(InstallE2eTest, CancelMidInstallThenResetRebootAndInstallAgain) {
  int64_t seq = 0;
  std::vector<std::string> ids = StartReadyCluster(3, 0, &seq, absl::Milliseconds(300));
  ASSERT_FALSE(HasFailure());
  types::v1::Cluster installing;
  ASSERT_TRUE(Install(&installing).ok());
  const StatusWatch started = AwaitAnyHost(seq, HOST_STATUS_INSTALLING_IN_PROGRESS);
  ASSERT_TRUE(started.done) << started.error << "\n" << Describe();

  const grpc::Status cancelled =
      CallOrchestrator(&orch::OrchestratorService::Stub::CancelInstallation);
  ASSERT_TRUE(cancelled.ok()) << cancelled.error_message();
  EXPECT_EQ(StoredCluster().status(), CLUSTER_STATUS_CANCELLED) << Describe();
  const grpc::Status reset = CallOrchestrator(&orch::OrchestratorService::Stub::ResetCluster);
  ASSERT_TRUE(reset.ok()) << reset.error_message();

  // The user boots the same machines into the discovery image again.
  for (auto& fleet : fleets_) fleet->Stop();
  fleets_.clear();
  ASSERT_EQ(StartHosts("master", 3), ids);
  const int64_t ready_again = AwaitReady(ids, started.last_seq);
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(Install(&installing).ok());
  const StatusWatch done =
      AwaitCluster(ready_again, {CLUSTER_STATUS_INSTALLED, CLUSTER_STATUS_ERROR});
  ASSERT_TRUE(done.done) << done.error << "\n" << Describe();
  EXPECT_EQ(StoredCluster().status(), CLUSTER_STATUS_INSTALLED) << Describe();
  EXPECT_FALSE(ExpectVerifiableKubeconfig(stack().inventory_stub(), cluster_.id()).empty());
}

TEST_F(InstallE2eTest,
       TheInstallCompletesThoughTheOrchestratorIsKilledWhilePreparingAndInstalling) {
  int64_t seq = 0;
  const std::vector<std::string> ids = StartReadyCluster(3, 0, &seq, absl::Milliseconds(300));
  ASSERT_FALSE(HasFailure());
  types::v1::Cluster installing;
  ASSERT_TRUE(Install(&installing).ok());
  EXPECT_EQ(installing.status(), types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
  orchestrator().Kill();  // while preparing
  ASSERT_THAT(stack().RestartOrchestrator(), IsOk());

  const StatusWatch started = AwaitAnyHost(seq, HOST_STATUS_INSTALLING_IN_PROGRESS);
  ASSERT_TRUE(started.done) << started.error << "\n" << Describe();
  orchestrator().Kill();  // while installing
  ASSERT_THAT(stack().RestartOrchestrator(), IsOk());

  const StatusWatch done =
      AwaitCluster(started.last_seq, {CLUSTER_STATUS_INSTALLED, CLUSTER_STATUS_ERROR});
  ASSERT_TRUE(done.done) << done.error << "\n" << Describe();
  EXPECT_EQ(StoredCluster().status(), CLUSTER_STATUS_INSTALLED) << Describe();
  ExpectValidIgnition(stack().inventory_stub(), cluster_.id(), {"master.ign", "bootstrap.ign"});
  EXPECT_FALSE(ExpectVerifiableKubeconfig(stack().inventory_stub(), cluster_.id()).empty());
}

TEST_F(InstallE2eTest, Day2WorkersBootedLaterJoinTheInstalledClusterOneByOne) {
  int64_t seq = 0;
  const std::vector<std::string> masters = StartReadyCluster(3, 0, &seq);
  ASSERT_FALSE(HasFailure());
  types::v1::Cluster installing;
  ASSERT_TRUE(Install(&installing).ok());
  const StatusWatch installed = AwaitCluster(seq, {CLUSTER_STATUS_INSTALLED, CLUSTER_STATUS_ERROR});
  ASSERT_TRUE(installed.done) << installed.error << "\n" << Describe();
  ASSERT_EQ(StoredCluster().status(), CLUSTER_STATUS_INSTALLED) << Describe();

  orch::AllowAddWorkersRequest allow;
  allow.set_cluster_id(cluster_.id());
  types::v1::Cluster adding;
  grpc::ClientContext allow_context;
  const grpc::Status allowed =
      stack().orchestrator_stub().AllowAddWorkers(&allow_context, allow, &adding);
  ASSERT_TRUE(allowed.ok()) << allowed.error_message();
  EXPECT_EQ(adding.status(), types::v1::CLUSTER_STATUS_ADDING_HOSTS);

  // Two more machines boot the same discovery image later and are installed one at a time.
  const std::vector<std::string> workers = StartHosts("worker", 2, absl::Milliseconds(100));
  ASSERT_EQ(workers.size(), 2u);
  const StatusWatch known = WatchClusterUntil(
      stack().inventory_stub(), cluster_.id(), installed.last_seq,
      [&](const StatusWatch& watch) { return AllAre(watch.seen, workers, HOST_STATUS_KNOWN); },
      absl::Seconds(90));
  ASSERT_TRUE(known.done) << known.error << "\n" << Describe();
  int64_t after = known.last_seq;
  for (const std::string& worker : workers) {
    orch::InstallHostRequest request;
    request.set_infra_env_id(infra_env_.id());
    request.set_host_id(worker);
    types::v1::Host host;
    grpc::ClientContext context;
    const grpc::Status started = stack().orchestrator_stub().InstallHost(&context, request, &host);
    ASSERT_TRUE(started.ok()) << started.error_message();
    const StatusWatch joined = WatchClusterUntil(
        stack().inventory_stub(), cluster_.id(), after,
        [&](const StatusWatch& watch) {
          return AllAre(watch.seen, {worker}, types::v1::HOST_STATUS_ADDED_TO_EXISTING_CLUSTER);
        },
        absl::Seconds(90));
    ASSERT_TRUE(joined.done) << joined.error << "\n" << Describe();
    after = joined.last_seq;
    absl::StatusOr<agent::steps::InstalledDisk> disk =
        agent::steps::ReadInstalledDisk(disk_of_[worker]);
    ASSERT_THAT(disk, IsOk()) << disk_of_[worker];
    EXPECT_EQ(disk->host_id, worker);
    EXPECT_EQ(disk->ignition,
              GetArtifact(stack().inventory_stub(), cluster_.id(), "host-" + worker + ".ign"));
  }
  ExpectValidIgnition(stack().inventory_stub(), cluster_.id(),
                      {"host-" + workers[0] + ".ign", "host-" + workers[1] + ".ign"});
  EXPECT_EQ(StoredCluster().status(), types::v1::CLUSTER_STATUS_ADDING_HOSTS);
}

TEST_F(InstallE2eTest, AHostThatBootsTheDiscoveryImageAgainWaitsForTheUser) {
  // A third master whose firmware boots the discovery image again after the install reboot
  // (wrong boot order): its own profile, addresses beside the shipped master profile's.
  const std::string shipped = ProfilePath("master");
  std::ifstream in(shipped);
  nlohmann::json profile = nlohmann::json::parse(in);
  profile["name"] = "stubborn";
  profile["hardware_root"] = (std::filesystem::canonical(shipped).parent_path() /
                              profile["hardware_root"].get<std::string>())
                                 .lexically_normal()
                                 .string();
  profile["ipv4"]["enp1s0"] = "192.168.122.30/24";
  profile["reboot_into_discovery"] = true;
  const std::string profile_file = ::testing::TempDir() + "/stubborn.json";
  std::ofstream(profile_file) << profile.dump();

  CreateCluster(3);
  std::vector<std::string> ids = StartHosts("master", 2, absl::Milliseconds(100));
  const std::vector<std::string> stubborn =
      StartHosts("stubborn", 1, absl::Milliseconds(100), profile_file);
  ASSERT_EQ(stubborn.size(), 1u);
  ids.push_back(stubborn[0]);
  const int64_t seq = AwaitReady(ids, 1);
  ASSERT_FALSE(HasFailure());
  types::v1::Cluster installing;
  ASSERT_TRUE(Install(&installing).ok());

  const StatusWatch waiting = WatchClusterUntil(
      stack().inventory_stub(), cluster_.id(), seq,
      [&](const StatusWatch& watch) {
        return AllAre(watch.seen, stubborn, types::v1::HOST_STATUS_INSTALLING_PENDING_USER_ACTION);
      },
      absl::Seconds(90));
  ASSERT_TRUE(waiting.done) << waiting.error << "\n" << Describe();
  const types::v1::Cluster cluster = StoredCluster();
  for (const types::v1::Host& host : cluster.hosts()) {
    if (host.id() != stubborn[0]) continue;
    EXPECT_THAT(host.status_info(), ::testing::HasSubstr("boot")) << host.status_info();
  }
}

// Two replicas of every service on one PostgreSQL, as the chart runs them (the gateways and
// image services each behind one address, every internal client dialling both replicas of its
// peer). The masters' agents dial orchestrator replica 0 first and the workers' replica 1 (each
// falls over to the other, as agents behind one Service do).
class ReplicasInstallTest : public InstallE2eTest {
 protected:
  StackOptions Options() const override {
    StackOptions options = InstallE2eTest::Options();
    options.replicas = 2;
    options.image = true;
    options.gateway = true;
    // The whole fleet may reconnect from one address at once.
    options.orchestrator_flags.push_back("--max-unregistered-agent-streams-per-peer=1000");
    return options;
  }
  std::string AgentTarget(int fleet) const override {
    return stack().orchestrators_target(every_agent_on_replica_1_ ? 1 : fleet % 2);
  }

  // The agents of fleet `fleet` that registered at least `times` times.
  int RegisteredAtLeast(int fleet, int times) const {
    int agents = 0;
    for (const nlohmann::json& agent : nlohmann::json::parse(fleets_[fleet]->Records())) {
      if (agent["registrations"].get<int>() >= times) ++agents;
    }
    return agents;
  }

  // The hosts whose agent stream each replica holds.
  std::map<std::string, std::vector<std::string>> Holders() {
    std::map<std::string, std::vector<std::string>> holders;
    const types::v1::Cluster cluster = StoredCluster();
    for (const types::v1::Host& host : cluster.hosts()) {
      holders[host.agent_stream_holder()].push_back(host.id());
    }
    return holders;
  }

  // Waits for the install begun after `seq` to end; expects it installed, every host's stages
  // recorded once and in order, and every result applied once (the agents' books).
  void ExpectInstalledWithEveryResultOnce(int64_t seq, const std::vector<std::string>& ids) {
    const StatusWatch done = AwaitCluster(seq, {CLUSTER_STATUS_INSTALLED, CLUSTER_STATUS_ERROR});
    ASSERT_TRUE(done.done) << done.error << "\n" << Describe();
    const types::v1::Cluster cluster = StoredCluster();
    ASSERT_EQ(cluster.status(), CLUSTER_STATUS_INSTALLED) << Describe();
    ExpectEveryHostWalkedItsStagesOnce(cluster, ids);
    ExpectEveryResultAppliedOnce(cluster);
  }

  // The agents' books: every seq sent once and in order. An agent reboots only once its install
  // result is acknowledged, so every step result it sent was applied: the host's fence (the
  // highest result seq applied for its agent instance; progress is fenced by its stage) is
  // its last result's seq, whichever replica applied it.
  void ExpectEveryResultAppliedOnce(const types::v1::Cluster& cluster) {
    std::map<std::string, types::v1::Host> hosts;
    for (const types::v1::Host& host : cluster.hosts()) hosts[host.id()] = host;
    for (const auto& fleet : fleets_) {
      for (const nlohmann::json& agent : nlohmann::json::parse(fleet->Records())) {
        uint64_t expected = 1, last_result = 0;
        for (const nlohmann::json& sent : agent["sent"]) {
          EXPECT_EQ(sent["seq"].get<uint64_t>(), expected++) << agent.dump();
          if (sent["kind"] == "step_result") last_result = sent["seq"].get<uint64_t>();
        }
        const types::v1::Host& host = hosts[agent["host_id"].get<std::string>()];
        EXPECT_EQ(host.agent_instance_id(), agent["instance_id"].get<std::string>());
        EXPECT_EQ(host.agent_applied_seq(), last_result) << agent.dump();
      }
    }
  }

  bool every_agent_on_replica_1_ = false;
};

// Every agent holds its stream on replica 1; the user's install goes to replica 0's management
// API. Replica 1 learns of it through the inventory's change feed and pushes each step: the
// preparation, the install, and every step after, while both replicas run.
TEST_F(ReplicasInstallTest, AnInstallAskedOfOneReplicaIsPushedToAgentsHeldByTheOther) {
  every_agent_on_replica_1_ = true;
  int64_t seq = 0;
  const std::vector<std::string> ids = StartReadyCluster(3, 0, &seq, absl::Milliseconds(100));
  ASSERT_FALSE(HasFailure());
  const std::map<std::string, std::vector<std::string>> before = Holders();
  ASSERT_EQ(before.size(), 1u) << Describe();
  ASSERT_EQ(before.begin()->first, "orchestrator-1") << Describe();

  types::v1::Cluster installing;
  const grpc::Status accepted = Install(&installing);  // replica 0
  ASSERT_TRUE(accepted.ok()) << accepted.error_message();
  // The preparation and install steps reached the agents: replica 1, their only holder, pushed
  // them.
  const StatusWatch started = AwaitAnyHost(seq, HOST_STATUS_INSTALLING_IN_PROGRESS);
  ASSERT_TRUE(started.done) << started.error << "\n" << Describe();
  EXPECT_EQ(Holders().count("orchestrator-0"), 0u) << Describe();
  ExpectInstalledWithEveryResultOnce(seq, ids);
}

// Once the install is accepted, one replica of each service is killed with -9: the inventory
// replica the surviving orchestrator dials first (it falls over to the other), orchestrator
// replica 1 while its workers still have their preparation and install steps ahead (they land
// on replica 0), an image replica and a gateway replica (their front passes new connections to
// the survivors). The install completes with every result and stage applied exactly once, and
// the gateway behind its front answers ready on the surviving backends.
TEST_F(ReplicasInstallTest, AReplicaOfEveryServiceKilledMidInstallLosesNoResult) {
  int64_t seq = 0;
  const std::vector<std::string> ids = StartReadyCluster(3, 2, &seq, absl::Milliseconds(300));
  ASSERT_FALSE(HasFailure());
  // Spread: each replica holds the streams of its fleet, and judged them into one ready cluster.
  const types::v1::Cluster ready = StoredCluster();
  for (const types::v1::Host& host : ready.hosts()) {
    const bool master = host.id() == ids[0] || host.id() == ids[1] || host.id() == ids[2];
    EXPECT_EQ(host.agent_stream_holder(), master ? "orchestrator-0" : "orchestrator-1")
        << host.id();
  }

  types::v1::Cluster installing;
  const grpc::Status accepted = Install(&installing);
  ASSERT_TRUE(accepted.ok()) << accepted.error_message();
  stack().orchestrator(1).Kill();
  stack().inventory(0).Kill();
  stack().image(1).Kill();
  stack().gateway(0).Kill();
  const absl::Time killed_at = absl::Now();
  EXPECT_TRUE(Eventually([&] { return RegisteredAtLeast(/*fleet=*/1, 2) == 2; }, absl::Seconds(60),
                         "the workers registered again"));
  std::cerr << "workers re-registered on the survivor "
            << absl::FormatDuration(absl::Now() - killed_at) << " after the kill\n";

  ExpectInstalledWithEveryResultOnce(seq, ids);
  ASSERT_FALSE(HasFatalFailure());
  ExpectValidIgnition(stack().inventory_stub(), cluster_.id(),
                      {"master.ign", "worker.ign", "bootstrap.ign"});

  // The surviving gateway reaches a surviving replica of every backend; behind the front, both
  // of two connections in a row land on it.
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(Eventually(
        [&] {
          absl::StatusOr<HttpResponse> ready = HttpGet(stack().gateway_http() + "/ready");
          return Observed{ready.ok() && ready->status == 200,
                          ready.ok() ? ready->body : std::string(ready.status().message())};
        },
        absl::Seconds(30), "the gateway behind its front is ready"));
  }
}

}  // namespace
}  // namespace assisted::testing
