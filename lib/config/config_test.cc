#include "lib/config/config.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::config {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

struct TestConfig {
  std::string listen = "0.0.0.0:9091";
  std::string dsn;
  int port = 9101;
  bool verbose = false;
  absl::Duration grace = absl::Seconds(10);
  std::vector<std::string> sources;
};

class ParserTest : public ::testing::Test {
 protected:
  ParserTest() : parser_("assisted-test", "A test binary.") {
    parser_.String("listen", &config_.listen, "listen address").Check(HostPort);
    parser_.String("postgres-dsn", &config_.dsn, "database").Required().Secret();
    parser_.Int("metrics-port", &config_.port, "metrics port").Range(0, 65535);
    parser_.Bool("verbose", &config_.verbose, "chatty");
    parser_.Duration("grace", &config_.grace, "grace period");
    parser_.List("ntp-sources", &config_.sources, "NTP servers");
  }

  absl::StatusOr<Action> Parse(std::vector<std::string> args, Environment env = {}) {
    return parser_.Parse(args, env);
  }

  TestConfig config_;
  Parser parser_;
};

TEST_F(ParserTest, FlagsListsTheFlagsThatTakeValuesApartFromTheSwitches) {
  const Parser::FlagNames flags = parser_.Flags();
  EXPECT_THAT(flags.with_value, ElementsAre("--listen", "--postgres-dsn", "--metrics-port",
                                            "--grace", "--ntp-sources"));
  EXPECT_THAT(flags.switches, ElementsAre("--verbose"));
}

TEST_F(ParserTest, DefaultsStayWhenNothingIsGiven) {
  EXPECT_THAT(Parse({"--postgres-dsn=x"}), IsOkAndHolds(Action::kRun));
  EXPECT_EQ(config_.listen, "0.0.0.0:9091");
  EXPECT_EQ(config_.port, 9101);
  EXPECT_FALSE(config_.verbose);
}

TEST_F(ParserTest, FlagsInBothSpellingsSetValues) {
  EXPECT_THAT(Parse({"--postgres-dsn", "host=/tmp", "--metrics-port=0", "--verbose", "--grace",
                     "1m30s", "--ntp-sources=a.pool, b.pool"}),
              IsOkAndHolds(Action::kRun));
  EXPECT_EQ(config_.dsn, "host=/tmp");
  EXPECT_EQ(config_.port, 0);
  EXPECT_TRUE(config_.verbose);
  EXPECT_EQ(config_.grace, absl::Seconds(90));
  EXPECT_THAT(config_.sources, ElementsAre("a.pool", "b.pool"));
}

TEST_F(ParserTest, EnvironmentIsReadAndFlagsWin) {
  EXPECT_THAT(Parse({"--metrics-port=7"}, {{"ASSISTED_POSTGRES_DSN", "from-env"},
                                           {"ASSISTED_METRICS_PORT", "8"},
                                           {"ASSISTED_VERBOSE", "true"}}),
              IsOkAndHolds(Action::kRun));
  EXPECT_EQ(config_.dsn, "from-env");
  EXPECT_EQ(config_.port, 7);
  EXPECT_TRUE(config_.verbose);
}

TEST_F(ParserTest, BoolCanBeNegated) {
  config_.verbose = true;
  EXPECT_THAT(Parse({"--postgres-dsn=x", "--no-verbose"}), IsOkAndHolds(Action::kRun));
  EXPECT_FALSE(config_.verbose);
}

TEST_F(ParserTest, HelpWinsOverEverythingElse) {
  EXPECT_THAT(Parse({"--help"}), IsOkAndHolds(Action::kHelp));
  EXPECT_THAT(Parse({"-h", "--bogus"}), IsOkAndHolds(Action::kHelp));
}

TEST_F(ParserTest, MissingRequiredSettingIsNamedWithItsVariable) {
  EXPECT_THAT(Parse({}), StatusIs(absl::StatusCode::kInvalidArgument,
                                  "missing required setting --postgres-dsn (or "
                                  "ASSISTED_POSTGRES_DSN)"));
}

