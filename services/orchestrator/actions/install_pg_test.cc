// The OrchestratorService against the real inventory and PostgreSQL, both as processes (the
// shared stack, tests/harness/stack.h): a three-master cluster goes from ready through preparation
// (installation files generated once, checked with ignition-validate and openssl), installing and
// host progress reported through UpdateHostProgress, to installed; stage order is enforced; an
// installation is cancelled midway, reset and installed again. Agents are simulated by writing what
// they would report.

#include <chrono>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "assisted/orchestrator/v1/orchestrator_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "lib/ignition/test_util.h"
#include "lib/log/log.h"
#include "lib/process/subprocess.h"
#include "lib/random/random.h"
#include "lib/testing/status_matchers.h"
#include "lib/testing/test_files.h"
#include "lib/time/clock.h"
#include "nlohmann/json.hpp"
#include "services/orchestrator/actions/agent_seams.h"
#include "services/orchestrator/actions/user_actions.h"
#include "services/orchestrator/core/testing_fixtures.h"
#include "services/orchestrator/events.h"
#include "services/orchestrator/install/artifacts.h"
#include "services/orchestrator/inventory_port.h"
#include "services/orchestrator/liveness.h"
#include "services/orchestrator/refresher.h"
#include "services/orchestrator/testing/healthy_world.h"
#include "tests/harness/install_checks.h"
#include "tests/harness/stack.h"
#include "yaml-cpp/yaml.h"

namespace assisted::testing {
namespace {

namespace inv = ::assisted::inventory::v1;
namespace orch = ::assisted::orchestrator::v1;
using ::assisted::orchestrator::core::testing::HealthyCluster;
using ::assisted::orchestrator::core::testing::HealthyHost;
using ::assisted::orchestrator::testing::AddHealthyReports;
using ::assisted::orchestrator::testing::HostId;
using ::testing::HasSubstr;
using types::v1::HostStage;

constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})";
constexpr int kHosts = 3;

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return context;
}

// The preparation checks' results (disk speed, image pulls) the agent sends while preparing.
using ::assisted::orchestrator::core::testing::FastDisksInfo;
using ::assisted::orchestrator::core::testing::PulledImagesStatus;

class InstallTest : public StackTest {
 protected:
  void SetUp() override {
    StackTest::SetUp();
    if (HasFatalFailure()) return;
    inventory_stub_ = &stack().inventory_stub();
    stub_ = &stack().orchestrator_stub();
  }

  // A cluster with three discovered hosts whose agents reported a healthy world; refreshed
  // until it is ready.
  void CreateReadyCluster() {
    ASSERT_NO_FATAL_FAILURE(CreateClusterWithHosts());
    const types::v1::Cluster refreshed = Refresh();
    ASSERT_EQ(refreshed.status(), types::v1::CLUSTER_STATUS_READY)
        << refreshed.status_info() << "\n"
        << refreshed.DebugString();
  }

  // The cluster, its infra-env and three hosts whose agents reported a healthy world; their
  // streams are held by `holder` (none: closed) and were last heard `quiet_for` ago.
  void CreateClusterWithHosts(absl::Duration quiet_for = absl::ZeroDuration(),
                              const std::string& holder = "") {
    inv::CreateClusterRequest create;
    *create.mutable_cluster() = HealthyCluster();
    create.mutable_cluster()->clear_id();
    create.set_pull_secret(kPullSecret);
    ASSERT_TRUE(inventory_stub_->CreateCluster(Context().get(), create, &cluster_).ok());
    inv::CreateInfraEnvRequest create_infra_env;
    create_infra_env.mutable_infra_env()->set_name("discovery");
    create_infra_env.mutable_infra_env()->set_cluster_id(cluster_.id());
    create_infra_env.set_pull_secret(kPullSecret);
    types::v1::RegistryMirror* mirror =
        create_infra_env.mutable_infra_env()->mutable_mirror_registries()->add_mirrors();
    mirror->set_source("quay.io/openshift-release-dev/ocp-release");
    mirror->add_mirrors("mirror.lab:5000/ocp/release");
    ASSERT_TRUE(
        inventory_stub_->CreateInfraEnv(Context().get(), create_infra_env, &infra_env_).ok());
    for (int i = 1; i <= kHosts; ++i) {
      ASSERT_NO_FATAL_FAILURE(CreateHost(i, kHosts, quiet_for, holder));
    }
  }

