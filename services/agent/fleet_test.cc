// The fleet against fake AgentService and ControllerService servers in this process: the
// install step writes each simulated disk, the stages arrive in the reference's order per role,
// the simulated controller reports the rest, and a host that boots discovery again re-registers.
#include "services/agent/fleet.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "assisted/orchestrator/v1/controller_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/simulation/profile_paths.h"
#include "services/agent/steps/install.h"

namespace assisted::agent {
namespace {

using ::assisted::testing::IsOk;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using types::v1::HostStage;

// What the fake orchestrator saw of one host.
struct HostLog {
  std::vector<std::string> instances;    // agent_instance_id per registration
  std::vector<HostStage> agent_stages;   // Progress over the stream (repeats collapsed)
  std::vector<int> exit_codes;           // install step results
  std::vector<HostStage> controller;     // UpdateHostProgress
  std::string authorization;             // metadata of the last Connect
  std::string controller_authorization;  // metadata of the last UpdateHostProgress
};

// The controller token the fake hands out with a host's install step.
std::string ControllerTokenFor(const std::string& host_id) { return "controller-" + host_id; }

// The "authorization" metadata of an incoming call, or "".
std::string Authorization(const grpc::ServerContext& context) {
  auto token = context.client_metadata().find("authorization");
  if (token == context.client_metadata().end()) return "";
  return std::string(token->second.data(), token->second.size());
}

// Fake AgentService + ControllerService: registers everyone, pushes each host the install
// step the test planned for it (once per agent instance), acknowledges everything at once.
class FakeOrchestrator final : public v1::AgentService::Service,
                               public orchestrator::v1::ControllerService::Service {
 public:
  // host id -> install request JSON.
  void Plan(const std::string& host_id, nlohmann::json request) {
    absl::MutexLock lock(&mu_);
    plans_[host_id] = std::move(request);
  }
  void RefuseCompletionOnce() {
    absl::MutexLock lock(&mu_);
    refuse_completion_ = true;
  }

  grpc::Status Connect(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::ServiceMessage, v1::AgentMessage>* stream) override {
    v1::AgentMessage message;
    if (!stream->Read(&message) || !message.has_register_()) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "register first");
    }
    const std::string host_id = message.register_().host_id();
    std::optional<nlohmann::json> plan;
    {
      absl::MutexLock lock(&mu_);
      HostLog& log = hosts_[host_id];
      const bool fresh =
          log.instances.empty() || log.instances.back() != message.register_().agent_instance_id();
      log.instances.push_back(message.register_().agent_instance_id());
      log.authorization = Authorization(*context);
      // The first instance installs; one that booted discovery again is left alone.
      if (fresh && log.instances.size() == 1 && plans_.count(host_id)) plan = plans_[host_id];
    }
    v1::ServiceMessage registered;
    registered.mutable_registered()->set_accepted(true);
    registered.mutable_registered()->set_host_id(host_id);
    stream->Write(registered);
    if (plan.has_value()) {
      v1::ServiceMessage instruction;
      types::v1::Step& step = *instruction.mutable_instruction()->mutable_step();
      step.set_step_id("install-0000abcd");
      step.set_step_type(types::v1::STEP_TYPE_INSTALL);
      step.add_args(plan->dump());
      instruction.mutable_instruction()->set_controller_token(ControllerTokenFor(host_id));
      stream->Write(instruction);
    }
    while (stream->Read(&message)) {
      {
        absl::MutexLock lock(&mu_);
        HostLog& log = hosts_[host_id];
        if (message.has_progress()) {
          const HostStage stage = message.progress().current_stage();
          if (log.agent_stages.empty() || log.agent_stages.back() != stage) {
            log.agent_stages.push_back(stage);
          }
        }
        if (message.has_step_result()) log.exit_codes.push_back(message.step_result().exit_code());
      }
      v1::ServiceMessage ack;
      ack.mutable_ack()->set_up_to_seq(message.seq());
      stream->Write(ack);
    }
    return grpc::Status::OK;
  }

