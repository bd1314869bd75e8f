// The post-reboot reports against a fake ControllerService served in this process over gRPC.
#include "services/agent/post_reboot.h"

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::agent {
namespace {

namespace ov1 = orchestrator::v1;
using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kToken[] = "controller-token-for-c1";

// Records each call as "<rpc> <what>" with its authorization; refuses CompleteInstallation
// `refusals` times first, as the orchestrator does before the cluster is finalizing.
class FakeController final : public ov1::ControllerService::Service {
 public:
  explicit FakeController(int refusals = 0) : refusals_(refusals) {}

  grpc::Status UpdateHostProgress(grpc::ServerContext* context,
                                  const ov1::UpdateHostProgressRequest* request,
                                  types::v1::Host*) override {
    return Record(*context, absl::StrCat("host ", request->infra_env_id(), "/", request->host_id(),
                                         " ", types::v1::HostStage_Name(request->current_stage())));
  }
  grpc::Status UpdateFinalizingProgress(grpc::ServerContext* context,
                                        const ov1::UpdateFinalizingProgressRequest* request,
                                        types::v1::Cluster*) override {
    return Record(*context,
                  absl::StrCat("finalizing ", request->cluster_id(), " ",
                               types::v1::FinalizingStage_Name(request->finalizing_stage())));
  }
  grpc::Status ReportOperatorStatus(grpc::ServerContext* context,
                                    const ov1::ReportOperatorStatusRequest* request,
                                    types::v1::Cluster*) override {
    return Record(*context, absl::StrCat("operator ", request->cluster_id(), " ", request->name(),
                                         " ", types::v1::OperatorStatus_Name(request->status())));
  }
  grpc::Status CompleteInstallation(grpc::ServerContext* context,
                                    const ov1::CompleteInstallationRequest* request,
                                    types::v1::Cluster*) override {
    {
      absl::MutexLock lock(&mu_);
      if (refusals_ > 0) {
        --refusals_;
        ++refused_;
        return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "cluster is not finalizing");
      }
    }
    return Record(*context, absl::StrCat("complete ", request->cluster_id(), " ",
                                         request->is_success() ? "success" : "failure"));
  }

  std::vector<std::string> calls() {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  std::vector<std::string> authorizations() {
    absl::MutexLock lock(&mu_);
    return authorizations_;
  }
  int refused() {
    absl::MutexLock lock(&mu_);
    return refused_;
  }

 private:
  grpc::Status Record(const grpc::ServerContext& context, std::string call) {
    auto it = context.client_metadata().find("authorization");
    absl::MutexLock lock(&mu_);
    calls_.push_back(std::move(call));
    authorizations_.push_back(it == context.client_metadata().end()
                                  ? ""
                                  : std::string(it->second.data(), it->second.size()));
    return grpc::Status::OK;
  }

  absl::Mutex mu_;
  int refusals_ ABSL_GUARDED_BY(mu_);
  int refused_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> calls_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> authorizations_ ABSL_GUARDED_BY(mu_);
};

// What the fake records from cluster c1's single host h1, reporting `operators`.
std::vector<std::string> SingleNodeCalls(const std::vector<std::string>& operators) {
  std::vector<std::string> calls = {"host ie1/h1 HOST_STAGE_JOINED", "host ie1/h1 HOST_STAGE_DONE",
                                    "finalizing c1 FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS",
                                    "finalizing c1 FINALIZING_STAGE_ADDING_ROUTER_CA",
                                    "finalizing c1 FINALIZING_STAGE_APPLYING_OLM_MANIFESTS"};
  for (const std::string& op : operators) {
    calls.push_back(absl::StrCat("operator c1 ", op, " OPERATOR_STATUS_PROGRESSING"));
  }
  calls.push_back("finalizing c1 FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION");
  calls.push_back("finalizing c1 FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV");
  for (const std::string& op : operators) {
    calls.push_back(absl::StrCat("operator c1 ", op, " OPERATOR_STATUS_AVAILABLE"));
  }
  calls.push_back("finalizing c1 FINALIZING_STAGE_DONE");
  calls.push_back("complete c1 success");
  return calls;
}

class PostRebootTest : public ::testing::Test {
 protected:
  void Serve(FakeController& fake) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&fake);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  steps::ReporterSettings Settings(const std::string& role, bool bootstrap, bool sno) const {
    steps::ReporterSettings settings;
    settings.access = {.orchestrator_address = absl::StrCat("127.0.0.1:", port_),
                       .controller_token = kToken,
                       .infra_env_id = "ie1"};
    settings.cluster_id = "c1";
    settings.host_id = "h1";
    settings.role = role;
    settings.bootstrap = bootstrap;
    settings.sno = sno;
    return settings;
  }

  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(PostRebootTest, SingleNodeHostReportsJoinedDoneFinalizingAndCompletesTheCluster) {
  FakeController fake;
  Serve(fake);
  ASSERT_THAT(
      ReportAll(Settings("master", /*bootstrap=*/true, /*sno=*/true), {}, log::Logger::Discard()),
      IsOk());
  EXPECT_EQ(fake.calls(), SingleNodeCalls({}));
  EXPECT_THAT(fake.authorizations(), Each(absl::StrCat("Bearer ", kToken)));
}

// The controller's part for OLM operators: each progressing once the manifests are applied,
// available before the finalizing Done, so the cluster can be installed.
TEST_F(PostRebootTest, TheBootstrapHostReportsEachOlmOperatorProgressingThenAvailable) {
  FakeController fake;
  Serve(fake);
  steps::ReporterSettings settings = Settings("master", /*bootstrap=*/true, /*sno=*/true);
  settings.olm_operators = {"lso", "lvm"};
  ASSERT_THAT(ReportAll(settings, {}, log::Logger::Discard()), IsOk());
  EXPECT_EQ(fake.calls(), SingleNodeCalls({"lso", "lvm"}));
}

TEST_F(PostRebootTest, WorkerReportsItsStagesOnly) {
  FakeController fake;
  Serve(fake);
  ASSERT_THAT(ReportAll(Settings("worker", false, false), {}, log::Logger::Discard()), IsOk());
  EXPECT_THAT(fake.calls(),
              ElementsAre("host ie1/h1 HOST_STAGE_WAITING_FOR_IGNITION",
                          "host ie1/h1 HOST_STAGE_CONFIGURING", "host ie1/h1 HOST_STAGE_JOINED",
                          "host ie1/h1 HOST_STAGE_DONE"));
}

TEST_F(PostRebootTest, RefusedCompletionIsRetriedUntilAccepted) {
  FakeController fake(/*refusals=*/2);
  Serve(fake);
  ASSERT_THAT(ReportAll(Settings("master", true, true), {}, log::Logger::Discard()), IsOk());
  EXPECT_EQ(fake.refused(), 2);
  EXPECT_EQ(fake.calls().back(), "complete c1 success");
}

TEST_F(PostRebootTest, AReportRefusedForTooLongEndsWithWhatWasRefused) {
  FakeController fake(/*refusals=*/1000);
  Serve(fake);
  EXPECT_THAT(ReportAll(Settings("master", true, true), {.give_up_after = absl::Milliseconds(300)},
                        log::Logger::Discard()),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       HasSubstr("CompleteInstallation: cluster is not finalizing")));
}

TEST(PostRebootReportsTest, RetryDelayGrowsAndIsBounded) {
  EXPECT_EQ(RetryDelay(0), absl::Milliseconds(100));
  EXPECT_EQ(RetryDelay(4), absl::Milliseconds(500));
  EXPECT_EQ(RetryDelay(1000), absl::Seconds(5));
}

}  // namespace
}  // namespace assisted::agent