  // Host i of n, discovered with a healthy agent's reports; last heard `quiet_for` ago on a
  // stream `holder` holds.
  void CreateHost(int i, int n, absl::Duration quiet_for = absl::ZeroDuration(),
                  const std::string& holder = "") {
    const google::protobuf::Timestamp now =
        google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(
            absl::ToUnixMicros(absl::Now() - quiet_for));
    inv::CreateHostRequest create_host;
    types::v1::Host& host = *create_host.mutable_host();
    host = HealthyHost(i);
    host.set_id(HostId(i));
    host.set_infra_env_id(infra_env_.id());
    host.set_cluster_id(cluster_.id());
    host.set_role(types::v1::HOST_ROLE_AUTO_ASSIGN);
    host.set_status(types::v1::HOST_STATUS_DISCOVERING);
    *host.mutable_checked_in_at() = now;
    *host.mutable_timestamp() = now;
    host.set_agent_stream_holder(holder);
    AddHealthyReports(i, n, host);
    types::v1::Host created;
    const grpc::Status status = inventory_stub_->CreateHost(Context().get(), create_host, &created);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  types::v1::Cluster Refresh() {
    orch::RefreshClusterRequest request;
    request.set_cluster_id(cluster_.id());
    types::v1::Cluster cluster;
    const grpc::Status status = stub_->RefreshCluster(Context().get(), request, &cluster);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return cluster;
  }

  grpc::Status Install(types::v1::Cluster* cluster) {
    orch::InstallClusterRequest request;
    request.set_cluster_id(cluster_.id());
    return stub_->InstallCluster(Context().get(), request, cluster);
  }

  // What the agents report while preparing; then the cluster installs.
  types::v1::Cluster FinishPreparation() {
    const google::protobuf::Timestamp now = google::protobuf::util::TimeUtil::GetCurrentTime();
    for (int i = 1; i <= kHosts; ++i) {
      inv::UpdateHostRequest update;
      update.mutable_host()->set_id(HostId(i));
      update.mutable_host()->set_infra_env_id(infra_env_.id());
      *update.mutable_host()->mutable_images_status_report() = PulledImagesStatus();
      *update.mutable_host()->mutable_disks_info_report() = FastDisksInfo();
      *update.mutable_host()->mutable_checked_in_at() = now;
      for (const char* path : {"images_status_report", "disks_info_report", "checked_in_at"}) {
        update.mutable_update_mask()->add_paths(path);
      }
      types::v1::Host host;
      EXPECT_TRUE(inventory_stub_->UpdateHost(Context().get(), update, &host).ok());
    }
    return Refresh();
  }

  grpc::Status Progress(int i, HostStage stage, types::v1::Host* host,
                        const std::string& info = "") {
    orch::UpdateHostProgressRequest request;
    request.set_infra_env_id(infra_env_.id());
    request.set_host_id(HostId(i));
    request.set_current_stage(stage);
    request.set_progress_info(info);
    return stub_->UpdateHostProgress(Context().get(), request, host);
  }

  std::optional<std::string> Artifact(const std::string& name) {
    return GetArtifact(*inventory_stub_, cluster_.id(), name);
  }

  std::vector<types::v1::Host> Hosts() {
    inv::GetClusterRequest get;
    get.set_id(cluster_.id());
    get.set_include_hosts(true);
    types::v1::Cluster cluster;
    EXPECT_TRUE(inventory_stub_->GetCluster(Context().get(), get, &cluster).ok());
    return {cluster.hosts().begin(), cluster.hosts().end()};
  }

  // Every stored file is there and valid: ignition-validate, install-config parses back, the
  // kubeconfig's client certificate verifies against its CA with openssl.
  void ExpectValidArtifacts() {
    ExpectValidIgnition(*inventory_stub_, cluster_.id(),
                        {"bootstrap.ign", "master.ign", "worker.ign", "host-" + HostId(1) + ".ign",
                         "host-" + HostId(2) + ".ign", "host-" + HostId(3) + ".ign"});
    std::optional<std::string> install_config = Artifact("install-config.yaml");
    ASSERT_TRUE(install_config.has_value());
    const YAML::Node doc = YAML::Load(*install_config);
    EXPECT_EQ(doc["metadata"]["name"].as<std::string>(), "c");
    EXPECT_EQ(doc["controlPlane"]["replicas"].as<int>(), 3);
    EXPECT_EQ(doc["platform"]["baremetal"]["apiVIPs"][0].as<std::string>(), "10.0.0.5");
    EXPECT_EQ(doc["imageContentSources"][0]["mirrors"][0].as<std::string>(),
              "mirror.lab:5000/ocp/release");
    std::optional<std::string> password = Artifact("kubeadmin-password");
    ASSERT_TRUE(password.has_value());
    EXPECT_EQ(password->size(), 23u);
    ASSERT_TRUE(Artifact("kubeconfig-noingress").has_value());
    const std::string ca = ExpectVerifiableKubeconfig(*inventory_stub_, cluster_.id());
    ASSERT_FALSE(ca.empty());
    // The host configs point at the cluster's Machine Config Server with the same CA.
    const nlohmann::json host = nlohmann::json::parse(*Artifact("host-" + HostId(1) + ".ign"));
    EXPECT_EQ(host["ignition"]["config"]["merge"][0]["source"],
              "https://api-int.c.example.com:22623/config/master");
    EXPECT_EQ(ignition::DecodeDataUrl(
                  host["ignition"]["security"]["tls"]["certificateAuthorities"][0]["source"]
                      .get<std::string>())
                  .value_or(""),
              ca);
  }

  // Reports every stage of host i's profile up to Done.
  void ReportAllStages(int i, bool bootstrap) {
    const std::vector<HostStage> master = {types::v1::HOST_STAGE_STARTING_INSTALLATION,
                                           types::v1::HOST_STAGE_INSTALLING,
                                           types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK,
                                           types::v1::HOST_STAGE_REBOOTING,
                                           types::v1::HOST_STAGE_CONFIGURING,
                                           types::v1::HOST_STAGE_JOINED,
                                           types::v1::HOST_STAGE_DONE};
    const std::vector<HostStage> boot = {types::v1::HOST_STAGE_STARTING_INSTALLATION,
                                         types::v1::HOST_STAGE_INSTALLING,
                                         types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK,
                                         types::v1::HOST_STAGE_WAITING_FOR_CONTROL_PLANE,
                                         types::v1::HOST_STAGE_WAITING_FOR_BOOTKUBE,
                                         types::v1::HOST_STAGE_WAITING_FOR_CONTROLLER,
                                         types::v1::HOST_STAGE_REBOOTING,
                                         types::v1::HOST_STAGE_CONFIGURING,
                                         types::v1::HOST_STAGE_JOINED,
                                         types::v1::HOST_STAGE_DONE};
    for (HostStage stage : bootstrap ? boot : master) {
      types::v1::Host host;
      const grpc::Status status = Progress(i, stage, &host);
      ASSERT_TRUE(status.ok()) << types::v1::HostStage_Name(stage) << ": "
                               << status.error_message();
      EXPECT_EQ(host.progress().current_stage(), stage);
      EXPECT_EQ(host.status(), stage == types::v1::HOST_STAGE_DONE
                                   ? types::v1::HOST_STATUS_INSTALLED
                                   : types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS);
    }
  }

  // The bootstrap host's index (1..kHosts), 0 when none is chosen.
  int BootstrapIndex() {
    for (int i = 1; i <= kHosts; ++i) {
      for (const types::v1::Host& host : Hosts()) {
        if (host.id() == HostId(i) && host.bootstrap()) return i;
      }
    }
    return 0;
  }

  // ready -> installed, every host reporting every stage.
  void InstallToInstalled() {
    types::v1::Cluster cluster;
    ASSERT_TRUE(Install(&cluster).ok());
    cluster = FinishPreparation();
    ASSERT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_INSTALLING) << cluster.status_info();
    const int bootstrap = BootstrapIndex();
    for (int i = 1; i <= kHosts; ++i) ASSERT_NO_FATAL_FAILURE(ReportAllStages(i, i == bootstrap));
    ASSERT_EQ(Refresh().status(), types::v1::CLUSTER_STATUS_INSTALLED);
  }

