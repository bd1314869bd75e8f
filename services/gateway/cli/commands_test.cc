#include "services/gateway/cli/commands.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/gateway/jwt.h"

namespace assisted::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome RunAictl(std::vector<std::string> args, config::Environment env = {}) {
  std::ostringstream out, err;
  const int code = Run(args, env, {out, err});
  return {code, out.str(), err.str()};
}

TEST(Aictl, HelpListsGlobalFlagsAndCommands) {
  const Outcome outcome = RunAictl({"--help"});
  EXPECT_EQ(outcome.code, 0);
  EXPECT_THAT(outcome.out, HasSubstr("--server"));
  EXPECT_THAT(outcome.out, HasSubstr("[AICTL_SERVER]"));
  EXPECT_THAT(outcome.out, HasSubstr("Commands"));
  EXPECT_THAT(outcome.out, HasSubstr("version"));
}

TEST(Aictl, EveryCommandAnswersHelp) {
  const Outcome outcome = RunAictl({"version", "--help"});
  EXPECT_EQ(outcome.code, 0);
  EXPECT_THAT(outcome.out, StartsWith("Usage: aictl version"));
}

TEST(Aictl, VersionPrintsTheRelease) {
  EXPECT_THAT(RunAictl({"version"}).out, StartsWith("aictl 0."));
  EXPECT_THAT(RunAictl({"--version"}).out, StartsWith("aictl 0."));
}

TEST(Aictl, UsageErrorsExitTwoWithOneLine) {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{},
                                             {"frobnicate"},
                                             {"--bogus"},
                                             {"--output=xml", "version"},
                                             {"version", "--x"},
                                             {"infra-envs", "regenerate-signing-key"},
                                             {"infra-envs", "regenerate-signing-key", "a", "b"}}) {
    const Outcome outcome = RunAictl(args);
    EXPECT_EQ(outcome.code, 2) << args.size();
    EXPECT_THAT(outcome.err, StartsWith("aictl"));
    EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
  }
}

TEST(Aictl, IssuedTokensCarryTheIssuerAndAudienceAGatewayMayExpect) {
  constexpr char kSecret[] = "0123456789abcdef0123456789abcdef";
  const std::string secret_file = absl::StrCat(::testing::TempDir(), "/jwt.key");
  std::ofstream(secret_file) << kSecret;
  const Outcome outcome =
      RunAictl({"token", "issue", "--secret-file=" + secret_file, "--user=José", "--org=acme",
                "--issuer=https://sso.example.com", "--audience=assisted"});
  ASSERT_EQ(outcome.code, 0) << outcome.err;
  auto verifier = gateway::JwtVerifier::Create(
      kSecret, "", {.issuer = "https://sso.example.com", .audience = "assisted"});
  ASSERT_TRUE(verifier.ok()) << verifier.status();
  absl::StatusOr<nlohmann::json> claims =
      (*verifier)->Verify(absl::StripAsciiWhitespace(outcome.out), absl::Now());
  ASSERT_TRUE(claims.ok()) << claims.status();
  EXPECT_EQ((*claims)["username"], "José");
}

TEST(Aictl, HealthReportsUnreachableServicesAndFails) {
  const Outcome outcome = RunAictl({"-output", "json", "health", "127.0.0.1:1", "--timeout=300ms"});
  EXPECT_EQ(outcome.code, 1);
  EXPECT_THAT(outcome.out, HasSubstr("\"address\": \"127.0.0.1:1\""));
  EXPECT_THAT(outcome.out, HasSubstr("\"status\": \"UNAVAILABLE\""));
}

TEST(Aictl, OutputFlagMayFollowTheCommand) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"health", "127.0.0.1:1", "--timeout=300ms", "-o", "json"},
           {"health", "-ojson", "127.0.0.1:1", "--timeout=300ms"},
           {"health", "--output=json", "127.0.0.1:1", "--timeout=300ms"}}) {
    const Outcome outcome = RunAictl(args);
    EXPECT_EQ(outcome.code, 1) << outcome.err;
    EXPECT_THAT(outcome.out, HasSubstr("\"address\": \"127.0.0.1:1\""));
  }
}

TEST(Aictl, CommandFamiliesListTheirSubcommands) {
  const Outcome outcome = RunAictl({"clusters"});
  EXPECT_EQ(outcome.code, 2);
  EXPECT_THAT(outcome.err, HasSubstr("create"));
  EXPECT_THAT(outcome.err, HasSubstr("install"));
  const Outcome help = RunAictl({"clusters", "create", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("--pull-secret-file"));
}

TEST(Aictl, UnreachableGatewayExitsFive) {
  const Outcome outcome = RunAictl({"--server=http://127.0.0.1:1", "clusters", "list"});
  EXPECT_EQ(outcome.code, 5);
  EXPECT_THAT(outcome.err, HasSubstr("cannot reach"));
}

TEST(Aictl, RestCommandsCheckTheirArguments) {
  EXPECT_EQ(RunAictl({"hosts", "list"}).code, 2);  // neither --cluster nor --infra-env
  EXPECT_EQ(RunAictl({"clusters", "get"}).code, 2);
  EXPECT_EQ(RunAictl({"wait", "x", "--for=done"}).code, 2);
  EXPECT_EQ(RunAictl({"hosts", "list", "--cluster=not-a-uuid"}).code, 2);
}

TEST(Aictl, ServerComesFromTheEnvironment) {
  const Outcome outcome = RunAictl({"--output=wrong"}, {{"AICTL_SERVER", "http://x:1"}});
  EXPECT_EQ(outcome.code, 2);
  EXPECT_THAT(outcome.err, HasSubstr("--output"));
}

}  // namespace
}  // namespace assisted::cli
