#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/http/server.h"
#include "lib/iso/test_image.h"
#include "lib/log/log.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/commands.h"
#include "services/gateway/cli/rest_client.h"

namespace assisted::cli {
namespace {

using ::assisted::testing::IsOk;
using ::testing::HasSubstr;

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome RunAictl(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = Run(args, {}, {out, err});
  return {code, out.str(), err.str()};
}

std::string TestTmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

// DIR holding seed 002's files, the first `from` in agent-config.yaml replaced by `to`.
std::string SeedDir(const std::string& name, const std::string& from = "",
                    const std::string& to = "") {
  const std::string dir = absl::StrCat(TestTmpDir(), "/", name);
  std::filesystem::create_directories(dir);
  for (const char* file : {"install-config.yaml", "agent-config.yaml"}) {
    absl::StatusOr<std::string> text =
        ReadFile(absl::StrCat("services/gateway/cli/agent/testdata/seed002_", file), "testdata");
    EXPECT_THAT(text, IsOk());
    std::string contents = text.value_or("");
    if (!from.empty() && std::string(file) == "agent-config.yaml") {
      contents.replace(contents.find(from), from.size(), to);
    }
    std::ofstream(absl::StrCat(dir, "/", file)) << contents;
  }
  return dir;
}

std::string BaseIso() {
  const std::string path = absl::StrCat(TestTmpDir(), "/base.iso");
  if (!std::filesystem::exists(path)) {
    process::LocalProcessRunner runner;
    EXPECT_THAT(iso::BuildTestImage(runner, {}, absl::StrCat(TestTmpDir(), "/tree"), path), IsOk());
  }
  return path;
}

TEST(AictlAgent, CreateImagePrintsTheIsoPathAndNamesNodeZero) {
  const std::string dir = SeedDir("ok");
  const Outcome outcome =
      RunAictl({"agent", "create", "image", "--dir", dir, "--base-iso", BaseIso()});
  EXPECT_EQ(outcome.code, 0) << outcome.err;
  EXPECT_EQ(outcome.out, absl::StrCat(dir, "/agent.x86_64.iso\n"));
  EXPECT_THAT(outcome.err, HasSubstr("the one at 192.168.0.116 (node 0)"));
  EXPECT_TRUE(std::filesystem::exists(absl::StrCat(dir, "/agent.x86_64.iso")));
}

TEST(AictlAgent, CreateImageListsEveryProblemOnItsOwnLineAndExitsOne) {
  const std::string dir = SeedDir("bad", "rendezvousIP: 192.168.0.116", "rendezvousIP: 10.1.1.1");
  const Outcome outcome =
      RunAictl({"agent", "create", "image", "--dir", dir, "--base-iso", BaseIso()});
  EXPECT_EQ(outcome.code, 1);
  EXPECT_THAT(outcome.err, HasSubstr("aictl agent create image: 2 problems:\n"
                                     "  agent-config.yaml: spec.rendezvousIP: 10.1.1.1 is outside "
                                     "install-config.yaml's machineNetwork (192.168.0.0/24)\n"));
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir, "/agent.x86_64.iso")));
}

TEST(AictlAgent, CreateClusterManifestsPrintsTheFilesWritten) {
  const std::string dir = SeedDir("manifests");
  const Outcome outcome = RunAictl({"agent", "create", "cluster-manifests", "--dir", dir});
  EXPECT_EQ(outcome.code, 0) << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr(absl::StrCat(dir, "/cluster-manifests/infraenv.yaml\n")));
}

TEST(AictlAgent, CreatePxeFilesIsRefusedNamingTheFlagWithoutABaseUrl) {
  const std::string dir = SeedDir("pxe-no-url");
  const Outcome outcome = RunAictl({"agent", "create", "pxe-files", "--dir", dir});
  EXPECT_EQ(outcome.code, 1) << outcome.err;
  EXPECT_THAT(outcome.err, HasSubstr("--boot-artifacts-base-url"));
}

TEST(AictlAgent, CreateNeedsAKnownTarget) {
  EXPECT_EQ(RunAictl({"agent", "create", "boot-floppy"}).code, 2);
  const Outcome family = RunAictl({"agent"});
  EXPECT_EQ(family.code, 2);
  EXPECT_THAT(family.err, HasSubstr("expected one of create"));
}