  // The user actions in this process, on the same inventory (what the agent hub's seams call),
  // with a refresher of its own that holds no agent streams.
  struct InProcess {
    InProcess(std::shared_ptr<grpc::Channel> channel, const Clock& clock, Random& random)
        : inventory(std::move(channel), absl::Seconds(10), log::Logger::Discard()),
          files(inventory, clock, random, "in-process"),
          liveness("in-process", clock),
          refresher(inventory, {}, clock, liveness, events, log::Logger::Discard(), &files),
          actions(inventory, {.os_image = {"file:///images/os.raw", std::string(64, 'a')}}, clock,
                  random, log::Logger::Discard(), {refresher, events, files}) {}
    orchestrator::GrpcInventory inventory;
    orchestrator::install::ArtifactGenerator files;
    orchestrator::LivenessTracker liveness;
    orchestrator::NoEvents events;
    orchestrator::Refresher refresher;
    orchestrator::actions::UserActions actions;
  };
  std::unique_ptr<InProcess> InProcessActions() {
    return std::make_unique<InProcess>(
        grpc::CreateChannel(stack().inventory().grpc_target(), grpc::InsecureChannelCredentials()),
        clock_, random_);
  }

  // Holds or releases the generation lease of the cluster as another replica would.
  bool OtherReplicaLease(inv::LeaseAction action) {
    inv::LeaseRequest lease;
    lease.set_name("install-artifacts-" + cluster_.id());
    lease.set_holder("other-replica");
    lease.mutable_ttl()->set_seconds(60);
    lease.set_action(action);
    inv::LeaseResponse response;
    EXPECT_TRUE(inventory_stub_->Lease(Context().get(), lease, &response).ok());
    return response.granted();
  }

  RealClock clock_;
  SeededRandom random_{42};
  inv::InventoryService::Stub* inventory_stub_ = nullptr;
  orch::OrchestratorService::Stub* stub_ = nullptr;
  types::v1::Cluster cluster_;
  types::v1::InfraEnv infra_env_;
};

