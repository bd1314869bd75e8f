#include "lib/ignition/config_builder.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/ignition/test_util.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"

namespace assisted::ignition {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using Json = nlohmann::json;

constexpr char kUnit[] =
    "[Unit]\nDescription=Example\nAfter=network-online.target\n\n"
    "[Service]\nType=oneshot\nExecStart=/usr/bin/true\n\n[Install]\nWantedBy=multi-user.target\n";

// The config, checked by ignition-validate, parsed back for assertions.
Json BuildValidated(const ConfigBuilder& builder, const std::string& name) {
  absl::StatusOr<std::string> json = builder.Build();
  EXPECT_THAT(json, IsOk());
  if (!json.ok()) return Json();
  EXPECT_THAT(IgnitionValidate(*json, name + ".ign"), IsOk());
  return Json::parse(*json, nullptr, /*allow_exceptions=*/false);
}

std::string Decoded(const Json& source) {
  absl::StatusOr<std::string> bytes = DecodeDataUrl(source.get<std::string>());
  EXPECT_THAT(bytes, IsOk());
  return bytes.value_or("");
}

TEST(ConfigBuilder, EmptyConfigIsJustTheVersion) {
  ConfigBuilder builder;
  EXPECT_EQ(*builder.Build(), R"({"ignition":{"version":"3.2.0"}})");
  BuildValidated(builder, "empty");
}

TEST(ConfigBuilder, EverySectionPassesIgnitionValidate) {
  ConfigBuilder builder;
  builder
      .SetProxy({.http_proxy = "http://proxy.example.com:3128",
                 .https_proxy = "http://user:secret@proxy.example.com:3128",
                 .no_proxy = {".example.com", "10.0.0.0/8"}})
      .AddCertificateAuthority(InlineResource("-----BEGIN CERTIFICATE-----\nMIIB\n"))
      .AddMergeConfig({.source = "https://api-int.c.example.com:22623/config/worker",
                       .verification_hash = "sha256-" + std::string(64, 'a')})
      .AddUser({.name = "core", .ssh_authorized_keys = {"ssh-ed25519 AAAAC3Nz a@b", "ssh-rsa B"}})
      .AddFile({.path = "/etc/motd", .mode = 0644, .contents = "hello\n"})
      .AddFile({.path = "/root/.docker/config.json", .mode = 0600, .contents = "{}"})
      .AddFile({.path = "/etc/empty", .contents = ""})
      .AddFile(
          {.path = "/usr/local/bin/binary", .mode = 0755, .contents = std::string("\0\xff", 2)})
      .AddDirectory({.path = "/etc/assisted", .mode = 0700})
      .AddLink({.path = "/etc/systemd/system/multi-user.target.wants/x.service",
                .target = "/etc/systemd/system/x.service"})
      .AddUnit({.name = "x.service", .contents = kUnit, .enabled = true})
      .AddUnit({.name = "chronyd.service",
                .dropins = {{.name = "10-proxy.conf",
                             .contents = "[Service]\nEnvironment=HTTP_PROXY=http://p:3128\n"}}})
      .AddUnit({.name = "zincati.service", .mask = true});
  Json config = BuildValidated(builder, "every_section");

  EXPECT_EQ(config["ignition"]["proxy"]["noProxy"], Json({".example.com", "10.0.0.0/8"}));
  EXPECT_EQ(Decoded(config["ignition"]["security"]["tls"]["certificateAuthorities"][0]["source"]),
            "-----BEGIN CERTIFICATE-----\nMIIB\n");
  EXPECT_EQ(config["ignition"]["config"]["merge"][0]["verification"]["hash"],
            "sha256-" + std::string(64, 'a'));
  EXPECT_EQ(config["passwd"]["users"][0]["sshAuthorizedKeys"].size(), 2u);

  // Files come out sorted by path, modes as decimal permission bits.
  const Json& files = config["storage"]["files"];
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0]["path"], "/etc/empty");
  EXPECT_EQ(files[0]["contents"]["source"], "data:,");
  EXPECT_EQ(files[1]["path"], "/etc/motd");
  EXPECT_EQ(files[1]["mode"], 420);
  EXPECT_EQ(Decoded(files[1]["contents"]["source"]), "hello\n");
  EXPECT_EQ(files[2]["path"], "/root/.docker/config.json");
  EXPECT_EQ(files[2]["mode"], 384);
  EXPECT_EQ(Decoded(files[3]["contents"]["source"]), std::string("\0\xff", 2));
  EXPECT_EQ(files[3]["mode"], 493);
  EXPECT_EQ(config["storage"]["directories"][0]["mode"], 448);
  EXPECT_EQ(config["storage"]["links"][0]["hard"], false);

  const Json& units = config["systemd"]["units"];
  ASSERT_EQ(units.size(), 3u);
  EXPECT_EQ(units[0]["name"], "chronyd.service");
  EXPECT_FALSE(units[0].contains("contents"));
  EXPECT_EQ(units[0]["dropins"][0]["name"], "10-proxy.conf");
  EXPECT_EQ(units[1]["contents"], kUnit);
  EXPECT_EQ(units[1]["enabled"], true);
  EXPECT_EQ(units[2]["mask"], true);
}

