// Every binary documents itself with --help and --version, and refuses a bad command line with
// exactly one line that names the offending setting and a non-zero exit status.
#include <algorithm>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/probes.h"

namespace assisted::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

struct Binary {
  std::string name;
  std::string path;
  // Arguments that satisfy the binary's required settings.
  std::vector<std::string> required;
};

void PrintTo(const Binary& binary, std::ostream* os) { *os << binary.name; }

std::string PrintName(const ::testing::TestParamInfo<Binary>& info) {
  std::string name = info.param.name;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

class CommandLineTest : public ::testing::TestWithParam<Binary> {
 protected:
  process::CommandResult Run(std::vector<std::string> args,
                             std::map<std::string, std::string> env = {}) {
    std::vector<std::string> argv = {RunfilePath(GetParam().path)};
    argv.insert(argv.end(), args.begin(), args.end());
    absl::StatusOr<process::CommandResult> result =
        runner_.Run({.argv = argv, .env = env, .timeout = absl::Seconds(20)});
    EXPECT_THAT(result, IsOk());
    return result.ok() ? *result : process::CommandResult{};
  }

  // Asserts a usage error: exit 2 and one line on stderr that mentions `needle`.
  void ExpectOneLineError(const process::CommandResult& result, const std::string& needle) {
    EXPECT_EQ(result.exit_code, 2) << result.stderr_data;
    EXPECT_EQ(std::count(result.stderr_data.begin(), result.stderr_data.end(), '\n'), 1)
        << result.stderr_data;
    EXPECT_THAT(result.stderr_data, StartsWith(GetParam().name + ":"));
    EXPECT_THAT(result.stderr_data, HasSubstr(needle));
    EXPECT_EQ(result.stdout_data, "");
  }

  std::vector<std::string> WithRequired(std::vector<std::string> args) {
    args.insert(args.begin(), GetParam().required.begin(), GetParam().required.end());
    return args;
  }

  process::LocalProcessRunner runner_;
};

TEST_P(CommandLineTest, HelpDescribesTheBinaryAndExitsZero) {
  const process::CommandResult result = Run({"--help"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.stdout_data, StartsWith("Usage: " + GetParam().name));
  EXPECT_THAT(result.stdout_data, HasSubstr("--help"));
  EXPECT_THAT(result.stdout_data, HasSubstr("[ASSISTED_"));
}

TEST_P(CommandLineTest, VersionPrintsNameAndVersion) {
  const process::CommandResult result = Run({"--version"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.stdout_data, StartsWith(GetParam().name + " 0."));
}

TEST_P(CommandLineTest, UnknownFlagIsNamed) {
  ExpectOneLineError(Run(WithRequired({"--no-such-flag=1"})), "--no-such-flag");
}

TEST_P(CommandLineTest, InvalidValueNamesTheSetting) {
  ExpectOneLineError(Run(WithRequired({"--log-level=loud"})), "--log-level");
}

TEST_P(CommandLineTest, InvalidEnvironmentValueNamesTheVariable) {
  ExpectOneLineError(Run(GetParam().required, {{"ASSISTED_SHUTDOWN_GRACE", "soon"}}),
                     "ASSISTED_SHUTDOWN_GRACE");
}

INSTANTIATE_TEST_SUITE_P(
    EveryBinary, CommandLineTest,
    ::testing::Values(
        Binary{"assisted-inventory",
               "services/inventory/assisted-inventory",
               {"--postgres-dsn=host=/nonexistent", "--secrets-plaintext-for-development"}},
        Binary{"assisted-orchestrator", "services/orchestrator/assisted-orchestrator", {}},
        Binary{"assisted-image", "services/image/assisted-image", {}},
        Binary{"assisted-gateway", "services/gateway/assisted-gateway", {}},
        Binary{"assisted-agent",
               "services/agent/assisted-agent",
               {"--infra-env-id=6f1c3b4e-2a9d-4c1e-9b7a-0d2e5f8a1c3b"}}),
    PrintName);

class RequiredSettingsTest : public ::testing::Test {
 protected:
  process::CommandResult Run(const std::string& path, std::vector<std::string> args) {
    std::vector<std::string> argv = {RunfilePath(path)};
    argv.insert(argv.end(), args.begin(), args.end());
    // A binary that starts instead of refusing its settings is stopped, not waited for.
    absl::StatusOr<process::CommandResult> result =
        runner_.Run({.argv = argv, .timeout = absl::Seconds(20)});
    EXPECT_THAT(result, IsOk());
    return result.ok() ? *result : process::CommandResult{};
  }
  process::LocalProcessRunner runner_;
};

// Internal listeners (the inventory, the image service's gRPC, the orchestrator's management
// API) answer to no credential but a client certificate: reachable from other machines without
// one they would hand every tenant's data, pull secrets and CA keys to anyone.
TEST_F(RequiredSettingsTest, AnInternalListenerOffLoopbackWithoutClientCertificatesRefusesToStart) {
  struct Case {
    std::string name;
    std::string path;
    std::vector<std::string> args;
    std::string flag;
  };
  const std::vector<Case> cases = {
      {"assisted-inventory",
       "services/inventory/assisted-inventory",
       {"--postgres-dsn=host=/nonexistent", "--grpc-listen=0.0.0.0:0"},
       "--grpc-listen"},
      {"assisted-image",
       "services/image/assisted-image",
       {"--grpc-listen=0.0.0.0:0"},
       "--grpc-listen"},
      {"assisted-orchestrator",
       "services/orchestrator/assisted-orchestrator",
       {"--grpc-listen=127.0.0.1:0", "--internal-grpc-listen=0.0.0.0:0"},
       "--internal-grpc-listen"},
  };
  for (const Case& c : cases) {
    const process::CommandResult result = Run(c.path, c.args);
    EXPECT_EQ(result.exit_code, 2) << c.name << ": " << result.stderr_data;
    EXPECT_EQ(std::count(result.stderr_data.begin(), result.stderr_data.end(), '\n'), 1)
        << result.stderr_data;
    EXPECT_THAT(result.stderr_data, StartsWith(absl::StrCat(c.name, ": ", c.flag, ": ")));
    EXPECT_THAT(result.stderr_data, HasSubstr("--insecure-internal-listener"));
  }
}

TEST_F(RequiredSettingsTest, InventoryNeedsItsDatabase) {
  const process::CommandResult result = Run("services/inventory/assisted-inventory", {});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.stderr_data,
            "assisted-inventory: missing required setting --postgres-dsn (or "
            "ASSISTED_POSTGRES_DSN)\n");
}

TEST_F(RequiredSettingsTest, InventoryNeedsAKeyForSecretsAtRest) {
  process::CommandResult result =
      Run("services/inventory/assisted-inventory", {"--postgres-dsn=host=/nonexistent"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.stderr_data,
            "assisted-inventory: --secrets-key-file: required (or "
            "--secrets-plaintext-for-development to store secrets unencrypted)\n");
  result = Run("services/inventory/assisted-inventory",
               {"--postgres-dsn=host=/nonexistent", "--secrets-key-file=/nonexistent/secrets.key"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.stderr_data, StartsWith("assisted-inventory: --secrets-key-file: "));
  EXPECT_THAT(result.stderr_data, HasSubstr("/nonexistent/secrets.key"));
  EXPECT_EQ(std::count(result.stderr_data.begin(), result.stderr_data.end(), '\n'), 1);
}

// The web UI's identity provider is part of the gateway's configuration: a document it cannot
// use, or one without the keys that check its tokens, is a bad setting (exit 2, one line naming
// the flag), not a failure to start.
TEST_F(RequiredSettingsTest, GatewayRefusesABadIdentityProviderConfigurationAsABadSetting) {
  const std::string dir = ::testing::TempDir();
  const std::string jwks = dir + "/oidc-jwks.json";
  std::ofstream(jwks) << R"({"keys":[]})";
  const std::string plain_http = dir + "/oidc-plain-http.json";
  std::ofstream(plain_http) << R"({"issuer":"https://idp.example.com",)"
                            << R"("authorization_endpoint":"http://idp.example.com/authorize",)"
                            << R"("token_endpoint":"https://idp.example.com/token"})";
  const std::string not_json = dir + "/oidc-not-json.json";
  std::ofstream(not_json) << "<html>a login page, not a discovery document</html>";
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--jwks-file=" + jwks, "--oidc-client-id=ui", "--oidc-discovery-file=" + plain_http},
       "assisted-gateway: --oidc-discovery-file: authorization_endpoint must be https"},
      {{"--jwks-file=" + jwks, "--oidc-client-id=ui", "--oidc-discovery-file=" + not_json},
       "assisted-gateway: --oidc-discovery-file: "},
      {{"--jwks-file=" + jwks, "--oidc-client-id=ui",
        "--oidc-discovery-file=" + dir + "/missing.json"},
       "missing.json"},
      {{"--oidc-client-id=ui", "--oidc-discovery-file=" + plain_http},
       "assisted-gateway: --oidc-discovery-file: needs --auth=jwt and --jwks-file"},
      {{"--oidc-client-id=ui"}, "assisted-gateway: --oidc-client-id: needs --oidc-discovery-file"},
  };
  for (const Case& c : cases) {
    const process::CommandResult result = Run("services/gateway/assisted-gateway", c.args);
    EXPECT_EQ(result.exit_code, 2) << absl::StrJoin(c.args, " ") << ": " << result.stderr_data;
    EXPECT_THAT(result.stderr_data, HasSubstr(c.says));
    EXPECT_EQ(std::count(result.stderr_data.begin(), result.stderr_data.end(), '\n'), 1)
        << result.stderr_data;
  }
}

TEST_F(RequiredSettingsTest, AgentNeedsAValidInfraEnvId) {
  process::CommandResult result = Run("services/agent/assisted-agent", {});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.stderr_data, HasSubstr("--infra-env-id"));
  result = Run("services/agent/assisted-agent", {"--infra-env-id=not-a-uuid"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.stderr_data, HasSubstr("--infra-env-id: \"not-a-uuid\" is not a UUID"));
}

TEST_F(RequiredSettingsTest, InventoryWithAnUnreachableDatabaseFailsToStartWithoutCrashing) {
  const process::CommandResult result =
      Run("services/inventory/assisted-inventory",
          {"--postgres-dsn=host=/nonexistent password=hunter2", "--postgres-connect-timeout=1s",
           "--metrics-listen=127.0.0.1:0", "--grpc-listen=127.0.0.1:0",
           "--secrets-plaintext-for-development"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.stderr_data, HasSubstr("cannot connect to PostgreSQL"));
  EXPECT_THAT(result.stderr_data, Not(HasSubstr("hunter2")));
}

TEST_F(RequiredSettingsTest, TheTestIsoToolNeedsItsOutput) {
  process::CommandResult result = Run("services/image/assisted-make-test-iso", {});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.stderr_data,
            "assisted-make-test-iso: missing required setting --output (or ASSISTED_OUTPUT)\n");
  result = Run("services/image/assisted-make-test-iso", {"--help"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.stdout_data, StartsWith("Usage: assisted-make-test-iso"));
}

TEST_F(RequiredSettingsTest, AictlRejectsAMissingCommandAndUnknownFlags) {
  process::CommandResult result = Run("services/gateway/cli/aictl", {});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.stderr_data, "aictl: missing command (see aictl --help)\n");
  result = Run("services/gateway/cli/aictl", {"--bogus", "version"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.stderr_data, HasSubstr("--bogus"));
  result = Run("services/gateway/cli/aictl", {"--help"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.stdout_data, StartsWith("Usage: aictl"));
}

}  // namespace
}  // namespace assisted::testing