  grpc::Status UpdateHostProgress(grpc::ServerContext* context,
                                  const orchestrator::v1::UpdateHostProgressRequest* request,
                                  types::v1::Host*) override {
    absl::MutexLock lock(&mu_);
    hosts_[request->host_id()].controller.push_back(request->current_stage());
    hosts_[request->host_id()].controller_authorization = Authorization(*context);
    return grpc::Status::OK;
  }
  grpc::Status UpdateFinalizingProgress(
      grpc::ServerContext*, const orchestrator::v1::UpdateFinalizingProgressRequest* request,
      types::v1::Cluster*) override {
    absl::MutexLock lock(&mu_);
    finalizing_.push_back(request->finalizing_stage());
    return grpc::Status::OK;
  }
  grpc::Status CompleteInstallation(grpc::ServerContext*,
                                    const orchestrator::v1::CompleteInstallationRequest* request,
                                    types::v1::Cluster*) override {
    absl::MutexLock lock(&mu_);
    if (refuse_completion_) {
      refuse_completion_ = false;
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "cluster is not finalizing");
    }
    completed_.push_back(request->cluster_id());
    return grpc::Status::OK;
  }

  // Waits (on the lock, no polling) until `done(hosts, finalizing, completed)` or `timeout`.
  template <typename Done>
  bool Await(Done done, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return done(hosts_, finalizing_, completed_);
    };
    return mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
  }

  HostLog Host(const std::string& id) {
    absl::MutexLock lock(&mu_);
    return hosts_[id];
  }
  std::vector<types::v1::FinalizingStage> finalizing() {
    absl::MutexLock lock(&mu_);
    return finalizing_;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, nlohmann::json> plans_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, HostLog> hosts_ ABSL_GUARDED_BY(mu_);
  std::vector<types::v1::FinalizingStage> finalizing_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> completed_ ABSL_GUARDED_BY(mu_);
  bool refuse_completion_ ABSL_GUARDED_BY(mu_) = false;
};

class FleetInstallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    image_.assign(2 << 20, '\0');
    for (size_t i = 0; i < image_.size(); ++i) image_[i] = static_cast<char>(i * 7 % 253);
    std::ofstream(dir_ + "/os.img", std::ios::binary) << image_;
  }

  void StartServer(
      std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials()) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", credentials, &port_);
    builder.RegisterService(static_cast<v1::AgentService::Service*>(&fake_));
    builder.RegisterService(static_cast<orchestrator::v1::ControllerService::Service*>(&fake_));
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }

  void TearDown() override {
    if (fleet_ != nullptr) fleet_->Stop();
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
  }

  nlohmann::json Install(const std::string& host_id, const std::string& role, bool bootstrap) {
    return {
        {"cluster_id", "c0ffee00-0000-4000-8000-000000000001"},
        {"host_id", host_id},
        {"role", role},
        {"bootstrap", bootstrap},
        {"boot_device", "/dev/vda"},
        {"os_image", {{"url", "file://" + dir_ + "/os.img"}, {"sha256", steps::Sha256Hex(image_)}}},
        {"ignition",
         absl::StrCat(R"({"ignition":{"version":"3.2.0"},"host":")", host_id, R"("})")}};
  }

  Fleet::Options Options(const std::string& profile, int count) {
    Fleet::Options options;
    options.profile = profile;
    options.count = count;
    options.orchestrator_address = absl::StrCat("127.0.0.1:", port_);
    options.infra_env_id = "0a1b2c3d-4e5f-4789-8bcd-ef0123456789";
    options.agent_token = "fleet-token";
    options.state_dir = dir_ + "/state";
    options.step_threads = 2;
    return options;
  }

  std::string dir_;
  std::string image_;
  FakeOrchestrator fake_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::unique_ptr<Fleet> fleet_;
};