TEST_F(ParserTest, UnknownFlagIsNamed) {
  EXPECT_THAT(Parse({"--postgres-dsn=x", "--bogus=1"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown flag --bogus")));
}

TEST_F(ParserTest, BadValuesNameTheSettingAndTheProblem) {
  EXPECT_THAT(
      Parse({"--postgres-dsn=x", "--metrics-port=abc"}),
      StatusIs(absl::StatusCode::kInvalidArgument, "--metrics-port: \"abc\" is not an integer"));
  EXPECT_THAT(Parse({"--postgres-dsn=x", "--metrics-port=70000"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--metrics-port: must be between 0 and 65535")));
  EXPECT_THAT(Parse({"--postgres-dsn=x", "--listen=nowhere"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--listen:")));
  EXPECT_THAT(Parse({"--postgres-dsn=x", "--grace=-1s"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--grace:")));
  EXPECT_THAT(Parse({"--postgres-dsn=x", "--verbose=maybe"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--verbose:")));
  EXPECT_THAT(Parse({"--postgres-dsn=x"}, {{"ASSISTED_METRICS_PORT", "x"}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ASSISTED_METRICS_PORT:")));
}

TEST_F(ParserTest, FlagWithoutValueIsAnError) {
  EXPECT_THAT(Parse({"--postgres-dsn=x", "--listen"}),
              StatusIs(absl::StatusCode::kInvalidArgument, "--listen: missing value"));
}

TEST_F(ParserTest, PositionalArgumentsAreRejectedUnlessAccepted) {
  EXPECT_THAT(Parse({"--postgres-dsn=x", "extra"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unexpected argument")));
  std::vector<std::string> rest;
  parser_.Positional("COMMAND", &rest, Parser::Positionals::kRest);
  EXPECT_THAT(Parse({"--postgres-dsn=x", "clusters", "list", "--output=json"}),
              IsOkAndHolds(Action::kRun));
  EXPECT_THAT(rest, ElementsAre("clusters", "list", "--output=json"));
}

TEST_F(ParserTest, InterspersedPositionalsLeaveFlagsToTheParser) {
  std::vector<std::string> addresses;
  parser_.Positional("ADDRESS...", &addresses);
  EXPECT_THAT(Parse({"a:1", "--postgres-dsn=x", "b:2", "--verbose", "--", "--c"}),
              IsOkAndHolds(Action::kRun));
  EXPECT_THAT(addresses, ElementsAre("a:1", "b:2", "--c"));
  EXPECT_TRUE(config_.verbose);
}

TEST_F(ParserTest, SecretsNeverAppearInHelpOrErrors) {
  config_.dsn = "password=hunter2";
  Parser parser("p", "s");
  parser.String("postgres-dsn", &config_.dsn, "database").Secret();
  EXPECT_THAT(parser.Usage(), Not(HasSubstr("hunter2")));
}

TEST_F(ParserTest, UsageListsEveryFlagWithDefaultAndVariable) {
  const std::string usage = parser_.Usage();
  EXPECT_THAT(usage, HasSubstr("Usage: assisted-test [flags]"));
  EXPECT_THAT(usage, HasSubstr("--metrics-port=INT"));
  EXPECT_THAT(usage, HasSubstr("(default 9101) [ASSISTED_METRICS_PORT]"));
  EXPECT_THAT(usage, HasSubstr("--postgres-dsn=STRING"));
  EXPECT_THAT(usage, HasSubstr("(required)"));
  EXPECT_THAT(usage, HasSubstr("--help"));
}

TEST(GrpcTarget, AcceptsHostPortDnsAndAddressLists) {
  for (const char* target :
       {"inventory:9091", "dns:///inventory.ns.svc:9091", "ipv4:///127.0.0.1:1,127.0.0.1:2",
        "ipv4:127.0.0.1:1", "ipv6:///[::1]:1,[::1]:2", "[::1]:9091"}) {
    EXPECT_THAT(GrpcTarget(target), IsOk()) << target;
  }
}

TEST(GrpcTarget, RefusesWhatGrpcWouldNotDialWithAReason) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"inventory", "is not host:port"},
      {"dns://resolver/inventory:9091", "write dns:///host:port"},
      {"unix:///run/inventory.sock", "unsupported scheme"},
      {"http://inventory:9091", "unsupported scheme"},
      {"ipv4:///127.0.0.1:1,", "is not host:port"},
      {"ipv4:///[::1]:1", "address family"},
      {"ipv6:///127.0.0.1:1", "address family"},
      {"dns:///:9091", "has no host"},
  };
  for (const auto& [target, reason] : cases) {
    EXPECT_THAT(GrpcTarget(target), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(reason)))
        << target;
  }
}

TEST(HostPort, AcceptsHostPortForms) {
  EXPECT_TRUE(HostPort("0.0.0.0:9090").ok());
  EXPECT_TRUE(HostPort("localhost:0").ok());
  EXPECT_TRUE(HostPort("[::]:9090").ok());
  EXPECT_TRUE(HostPort(":9090").ok());
  EXPECT_FALSE(HostPort("9090").ok());
  EXPECT_FALSE(HostPort("::1:9090").ok());
  EXPECT_FALSE(HostPort("host:99999").ok());
  EXPECT_FALSE(HostPort("host:").ok());
  EXPECT_TRUE(OptionalHostPort("").ok());
}

TEST(Uuid, AcceptsCanonicalFormOnly) {
  EXPECT_TRUE(Uuid("0a1b2c3d-4e5f-6789-abcd-ef0123456789").ok());
  EXPECT_TRUE(Uuid("0A1B2C3D-4E5F-6789-ABCD-EF0123456789").ok());
  EXPECT_FALSE(Uuid("0a1b2c3d4e5f6789abcdef0123456789").ok());
  EXPECT_FALSE(Uuid("0a1b2c3d-4e5f-6789-abcd-ef012345678g").ok());
  EXPECT_FALSE(Uuid("").ok());
  EXPECT_TRUE(OptionalUuid("").ok());
}

}  // namespace
}  // namespace assisted::config