TEST(ConfigBuilder, ReplaceConfigWithGzipResource) {
  ConfigBuilder builder;
  builder.SetReplaceConfig({.source = "https://example.com/config.ign.gz",
                            .compression = "gzip",
                            .verification_hash = "sha512-" + std::string(128, 'f')});
  Json config = BuildValidated(builder, "replace");
  EXPECT_EQ(config["ignition"]["config"]["replace"]["compression"], "gzip");
}

TEST(ConfigBuilder, OutputIsCanonicalWhateverTheOrderOfAdding) {
  ConfigBuilder first;
  first.AddFile({.path = "/b", .contents = "b"})
      .AddFile({.path = "/a", .contents = "a"})
      .AddUnit({.name = "b.service", .enabled = true})
      .AddUnit({.name = "a.service", .enabled = false})
      .AddDirectory({.path = "/d2"})
      .AddDirectory({.path = "/d1"});
  ConfigBuilder second;
  second.AddDirectory({.path = "/d1"})
      .AddUnit({.name = "a.service", .enabled = false})
      .AddFile({.path = "/a", .contents = "a"})
      .AddDirectory({.path = "/d2"})
      .AddUnit({.name = "b.service", .enabled = true})
      .AddFile({.path = "/b", .contents = "b"});
  EXPECT_EQ(*first.Build(), *second.Build());
  EXPECT_THAT(*first.Build(), Not(HasSubstr(" ")));
  EXPECT_THAT(*first.Build(), HasSubstr(R"({"ignition":{"version":"3.2.0"},"storage":)"));
}

TEST(ConfigBuilder, KernelArgumentsNeedSpec33) {
  ConfigBuilder v32;
  v32.AddKernelArgument("console=ttyS0");
  EXPECT_THAT(v32.Build(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("3.3.0")));

  ConfigBuilder v33(SpecVersion::kV3_3_0);
  v33.AddKernelArgument("console=ttyS0,115200").RemoveKernelArgument("quiet");
  Json config = BuildValidated(v33, "kargs");
  EXPECT_EQ(config["ignition"]["version"], "3.3.0");
  EXPECT_EQ(config["kernelArguments"]["shouldExist"], Json({"console=ttyS0,115200"}));
  EXPECT_EQ(config["kernelArguments"]["shouldNotExist"], Json({"quiet"}));
}

struct InvalidCase {
  std::string name;
  void (*fill)(ConfigBuilder&);
  std::string message;
};