TEST_F(FleetInstallTest, HostsInstallReportTheirStagesAndTheControllerFinishes) {
  StartServer();
  fake_.RefuseCompletionOnce();  // the simulated controller must retry
  Fleet::Options options = Options(simulation::testing::ProfilePath("master"), 3);
  absl::Mutex mu;
  int registered = 0;
  auto observe = [&](const FleetEvent& e) {
    if (e.kind != FleetEvent::Kind::kRegistered) return;
    absl::MutexLock lock(&mu);
    ++registered;
  };
  // The ids are a pure function of profile, seed and index; plan with a first fleet's ids.
  options.seed = "install";
  {
    // Plans need the ids: a fleet of 3 reports them without connecting anywhere useful.
    Fleet::Options probe = options;
    probe.orchestrator_address = "127.0.0.1:1";
    auto ids = Fleet::Start(probe, nullptr, log::Logger::Discard());
    ASSERT_THAT(ids, IsOk());
    fake_.Plan((*ids)->host_id(0), Install((*ids)->host_id(0), "master", true));
    fake_.Plan((*ids)->host_id(1), Install((*ids)->host_id(1), "master", false));
    fake_.Plan((*ids)->host_id(2), Install((*ids)->host_id(2), "worker", false));
    (*ids)->Stop();
  }
  auto fleet = Fleet::Start(options, observe, log::Logger::Discard());
  ASSERT_THAT(fleet, IsOk());
  fleet_ = *std::move(fleet);
  const std::string bootstrap = fleet_->host_id(0);
  const std::string master = fleet_->host_id(1);
  const std::string worker = fleet_->host_id(2);

  ASSERT_TRUE(fake_.Await(
      [&](std::map<std::string, HostLog>& hosts, auto&, std::vector<std::string>& completed) {
        return !completed.empty() && hosts[master].controller.size() == 3 &&
               hosts[worker].controller.size() == 4;
      },
      absl::Seconds(60)))
      << fleet_->Records();

  {
    absl::MutexLock lock(&mu);
    EXPECT_GE(registered, 3);
  }
  using namespace types::v1;  // NOLINT: stage names read as the reference's lists
  EXPECT_THAT(fake_.Host(bootstrap).agent_stages,
              ElementsAre(HOST_STAGE_STARTING_INSTALLATION, HOST_STAGE_INSTALLING,
                          HOST_STAGE_WRITING_IMAGE_TO_DISK, HOST_STAGE_WAITING_FOR_CONTROL_PLANE,
                          HOST_STAGE_WAITING_FOR_BOOTKUBE, HOST_STAGE_WAITING_FOR_CONTROLLER,
                          HOST_STAGE_REBOOTING));
  EXPECT_THAT(fake_.Host(master).agent_stages,
              ElementsAre(HOST_STAGE_STARTING_INSTALLATION, HOST_STAGE_INSTALLING,
                          HOST_STAGE_WRITING_IMAGE_TO_DISK, HOST_STAGE_REBOOTING));
  EXPECT_THAT(fake_.Host(worker).agent_stages,
              ElementsAre(HOST_STAGE_STARTING_INSTALLATION, HOST_STAGE_INSTALLING,
                          HOST_STAGE_WRITING_IMAGE_TO_DISK, HOST_STAGE_WAITING_FOR_CONTROL_PLANE,
                          HOST_STAGE_REBOOTING));
  EXPECT_THAT(fake_.Host(bootstrap).controller,
              ElementsAre(HOST_STAGE_CONFIGURING, HOST_STAGE_JOINED, HOST_STAGE_DONE));
  EXPECT_THAT(fake_.Host(master).controller,
              ElementsAre(HOST_STAGE_CONFIGURING, HOST_STAGE_JOINED, HOST_STAGE_DONE));
  EXPECT_THAT(fake_.Host(worker).controller,
              ElementsAre(HOST_STAGE_WAITING_FOR_IGNITION, HOST_STAGE_CONFIGURING,
                          HOST_STAGE_JOINED, HOST_STAGE_DONE));
  EXPECT_THAT(
      fake_.finalizing(),
      ElementsAre(FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS, FINALIZING_STAGE_ADDING_ROUTER_CA,
                  FINALIZING_STAGE_APPLYING_OLM_MANIFESTS,
                  FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION,
                  FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV, FINALIZING_STAGE_DONE));
  for (const std::string& id : {bootstrap, master, worker}) {
    const HostLog log = fake_.Host(id);
    EXPECT_THAT(log.exit_codes, ElementsAre(0)) << id;
    EXPECT_EQ(log.instances.size(), 1u) << id;  // the discovery agent never came back
    EXPECT_EQ(log.authorization, "Bearer fleet-token");
    // After the reboot the controller presents its install step's token, not the agent's.
    EXPECT_EQ(log.controller_authorization, "Bearer " + ControllerTokenFor(id));
  }
  // Each disk holds the OS image and that host's Ignition.
  for (int i = 0; i < 3; ++i) {
    auto disk = steps::ReadInstalledDisk(absl::StrCat(dir_, "/state/master-", i, ".img"));
    ASSERT_THAT(disk, IsOk());
    EXPECT_EQ(disk->os_image_sha256, steps::Sha256Hex(image_));
    EXPECT_EQ(disk->host_id, fleet_->host_id(i));
    EXPECT_THAT(disk->ignition, ::testing::HasSubstr(fleet_->host_id(i)));
  }
  // The agents' books: the Rebooting progress went out and was acknowledged.
  const nlohmann::json records = nlohmann::json::parse(fleet_->Records());
  for (const nlohmann::json& agent : records) {
    const nlohmann::json& sent = agent["sent"];
    ASSERT_FALSE(sent.empty());
    EXPECT_EQ(sent.back()["stage"], "HOST_STAGE_REBOOTING");
    EXPECT_EQ(agent["acknowledged_up_to"], sent.back()["seq"]);
    EXPECT_FALSE(agent["reported"].empty());
  }
}

