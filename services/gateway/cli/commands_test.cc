#include "services/gateway/cli/commands.h"

#include <cstdio>
#include <filesystem>
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

// A config file of its own per test, in a fresh folder.
config::Environment ConfigIn(const std::string& name) {
  const std::string dir = absl::StrCat(::testing::TempDir(), "/", name);
  std::filesystem::remove_all(dir);
  return {{"XDG_CONFIG_HOME", dir}};
}

TEST(AictlContexts, ASetContextIsUsedByLaterCommandsAndFlagsWinOverIt) {
  const config::Environment env = ConfigIn("contexts-used");
  const std::string token_file = absl::StrCat(::testing::TempDir(), "/lab.token");
  std::ofstream(token_file) << "t0k\n";
  ASSERT_EQ(RunAictl({"config", "set-context", "lab", "--server=http://127.0.0.1:1",
                      "--token-file=" + token_file},
                     env)
                .code,
            0);
  ASSERT_EQ(RunAictl({"config", "set-context", "other", "--server=http://127.0.0.1:2"}, env).code,
            0);
  // The first context written became the current one.
  EXPECT_EQ(RunAictl({"config", "current-context"}, env).out, "lab\n");
  const Outcome listed = RunAictl({"config", "get-contexts"}, env);
  EXPECT_THAT(listed.out, HasSubstr("*        lab"));
  EXPECT_THAT(listed.out, HasSubstr("other"));
  EXPECT_EQ(RunAictl({"-o", "name", "config", "get-contexts"}, env).out, "lab\nother\n");

  Outcome list = RunAictl({"clusters", "list"}, env);
  EXPECT_EQ(list.code, 5);
  EXPECT_THAT(list.err, HasSubstr("http://127.0.0.1:1"));
  list = RunAictl({"--context=other", "clusters", "list"}, env);
  EXPECT_THAT(list.err, HasSubstr("http://127.0.0.1:2"));
  list = RunAictl({"--server=http://127.0.0.1:3", "clusters", "list"}, env);
  EXPECT_THAT(list.err, HasSubstr("http://127.0.0.1:3"));

  ASSERT_EQ(RunAictl({"config", "use-context", "other"}, env).code, 0);
  EXPECT_THAT(RunAictl({"clusters", "list"}, env).err, HasSubstr("http://127.0.0.1:2"));
  ASSERT_EQ(RunAictl({"config", "delete-context", "other"}, env).code, 0);
  EXPECT_EQ(RunAictl({"config", "current-context"}, env).code, 1);
  EXPECT_EQ(RunAictl({"config", "use-context", "gone"}, env).code, 1);
}

TEST(AictlContexts, WrongContextsAndTokensAreUsageErrorsNamingTheProblem) {
  const config::Environment env = ConfigIn("contexts-wrong");
  Outcome outcome = RunAictl({"--context=nowhere", "clusters", "list"}, env);
  EXPECT_EQ(outcome.code, 2);
  EXPECT_THAT(outcome.err, HasSubstr("no context \"nowhere\""));
  outcome = RunAictl({"--token=a", "--token-file=/x", "clusters", "list"}, env);
  EXPECT_EQ(outcome.code, 2);
  EXPECT_THAT(outcome.err, HasSubstr("not both"));
  outcome = RunAictl({"--token-file=/nonexistent/token", "clusters", "list"}, env);
  EXPECT_EQ(outcome.code, 2);
  EXPECT_THAT(outcome.err, HasSubstr("/nonexistent/token"));
}

TEST(AictlContexts, ABrokenConfigFileIsNamedAndLocalCommandsStillWork) {
  const config::Environment env = ConfigIn("contexts-broken");
  const std::string file = env.at("XDG_CONFIG_HOME") + "/aictl/config.yaml";
  std::filesystem::create_directories(env.at("XDG_CONFIG_HOME") + "/aictl");
  for (const auto& [text, problem] : std::vector<std::pair<std::string, std::string>>{
           {"contexts:\n- name: a\n  sever: http://x\n", "unknown key \"sever\""},
           {"contexts:\n- server: http://x\n", "no name"},
           {"contexts:\n- name: a\n- name: a\n", "a second context named \"a\""},
           {"current-context: b\ncontexts:\n- name: a\n", "names no context"},
           {"contexts: [\n", "not valid"},
           {"contexts:\n- name: [1]\n", "is not a string"}}) {
    std::ofstream(file) << text;
    const Outcome outcome = RunAictl({"clusters", "list"}, env);
    EXPECT_EQ(outcome.code, 2) << text;
    EXPECT_THAT(outcome.err, HasSubstr(problem)) << text;
    EXPECT_THAT(outcome.err, HasSubstr(file)) << text;
    EXPECT_EQ(RunAictl({"version"}, env).code, 0);
  }
}

TEST(AictlOutput, YamlAndNameFormats) {
  const Outcome yaml = RunAictl({"-o", "yaml", "health", "127.0.0.1:1", "--timeout=300ms"});
  EXPECT_THAT(yaml.out, HasSubstr("- address: 127.0.0.1:1\n  status: UNAVAILABLE"));
  EXPECT_EQ(RunAictl({"-o", "xml", "version"}).code, 2);
}

// What bash completes for `line` (the cursor at its end) with aictl's completion script.
std::string Completed(const std::string& script, const std::string& line) {
  const std::string file = absl::StrCat(::testing::TempDir(), "/aictl-completion.bash");
  std::ofstream(file) << script;
  const std::string command =
      absl::StrCat("bash -c 'source ", file, "; COMP_WORDS=(", line,
                   "); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); ", "_aictl; echo \"${COMPREPLY[*]}\"'");
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r"); pipe != nullptr) {
    char buffer[4096];
    size_t got;
    while ((got = fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, got);
    pclose(pipe);
  }
  return std::string(absl::StripAsciiWhitespace(out));
}

TEST(AictlCompletion, BashCompletesCommandsFlagsAndFormats) {
  const Outcome outcome = RunAictl({"completion", "bash"});
  ASSERT_EQ(outcome.code, 0) << outcome.err;
  EXPECT_THAT(outcome.out, HasSubstr("complete -F _aictl aictl"));
  EXPECT_EQ(Completed(outcome.out, "aictl clus"), "clusters");
  EXPECT_THAT(Completed(outcome.out, "aictl clusters cre"), "create");
  EXPECT_THAT(Completed(outcome.out, "aictl --server http://x clusters l"), "list");
  EXPECT_THAT(Completed(outcome.out, "aictl clusters create --pull-secret"), "--pull-secret-file");
  EXPECT_THAT(Completed(outcome.out, "aictl -o y"), "yaml");
  EXPECT_THAT(Completed(outcome.out, "aictl --cont"), "--context");
  EXPECT_EQ(RunAictl({"completion", "zsh"}).code, 2);
}

}  // namespace
}  // namespace assisted::cli