TEST_F(InstallTest, ThreeMastersInstallFromReadyToInstalled) {
  ASSERT_NO_FATAL_FAILURE(CreateReadyCluster());
  types::v1::Cluster cluster;
  grpc::Status status = Install(&cluster);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION)
      << cluster.status_info();
  EXPECT_EQ(cluster.last_installation_preparation().status(),
            types::v1::INSTALLATION_PREPARATION_STATUS_SUCCESS)
      << cluster.last_installation_preparation().reason();
  int bootstrap = 0;
  for (const types::v1::Host& host : cluster.hosts()) {
    EXPECT_EQ(host.role(), types::v1::HOST_ROLE_MASTER) << host.id();
    EXPECT_EQ(host.status(), types::v1::HOST_STATUS_PREPARING_FOR_INSTALLATION)
        << host.status_info();
    if (host.bootstrap()) bootstrap = std::stoi(host.id().substr(35));
  }
  ASSERT_NE(bootstrap, 0) << "no bootstrap host chosen";
  ASSERT_NO_FATAL_FAILURE(ExpectValidArtifacts());

  // Installing twice is refused, naming the status.
  status = Install(&cluster);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("preparing-for-installation"));

  cluster = FinishPreparation();
  ASSERT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_INSTALLING) << cluster.status_info();
  for (const types::v1::Host& host : cluster.hosts()) {
    EXPECT_EQ(host.status(), types::v1::HOST_STATUS_INSTALLING) << host.status_info();
  }

  // Stages only move forward.
  const int other = bootstrap == 1 ? 2 : 1;
  types::v1::Host host;
  ASSERT_TRUE(Progress(other, types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK, &host, "45%").ok());
  EXPECT_EQ(host.status(), types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS);
  EXPECT_EQ(host.progress().progress_info(), "45%");
  status = Progress(other, types::v1::HOST_STAGE_INSTALLING, &host);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("backwards"));
  // A stage the role never reaches.
  status = Progress(other, types::v1::HOST_STAGE_WAITING_FOR_BOOTKUBE, &host);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();

  for (int i = 1; i <= kHosts; ++i) {
    if (i == other) {
      for (HostStage stage : {types::v1::HOST_STAGE_REBOOTING, types::v1::HOST_STAGE_CONFIGURING,
                              types::v1::HOST_STAGE_JOINED, types::v1::HOST_STAGE_DONE}) {
        ASSERT_TRUE(Progress(i, stage, &host).ok());
      }
    } else {
      ASSERT_NO_FATAL_FAILURE(ReportAllStages(i, i == bootstrap));
    }
  }
  cluster = Refresh();
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_INSTALLED) << cluster.status_info();
  EXPECT_EQ(cluster.progress().total_percentage(), 100);
  EXPECT_TRUE(cluster.has_install_started_at());
  EXPECT_TRUE(cluster.has_install_completed_at());

  // Late progress after Done is ignored; milestones are events.
  EXPECT_TRUE(Progress(other, types::v1::HOST_STAGE_DONE, &host).ok());
  inv::ListEventsRequest events_request;
  events_request.set_cluster_id(cluster_.id());
  events_request.set_limit(1000);
  inv::ListEventsResponse events;
  ASSERT_TRUE(inventory_stub_->ListEvents(Context().get(), events_request, &events).ok());
  std::set<std::string> names;
  for (const types::v1::Event& event : events.events()) names.insert(event.name());
  for (const char* name :
       {"cluster_installation_started", "cluster_installation_files_generated",
        "host_install_progress_updated", "cluster_status_updated", "host_bootstrap_set"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
}

TEST_F(InstallTest, CancelMidInstallThenResetAndInstallAgain) {
  ASSERT_NO_FATAL_FAILURE(CreateReadyCluster());
  types::v1::Cluster cluster;
  ASSERT_TRUE(Install(&cluster).ok());
  const std::optional<std::string> first_ca = Artifact("tls/root-ca.crt");
  ASSERT_TRUE(first_ca.has_value());
  cluster = FinishPreparation();
  ASSERT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_INSTALLING) << cluster.status_info();
  types::v1::Host host;
  ASSERT_TRUE(Progress(1, types::v1::HOST_STAGE_STARTING_INSTALLATION, &host).ok());

  orch::CancelInstallationRequest cancel;
  cancel.set_cluster_id(cluster_.id());
  grpc::Status status = stub_->CancelInstallation(Context().get(), cancel, &cluster);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_CANCELLED);
  for (const types::v1::Host& h : Hosts()) {
    EXPECT_EQ(h.status(), types::v1::HOST_STATUS_CANCELLED) << h.status_info();
  }
  status = Progress(2, types::v1::HOST_STAGE_INSTALLING, &host);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << status.error_message();

  orch::ResetClusterRequest reset;
  reset.set_cluster_id(cluster_.id());
  status = stub_->ResetCluster(Context().get(), reset, &cluster);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_INSUFFICIENT);
  for (const types::v1::Host& h : Hosts()) {
    EXPECT_EQ(h.status(), types::v1::HOST_STATUS_RESETTING_PENDING_USER_ACTION);
    EXPECT_FALSE(h.bootstrap());
    EXPECT_EQ(h.progress().current_stage(), types::v1::HOST_STAGE_UNSPECIFIED);
  }
  EXPECT_FALSE(Artifact("install-config.yaml").has_value());
  EXPECT_FALSE(Artifact("bootstrap.ign").has_value());

  // The hosts reboot into the discovery image and register again (what the agent stream does).
  for (const types::v1::Host& h : Hosts()) {
    inv::UpdateHostStatusRequest registered;
    registered.set_infra_env_id(h.infra_env_id());
    registered.set_id(h.id());
    registered.set_expected_status(h.status());
    registered.set_new_status(types::v1::HOST_STATUS_DISCOVERING);
    registered.mutable_patch()->mutable_checked_in_at()->set_seconds(
        google::protobuf::util::TimeUtil::GetCurrentTime().seconds());
    registered.mutable_patch_mask()->add_paths("checked_in_at");
    types::v1::Host written;
    ASSERT_TRUE(inventory_stub_->UpdateHostStatus(Context().get(), registered, &written).ok());
  }
  cluster = Refresh();
  ASSERT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_READY) << cluster.status_info();
  status = Install(&cluster);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
  ASSERT_NO_FATAL_FAILURE(ExpectValidArtifacts());
  // A new installation gets new credentials.
  EXPECT_NE(Artifact("tls/root-ca.crt"), first_ca);
  cluster = FinishPreparation();
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_INSTALLING) << cluster.status_info();
}