TEST(AictlAgent, HelpListsTheFlags) {
  const Outcome help = RunAictl({"agent", "create", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("--dir"));
  EXPECT_THAT(help.out, HasSubstr("--base-iso"));
}

// Node 0's gateway as wait-for sees it: the cluster is missing for the first `missing_reads`
// reads, then takes the statuses in `statuses` one read at a time, staying at the last.
class FakeNodeZero {
 public:
  FakeNodeZero(int missing_reads, std::vector<std::string> statuses)
      : missing_reads_(missing_reads), statuses_(std::move(statuses)) {
    http::Router router;
    const std::string cluster = absl::StrCat(kApiPrefix, "/clusters/", kClusterId);
    EXPECT_THAT(router.Handle("GET", cluster,
                              [this](const http::Request& request) { return Cluster(request); }),
                IsOk());
    EXPECT_THAT(router.Handle("GET", cluster + "/hosts",
                              [](const http::Request&) { return http::Response::Json(200, "[]"); }),
                IsOk());
    http::HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    auto server =
        http::HttpServer::Start(options, std::move(router), nullptr, log::Logger::Discard());
    EXPECT_THAT(server, IsOk());
    server_ = *std::move(server);
  }

  std::string url() const { return absl::StrCat("http://127.0.0.1:", server_->port()); }
  int reads() const {
    absl::MutexLock lock(&mu_);
    return reads_;
  }
  std::string authorization() const {
    absl::MutexLock lock(&mu_);
    return authorization_;
  }

  static constexpr char kClusterId[] = "9b7a7c36-0e5a-4c55-9c6b-1f2d3e4f5a6b";

 private:
  http::Response Cluster(const http::Request& request) {
    absl::MutexLock lock(&mu_);
    authorization_ = std::string(request.headers.Get("authorization").value_or(""));
    const int read = reads_++;
    if (read < missing_reads_) {
      return http::Response::Json(404, R"({"kind":"Error","reason":"no such cluster"})");
    }
    const size_t index = std::min<size_t>(read - missing_reads_, statuses_.size() - 1);
    return http::Response::Json(
        200,
        nlohmann::json{{"id", kClusterId}, {"name", "kni22"}, {"status", statuses_[index]}}.dump());
  }

  const int missing_reads_;
  const std::vector<std::string> statuses_;
  mutable absl::Mutex mu_;
  int reads_ ABSL_GUARDED_BY(mu_) = 0;
  std::string authorization_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<http::HttpServer> server_;
};

// An asset folder whose state file points at `gateway_url`.
std::string StateDir(const std::string& name, const std::string& gateway_url) {
  const std::string dir = absl::StrCat(TestTmpDir(), "/", name);
  std::filesystem::create_directories(dir);
  std::ofstream(absl::StrCat(dir, "/.assisted-agent-state.json")) << nlohmann::json{
      {"cluster_name", "kni22"},
      {"cluster_id", FakeNodeZero::kClusterId},
      {"gateway_url", gateway_url},
      {"gateway_jwt_secret", std::string(64, 'a')},
      {"expected_hosts", 3}}.dump();
  return dir;
}

TEST(AictlAgentWaitFor, InstallCompleteWaitsForNodeZeroToCreateTheClusterThenUntilInstalled) {
  FakeNodeZero node_zero(2, {"installing", "installing", "finalizing", "installed"});
  const Outcome outcome =
      RunAictl({"agent", "wait-for", "install-complete", "--dir",
                StateDir("install", node_zero.url()), "--interval=100ms", "--timeout=1m"});
  EXPECT_EQ(outcome.code, 0) << outcome.err;
  EXPECT_THAT(outcome.err, HasSubstr("node 0 answers; waiting for it to create cluster kni22"));
  EXPECT_THAT(outcome.out, HasSubstr("cluster kni22: installing"));
  EXPECT_THAT(outcome.out, HasSubstr("cluster kni22: installed"));
  EXPECT_THAT(node_zero.authorization(), ::testing::StartsWith("Bearer ey"));
}

TEST(AictlAgentWaitFor, BootstrapCompleteEndsWhenTheControlPlaneIsUp) {
  FakeNodeZero node_zero(0, {"installing", "finalizing", "installed"});
  const Outcome outcome =
      RunAictl({"agent", "wait-for", "bootstrap-complete", "--dir",
                StateDir("bootstrap", node_zero.url()), "--interval=100ms", "--timeout=1m"});
  EXPECT_EQ(outcome.code, 0) << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("cluster kni22: finalizing"));
  EXPECT_THAT(outcome.out, ::testing::Not(HasSubstr("cluster kni22: installed")));
}

TEST(AictlAgentWaitFor, ExitsOneWhenTheInstallationFails) {
  FakeNodeZero node_zero(0, {"installing", "error"});
  const Outcome outcome =
      RunAictl({"agent", "wait-for", "install-complete", "--dir",
                StateDir("failed", node_zero.url()), "--interval=100ms", "--timeout=1m"});
  EXPECT_EQ(outcome.code, 1);
  EXPECT_THAT(outcome.err, HasSubstr("is error"));
}

TEST(AictlAgentWaitFor, ExitsThreeWhenNodeZeroNeverAnswers) {
  // Port 1 on loopback: nothing listens there.
  const Outcome outcome =
      RunAictl({"agent", "wait-for", "install-complete", "--dir",
                StateDir("down", "http://127.0.0.1:1"), "--interval=100ms", "--timeout=1s"});
  EXPECT_EQ(outcome.code, 3);
  EXPECT_THAT(outcome.err, HasSubstr("waiting for node 0 at http://127.0.0.1:1"));
}

TEST(AictlAgentWaitFor, NeedsTheStateFileOfCreateImage) {
  const std::string dir = absl::StrCat(TestTmpDir(), "/no-state");
  std::filesystem::create_directories(dir);
  const Outcome outcome = RunAictl({"agent", "wait-for", "install-complete", "--dir", dir});
  EXPECT_EQ(outcome.code, 1);
  EXPECT_THAT(outcome.err, HasSubstr("run aictl agent create image first"));
  EXPECT_EQ(RunAictl({"agent", "wait-for", "forever", "--dir", dir}).code, 2);
}

}  // namespace
}  // namespace assisted::cli