class ConfigBuilderRejects : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(ConfigBuilderRejects, WithInvalidArgumentNamingTheEntry) {
  ConfigBuilder builder;
  GetParam().fill(builder);
  EXPECT_THAT(builder.Build(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(
    Checks, ConfigBuilderRejects,
    ::testing::Values(
        InvalidCase{"RelativePath", [](ConfigBuilder& b) { b.AddFile({.path = "etc/motd"}); },
                    "file \"etc/motd\": path \"etc/motd\" is not absolute"},
        InvalidCase{"DotDotPath", [](ConfigBuilder& b) { b.AddFile({.path = "/etc/../motd"}); },
                    "is not simplified"},
        InvalidCase{"TrailingSlash", [](ConfigBuilder& b) { b.AddDirectory({.path = "/etc/x/"}); },
                    "directory \"/etc/x/\": path \"/etc/x/\" is not simplified"},
        InvalidCase{"DoubleSlash",
                    [](ConfigBuilder& b) { b.AddLink({.path = "//x", .target = "/y"}); },
                    "is not simplified"},
        InvalidCase{"Root", [](ConfigBuilder& b) { b.AddDirectory({.path = "/"}); },
                    "cannot be written"},
        InvalidCase{"DuplicateFile",
                    [](ConfigBuilder& b) {
                      b.AddFile({.path = "/etc/motd", .contents = "a"});
                      b.AddFile({.path = "/etc/motd", .contents = "b"});
                    },
                    "file \"/etc/motd\": is duplicated"},
        InvalidCase{"FileAndDirectorySamePath",
                    [](ConfigBuilder& b) {
                      b.AddFile({.path = "/etc/x"});
                      b.AddDirectory({.path = "/etc/x"});
                    },
                    "directory \"/etc/x\": is duplicated"},
        InvalidCase{"NodeUnderAFile",
                    [](ConfigBuilder& b) {
                      b.AddFile({.path = "/etc/x"});
                      b.AddFile({.path = "/etc/x/y"});
                    },
                    "\"/etc/x/y\": lies under \"/etc/x\""},
        InvalidCase{"ModeTooLarge",
                    [](ConfigBuilder& b) { b.AddFile({.path = "/a", .mode = 010000}); },
                    "file \"/a\": mode 010000 is outside 0 to 07777"},
        InvalidCase{"ModeNegative",
                    [](ConfigBuilder& b) { b.AddDirectory({.path = "/a", .mode = -1}); },
                    "is outside 0 to 07777"},
        InvalidCase{"LinkWithoutTarget", [](ConfigBuilder& b) { b.AddLink({.path = "/a"}); },
                    "link \"/a\": no target"},
        InvalidCase{"UnitWithoutSuffix", [](ConfigBuilder& b) { b.AddUnit({.name = "agent"}); },
                    "unit \"agent\": name needs a unit suffix"},
        InvalidCase{"DuplicateUnit",
                    [](ConfigBuilder& b) {
                      b.AddUnit({.name = "a.service", .enabled = true});
                      b.AddUnit({.name = "a.service", .enabled = false});
                    },
                    "unit \"a.service\": is duplicated"},
        InvalidCase{"DropinWithoutConf",
                    [](ConfigBuilder& b) {
                      b.AddUnit(
                          {.name = "a.service", .dropins = {{.name = "proxy", .contents = ""}}});
                    },
                    "drop-in \"proxy\": name must end in .conf"},
        InvalidCase{"SocksProxy",
                    [](ConfigBuilder& b) { b.SetProxy({.http_proxy = "socks5://p:1080"}); },
                    "proxy httpProxy: proxy \"socks5://p:1080\" is not an http:// or https:// URL"},
        InvalidCase{"UnknownScheme",
                    [](ConfigBuilder& b) { b.AddMergeConfig({.source = "ftp://x/config.ign"}); },
                    "merged config: source \"ftp://x/config.ign\" is not a data"},
        InvalidCase{"XzCompression",
                    [](ConfigBuilder& b) {
                      b.SetReplaceConfig({.source = "https://x/c.ign", .compression = "xz"});
                    },
                    "compression \"xz\" is not gzip or none"},
        InvalidCase{"ShortHash",
                    [](ConfigBuilder& b) {
                      b.AddCertificateAuthority(
                          {.source = "https://x/ca.pem", .verification_hash = "sha256-abc"});
                    },
                    "certificate authority: verification hash \"sha256-abc\""},
        InvalidCase{"InvalidUtf8",
                    [](ConfigBuilder& b) { b.AddUnit({.name = "a.service", .contents = "\xc3("}); },
                    "unit \"a.service\": is not valid UTF-8"},
        InvalidCase{"OverlongUtf8", [](ConfigBuilder& b) { b.AddFile({.path = "/\xc0\xaf"}); },
                    "is not valid UTF-8"},
        InvalidCase{"DuplicateUser",
                    [](ConfigBuilder& b) {
                      b.AddUser({.name = "core"});
                      b.AddUser({.name = "core"});
                    },
                    "user \"core\": is duplicated"},
        InvalidCase{"EmptyKernelArgument",
                    [](ConfigBuilder& b) {
                      b = ConfigBuilder(SpecVersion::kV3_3_0);
                      b.AddKernelArgument("");
                    },
                    "kernel argument: is empty"}),
    [](const ::testing::TestParamInfo<InvalidCase>& info) { return info.param.name; });

TEST(ConfigBuilder, BinaryFileContentsNeedNoUtf8) {
  ConfigBuilder builder;
  builder.AddFile({.path = "/bin/x", .contents = "\xc3("});
  EXPECT_THAT(builder.Build(), IsOk());
}

TEST(CheckMergeConfig, AcceptsAnIgnition3ConfigOfKnownSections) {
  EXPECT_THAT(CheckMergeConfig(R"({"ignition":{"version":"3.2.0"},"storage":{"files":[]}})", "f"),
              IsOk());
  EXPECT_THAT(CheckMergeConfig(R"({"ignition":{"version":"3.0.0"}})", "f"), IsOk());
}

TEST(CheckMergeConfig, RefusesAnythingElseNamingTheField) {
  for (const char* bad :
       {"", "{", "[]", R"({"storage":{}})", R"({"ignition":{"version":"2.2.0"}})",
        R"({"ignition":{"version":3}})", R"({"ignition":{"version":"3.2.0"},"storag":{}})",
        R"({"ignition":{"version":"3.2.0"},"storage":[]})", "\xff"}) {
    EXPECT_THAT(
        CheckMergeConfig(bad, "host.ignition_config_overrides"),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("host.ignition_config_overrides: ")))
        << bad;
  }
}

}  // namespace
}  // namespace assisted::ignition