TEST_F(InstallTest, RefusesWhatTheStateMachinesForbid) {
  ASSERT_NO_FATAL_FAILURE(CreateReadyCluster());
  // Editing a host before installing is fine; a bad disk names the field.
  orch::UpdateHostRequest update;
  update.set_infra_env_id(infra_env_.id());
  update.set_host_id(HostId(1));
  update.mutable_host()->set_installation_disk_id("no-such-disk");
  update.mutable_update_mask()->add_paths("installation_disk_id");
  types::v1::Host host;
  grpc::Status status = stub_->UpdateHost(Context().get(), update, &host);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("host.installation_disk_id"));
  update.mutable_host()->set_requested_hostname("first-master");
  update.mutable_update_mask()->Clear();
  update.mutable_update_mask()->add_paths("requested_hostname");
  status = stub_->UpdateHost(Context().get(), update, &host);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(host.requested_hostname(), "first-master");

  // Progress for a host that is not installing.
  status = Progress(1, types::v1::HOST_STAGE_INSTALLING, &host);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  // Day-2 installs need an adding-hosts cluster.
  orch::InstallHostRequest install_host;
  install_host.set_infra_env_id(infra_env_.id());
  install_host.set_host_id(HostId(1));
  status = stub_->InstallHost(Context().get(), install_host, &host);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("ready"));
  // Cancel and reset have nothing to act on in ready.
  orch::ResetClusterRequest reset;
  reset.set_cluster_id(cluster_.id());
  types::v1::Cluster cluster;
  status = stub_->ResetCluster(Context().get(), reset, &cluster);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("ready"));

  ASSERT_TRUE(Install(&cluster).ok());
  // Once installation began, hosts are not edited.
  status = stub_->UpdateHost(Context().get(), update, &host);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("preparing-for-installation"));
  // Missing ids name the field.
  orch::InstallClusterRequest empty;
  status = stub_->InstallCluster(Context().get(), empty, &cluster);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("cluster_id"));
}

TEST_F(InstallTest, ForbiddenOverridesFailThePreparationWithTheReason) {
  ASSERT_NO_FATAL_FAILURE(CreateReadyCluster());
  inv::UpdateClusterRequest update;
  update.mutable_cluster()->set_id(cluster_.id());
  update.mutable_cluster()->set_install_config_overrides(R"({"baseDomain":"other.com"})");
  update.mutable_update_mask()->add_paths("install_config_overrides");
  types::v1::Cluster cluster;
  ASSERT_TRUE(inventory_stub_->UpdateCluster(Context().get(), update, &cluster).ok());
  ASSERT_EQ(Refresh().status(), types::v1::CLUSTER_STATUS_READY);
  const grpc::Status status = Install(&cluster);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_READY) << cluster.status_info();
  EXPECT_THAT(cluster.status_info(), HasSubstr("failed to prepare"));
  EXPECT_EQ(cluster.last_installation_preparation().status(),
            types::v1::INSTALLATION_PREPARATION_STATUS_FAILED);
  EXPECT_THAT(cluster.last_installation_preparation().reason(),
              HasSubstr("install_config_overrides: \"baseDomain\" may not be overridden"));
  for (const types::v1::Host& host : cluster.hosts()) {
    EXPECT_EQ(host.status(), types::v1::HOST_STATUS_KNOWN) << host.status_info();
  }
}

