#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/iso/test_image.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "services/gateway/cli/commands.h"

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

TEST(AictlAgent, CreateNeedsAKnownTarget) {
  EXPECT_EQ(RunAictl({"agent", "create", "pxe-files"}).code, 2);
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

}  // namespace
}  // namespace assisted::cli