TEST_F(FleetInstallTest, AHostThatBootsDiscoveryAgainRegistersAsANewInstance) {
  StartServer();
  // The master profile with the knob on, its tree found from the shipped profile.
  const std::string shipped = simulation::testing::ProfilePath("master");
  nlohmann::json profile = nlohmann::json::parse(std::ifstream(shipped));
  profile["reboot_into_discovery"] = true;
  profile["hardware_root"] =
      (std::filesystem::canonical(shipped).parent_path() / "../hosts/vm").lexically_normal();
  std::ofstream(dir_ + "/profile.json") << profile.dump();

  Fleet::Options options = Options(dir_ + "/profile.json", 1);
  {
    Fleet::Options probe = options;
    probe.orchestrator_address = "127.0.0.1:1";
    auto ids = Fleet::Start(probe, nullptr, log::Logger::Discard());
    ASSERT_THAT(ids, IsOk());
    fake_.Plan((*ids)->host_id(0), Install((*ids)->host_id(0), "worker", false));
    (*ids)->Stop();
  }
  auto fleet = Fleet::Start(options, nullptr, log::Logger::Discard());
  ASSERT_THAT(fleet, IsOk());
  fleet_ = *std::move(fleet);
  const std::string id = fleet_->host_id(0);
  ASSERT_TRUE(fake_.Await([&](std::map<std::string, HostLog>& hosts, auto&,
                              auto&) { return hosts[id].instances.size() == 2; },
                          absl::Seconds(30)));
  const HostLog log = fake_.Host(id);
  EXPECT_NE(log.instances[0], log.instances[1]);
  EXPECT_TRUE(log.controller.empty());  // no installed OS came up
  const nlohmann::json records = nlohmann::json::parse(fleet_->Records());
  EXPECT_EQ(records[0]["previous_instances"].size(), 1u);
  EXPECT_EQ(records[0]["previous_instances"][0]["instance_id"], log.instances[0]);
}

// TLS with a CA made by openssl in the test; the token travels as "authorization: Bearer".
TEST_F(FleetInstallTest, ConnectsOverTlsWithACaBundle) {
  process::LocalProcessRunner openssl;
  auto run = [&](std::vector<std::string> argv) {
    auto ran = openssl.Run({.argv = std::move(argv)});
    ASSERT_THAT(ran, IsOk());
    ASSERT_EQ(ran->exit_code, 0) << ran->stderr_data;
  };
  run({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
       "/CN=test-ca", "-keyout", dir_ + "/ca.key", "-out", dir_ + "/ca.pem"});
  run({"openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout",
       dir_ + "/server.key", "-out", dir_ + "/server.csr"});
  std::ofstream(dir_ + "/ext.cnf") << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
  run({"openssl", "x509", "-req", "-in", dir_ + "/server.csr", "-CA", dir_ + "/ca.pem", "-CAkey",
       dir_ + "/ca.key", "-CAcreateserial", "-days", "1", "-extfile", dir_ + "/ext.cnf", "-out",
       dir_ + "/server.pem"});
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({read(dir_ + "/server.key"), read(dir_ + "/server.pem")});
  StartServer(grpc::SslServerCredentials(ssl));

  absl::Mutex mu;
  bool registered = false;
  Fleet::Options options = Options(simulation::testing::ProfilePath("worker"), 1);
  options.channel.ca_bundle_file = dir_ + "/ca.pem";
  auto fleet = Fleet::Start(
      options,
      [&](const FleetEvent& e) {
        if (e.kind != FleetEvent::Kind::kRegistered) return;
        absl::MutexLock lock(&mu);
        registered = true;
      },
      log::Logger::Discard());
  ASSERT_THAT(fleet, IsOk());
  fleet_ = *std::move(fleet);
  {
    absl::MutexLock lock(&mu);
    EXPECT_TRUE(mu.AwaitWithTimeout(absl::Condition(&registered), absl::Seconds(20)));
  }
  EXPECT_EQ(fake_.Host(fleet_->host_id(0)).authorization, "Bearer fleet-token");
}

}  // namespace
}  // namespace assisted::agent