TEST_F(InstallTest, FinalizingWaitsForMonitoredOperatorsAndTheIngressCa) {
  ASSERT_NO_FATAL_FAILURE(CreateReadyCluster());
  inv::UpdateClusterRequest update;
  update.mutable_cluster()->set_id(cluster_.id());
  types::v1::MonitoredOperator* console = update.mutable_cluster()->add_monitored_operators();
  console->set_name("console");
  console->set_operator_type(types::v1::OPERATOR_TYPE_BUILTIN);
  update.mutable_update_mask()->add_paths("monitored_operators");
  types::v1::Cluster cluster;
  ASSERT_TRUE(inventory_stub_->UpdateCluster(Context().get(), update, &cluster).ok());
  ASSERT_TRUE(Install(&cluster).ok());
  cluster = FinishPreparation();
  ASSERT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_INSTALLING) << cluster.status_info();
  const int bootstrap = BootstrapIndex();
  for (int i = 1; i <= kHosts; ++i) ASSERT_NO_FATAL_FAILURE(ReportAllStages(i, i == bootstrap));
  cluster = Refresh();
  ASSERT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_FINALIZING) << cluster.status_info();

  orch::UpdateFinalizingProgressRequest stage;
  stage.set_cluster_id(cluster_.id());
  stage.set_finalizing_stage(types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS);
  ASSERT_TRUE(stub_->UpdateFinalizingProgress(Context().get(), stage, &cluster).ok());
  EXPECT_EQ(cluster.progress().finalizing_stage(),
            types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS);

  orch::ReportOperatorStatusRequest report;
  report.set_cluster_id(cluster_.id());
  report.set_name("no-such-operator");
  report.set_status(types::v1::OPERATOR_STATUS_AVAILABLE);
  grpc::Status status = stub_->ReportOperatorStatus(Context().get(), report, &cluster);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  report.set_name("console");
  report.set_status(types::v1::OPERATOR_STATUS_PROGRESSING);
  ASSERT_TRUE(stub_->ReportOperatorStatus(Context().get(), report, &cluster).ok());
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_FINALIZING);

  orch::UploadIngressCertRequest ingress;
  ingress.set_cluster_id(cluster_.id());
  ingress.set_ca_certificate("not a certificate");
  status = stub_->UploadIngressCert(Context().get(), ingress, &cluster);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("ca_certificate"));
  const std::string ingress_ca = *Artifact("tls/root-ca.crt");  // any valid PEM certificate
  ingress.set_ca_certificate(ingress_ca);
  ASSERT_TRUE(stub_->UploadIngressCert(Context().get(), ingress, &cluster).ok());
  EXPECT_NE(Artifact("kubeconfig"), Artifact("kubeconfig-noingress"));

  report.set_status(types::v1::OPERATOR_STATUS_AVAILABLE);
  ASSERT_TRUE(stub_->ReportOperatorStatus(Context().get(), report, &cluster).ok());
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_INSTALLED) << cluster.status_info();
  orch::CompleteInstallationRequest complete;
  complete.set_cluster_id(cluster_.id());
  complete.set_is_success(true);
  ASSERT_TRUE(stub_->CompleteInstallation(Context().get(), complete, &cluster).ok());
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_INSTALLED);
}

TEST_F(InstallTest, ControllerFailureMovesAFinalizingClusterToError) {
  ASSERT_NO_FATAL_FAILURE(CreateReadyCluster());
  inv::UpdateClusterRequest update;
  update.mutable_cluster()->set_id(cluster_.id());
  update.mutable_cluster()->add_monitored_operators()->set_name("console");
  update.mutable_update_mask()->add_paths("monitored_operators");
  types::v1::Cluster cluster;
  ASSERT_TRUE(inventory_stub_->UpdateCluster(Context().get(), update, &cluster).ok());
  ASSERT_TRUE(Install(&cluster).ok());
  FinishPreparation();
  const int bootstrap = BootstrapIndex();
  for (int i = 1; i <= kHosts; ++i) ASSERT_NO_FATAL_FAILURE(ReportAllStages(i, i == bootstrap));
  ASSERT_EQ(Refresh().status(), types::v1::CLUSTER_STATUS_FINALIZING);
  orch::CompleteInstallationRequest complete;
  complete.set_cluster_id(cluster_.id());
  complete.set_is_success(false);
  complete.set_error_info("console operator degraded");
  ASSERT_TRUE(stub_->CompleteInstallation(Context().get(), complete, &cluster).ok());
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_ERROR);
  EXPECT_THAT(cluster.status_info(), HasSubstr("console operator degraded"));
  EXPECT_TRUE(cluster.has_install_completed_at());
}

TEST_F(InstallTest, InstallingHostsGetTheInstallStepAndAgentProgressTakesTheSamePath) {
  ASSERT_NO_FATAL_FAILURE(CreateReadyCluster());
  types::v1::Cluster cluster;
  ASSERT_TRUE(Install(&cluster).ok());
  cluster = FinishPreparation();
  ASSERT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_INSTALLING) << cluster.status_info();
  const std::unique_ptr<InProcess> in_process = InProcessActions();
  orchestrator::actions::UserActions& actions = in_process->actions;
  const types::v1::Host host = cluster.hosts(0);
  absl::StatusOr<std::vector<types::v1::Step>> steps =
      actions.hosts().InstallInstructions(host, cluster);
  ASSERT_THAT(steps, IsOk());
  ASSERT_EQ(steps->size(), 1u);
  EXPECT_EQ((*steps)[0].step_type(), types::v1::STEP_TYPE_INSTALL);
  const nlohmann::json args = nlohmann::json::parse((*steps)[0].args(0));
  EXPECT_EQ(args["cluster_id"], cluster_.id());
  EXPECT_EQ(args["host_id"], host.id());
  EXPECT_EQ(args["role"], "master");
  EXPECT_EQ(args["bootstrap"], host.bootstrap());
  EXPECT_EQ(args["boot_device"], "/dev/sda");
  EXPECT_EQ(args["high_availability_mode"], "Full");
  EXPECT_EQ(args["os_image"]["url"], "file:///images/os.raw");
  EXPECT_EQ(args["ignition"], *Artifact("host-" + host.id() + ".ign"));

  // Through the hub's seams: the planned steps plus the install step.
  class OneStep final : public orchestrator::InstructionSource {
   public:
    absl::StatusOr<std::vector<types::v1::Step>> StepsFor(
        const orchestrator::InstructionInput&) override {
      types::v1::Step step;
      step.set_step_type(types::v1::STEP_TYPE_DHCP_LEASE_ALLOCATE);
      return std::vector<types::v1::Step>{step};
    }
  } planned;
  orchestrator::actions::InstallStepSource source(actions.hosts(), planned);
  const std::vector<types::v1::Host> members(cluster.hosts().begin(), cluster.hosts().end());
  absl::StatusOr<std::vector<types::v1::Step>> pushed = source.StepsFor({host, &cluster, members});
  ASSERT_THAT(pushed, IsOk());
  ASSERT_EQ(pushed->size(), 2u);
  EXPECT_EQ((*pushed)[1].args(0), (*steps)[0].args(0));

  agent::v1::Progress progress;
  progress.set_current_stage(types::v1::HOST_STAGE_INSTALLING);
  orchestrator::actions::InstallProgressSink sink(actions.progress());
  EXPECT_THAT(sink.OnProgress(host, progress), IsOk());
  types::v1::Host stored;
  ASSERT_TRUE(Progress(std::stoi(host.id().substr(35)), types::v1::HOST_STAGE_INSTALLING, &stored)
                  .ok());  // the same stage again through the gRPC path: accepted
  EXPECT_EQ(stored.status(), types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS);
  EXPECT_EQ(stored.progress().current_stage(), types::v1::HOST_STAGE_INSTALLING);
  // A report that can never apply is acknowledged (logged), not retried forever.
  progress.set_current_stage(types::v1::HOST_STAGE_STARTING_INSTALLATION);
  EXPECT_THAT(actions.progress().ApplyAgentProgress(host, progress), IsOk());
  for (const types::v1::Host& h : Hosts()) {
    if (h.id() == host.id()) {
      EXPECT_EQ(h.progress().current_stage(), types::v1::HOST_STAGE_INSTALLING);
      // No longer in `installing`: no install step.
      absl::StatusOr<std::vector<types::v1::Step>> none =
          actions.hosts().InstallInstructions(h, cluster);
      ASSERT_THAT(none, IsOk());
      EXPECT_TRUE(none->empty());
      pushed = source.StepsFor({h, &cluster, members});
      ASSERT_THAT(pushed, IsOk());
      EXPECT_EQ(pushed->size(), 1u);
    }
  }
}

TEST_F(InstallTest, AnotherReplicaGeneratingDefersGenerationUntilItsLeaseIsGone) {
  ASSERT_NO_FATAL_FAILURE(CreateReadyCluster());
  ASSERT_TRUE(OtherReplicaLease(inv::LEASE_ACTION_ACQUIRE));
  types::v1::Cluster cluster;
  grpc::Status status = Install(&cluster);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
  EXPECT_EQ(cluster.last_installation_preparation().status(),
            types::v1::INSTALLATION_PREPARATION_STATUS_NOT_STARTED);
  EXPECT_FALSE(Artifact("install-config.yaml").has_value());
  EXPECT_FALSE(Artifact("tls/root-ca.crt").has_value());
  // Hosts may not install before the files exist, whatever they report.
  cluster = FinishPreparation();
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);

  OtherReplicaLease(inv::LEASE_ACTION_RELEASE);
  cluster = Refresh();
  EXPECT_EQ(cluster.last_installation_preparation().status(),
            types::v1::INSTALLATION_PREPARATION_STATUS_SUCCESS);
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_INSTALLING) << cluster.status_info();
  ASSERT_NO_FATAL_FAILURE(ExpectValidArtifacts());
}

TEST_F(InstallTest, InterruptedGenerationResumesWithTheSameCredentials) {
  ASSERT_NO_FATAL_FAILURE(CreateReadyCluster());
  types::v1::Cluster cluster;
  ASSERT_TRUE(Install(&cluster).ok());
  const std::optional<std::string> ca = Artifact("tls/root-ca.crt");
  const std::optional<std::string> kubeconfig = Artifact("kubeconfig");
  const std::optional<std::string> password = Artifact("kubeadmin-password");
  ASSERT_TRUE(ca && kubeconfig && password);
  // As if the replica died after writing the credentials: later files missing, the
  // preparation's outcome not recorded.
  for (const char* prefix : {"bootstrap", "master", "worker", "host-", "install-config"}) {
    inv::DeleteArtifactsRequest remove;
    remove.set_cluster_id(cluster_.id());
    remove.set_name_prefix(prefix);
    inv::DeleteArtifactsResponse removed;
    ASSERT_TRUE(inventory_stub_->DeleteArtifacts(Context().get(), remove, &removed).ok());
  }
  inv::UpdateClusterStatusRequest unrecorded;
  unrecorded.set_id(cluster_.id());
  unrecorded.set_expected_status(types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
  unrecorded.set_new_status(types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
  unrecorded.mutable_patch()->mutable_last_installation_preparation()->set_status(
      types::v1::INSTALLATION_PREPARATION_STATUS_NOT_STARTED);
  unrecorded.mutable_patch_mask()->add_paths("last_installation_preparation");
  ASSERT_TRUE(inventory_stub_->UpdateClusterStatus(Context().get(), unrecorded, &cluster).ok());

  cluster = Refresh();
  EXPECT_EQ(cluster.last_installation_preparation().status(),
            types::v1::INSTALLATION_PREPARATION_STATUS_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(ExpectValidArtifacts());
  EXPECT_EQ(Artifact("tls/root-ca.crt"), ca);
  EXPECT_EQ(Artifact("kubeconfig"), kubeconfig);
  EXPECT_EQ(Artifact("kubeadmin-password"), password);
}

TEST_F(InstallTest, Day2WorkersJoinAnInstalledClusterOneByOne) {
  ASSERT_NO_FATAL_FAILURE(CreateReadyCluster());
  ASSERT_NO_FATAL_FAILURE(InstallToInstalled());
  orch::AllowAddWorkersRequest allow;
  allow.set_cluster_id(cluster_.id());
  types::v1::Cluster cluster;
  grpc::Status status = stub_->AllowAddWorkers(Context().get(), allow, &cluster);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_ADDING_HOSTS);
  EXPECT_EQ(cluster.kind(), types::v1::CLUSTER_KIND_ADD_HOSTS_CLUSTER);

  ASSERT_NO_FATAL_FAILURE(CreateHost(4, 4));
  ASSERT_NO_FATAL_FAILURE(CreateHost(5, 5));
  Refresh();
  std::map<std::string, types::v1::Host> hosts;
  for (const types::v1::Host& h : Hosts()) hosts[h.id()] = h;
  ASSERT_EQ(hosts[HostId(4)].status(), types::v1::HOST_STATUS_KNOWN)
      << hosts[HostId(4)].status_info();

  orch::InstallHostRequest install;
  install.set_infra_env_id(infra_env_.id());
  install.set_host_id(HostId(4));
  types::v1::Host host;
  status = stub_->InstallHost(Context().get(), install, &host);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(host.status(), types::v1::HOST_STATUS_INSTALLING);
  EXPECT_EQ(host.role(), types::v1::HOST_ROLE_WORKER);
  const std::optional<std::string> ignition = Artifact("host-" + HostId(4) + ".ign");
  ASSERT_TRUE(ignition.has_value());
  EXPECT_THAT(ignition::IgnitionValidate(*ignition, "day2.ign"), IsOk());
  EXPECT_THAT(*ignition, HasSubstr("/config/worker"));
  // One at a time.
  install.set_host_id(HostId(5));
  status = stub_->InstallHost(Context().get(), install, &host);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("one by one"));

  for (HostStage stage :
       {types::v1::HOST_STAGE_STARTING_INSTALLATION, types::v1::HOST_STAGE_INSTALLING,
        types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK, types::v1::HOST_STAGE_REBOOTING,
        types::v1::HOST_STAGE_CONFIGURING, types::v1::HOST_STAGE_JOINED,
        types::v1::HOST_STAGE_DONE}) {
    status = Progress(4, stage, &host);
    ASSERT_TRUE(status.ok()) << types::v1::HostStage_Name(stage) << ": " << status.error_message();
  }
  EXPECT_EQ(host.status(), types::v1::HOST_STATUS_ADDED_TO_EXISTING_CLUSTER);
  install.set_host_id(HostId(5));
  status = stub_->InstallHost(Context().get(), install, &host);
  EXPECT_TRUE(status.ok()) << status.error_message();
}

TEST_F(InstallTest, AConnectedFleetQuietForLongerThanTheDisconnectionTimeoutInstalls) {
  // Another replica, alive (it holds its presence lease), holds the hosts' agent streams; the
  // agents have had nothing to say for 4 minutes, more than the 3-minute disconnection timeout.
  // An open stream is a live agent whatever its silence, so the cluster is ready to install.
  inv::LeaseRequest lease;
  lease.set_name("agent-streams/streams-replica");
  lease.set_holder("streams-replica");
  lease.mutable_ttl()->set_seconds(600);
  lease.set_action(inv::LEASE_ACTION_ACQUIRE);
  inv::LeaseResponse leased;
  ASSERT_TRUE(inventory_stub_->Lease(Context().get(), lease, &leased).ok());
  ASSERT_TRUE(leased.granted());
  ASSERT_NO_FATAL_FAILURE(CreateClusterWithHosts(absl::Minutes(4), "streams-replica"));
  types::v1::Cluster cluster;
  const grpc::Status status = Install(&cluster);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION)
      << cluster.status_info();
}

}  // namespace
}  // namespace assisted::testing
