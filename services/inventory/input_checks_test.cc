#include "services/inventory/input_checks.h"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::assisted::types::v1::Cluster;
using ::assisted::types::v1::Host;
using ::assisted::types::v1::InfraEnv;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kUuid[] = "3fa85f64-5717-4562-b3fc-2c963f66afa6";

// Real keys from ssh-keygen.
constexpr char kEd25519[] =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINizsJY/3y7bgbSZ8qGDxAfCzyvMSQN1vC+NoVCRbhE4 "
    "user@example";
constexpr char kRsa[] =
    "ssh-rsa "
    "AAAAB3NzaC1yc2EAAAADAQABAAABAQDEdedoSpc80b/yDqC9dxUj6mrIEJqR2SuRrjt3ErHEHHQ8RsHDvfyGGOI30fCm27"
    "FDR6+jEFeyAL/LUtz9yaLI+ff7ZvxjkxDYgA9KfDvDM9jOtZA8/d+Gdid3utHxHZIfUDLUpmcsXqm+Yk/9Zm3/"
    "W2sNhkHPh"
    "Re9vHxZyZmMOksTaWRuecb/X36a7H/"
    "XttcbFmvWsCsz5iWqP6Qq90iO1t+nKHZMGD2qlkMX05VhFaD7wEp1AeLeRMgX8pPW"
    "zuDPt02RVDKtXyK/Imj7nDCYl8h6g0d++4sFeHoAooLAudDHw9+O2nEp22sr7rBn+YaLBBar3nhig4YlY/YE5ozF "
    "user@example";
constexpr char kEcdsa256[] =
    "ecdsa-sha2-nistp256 "
    "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBGv8cTfSnppv6SPAOsAsIKi9+OuVwAnIse7oj+"
    "mbAIOVeT"
    "rdO3LI/LWUh9v1m3y6OXpzV6DnkQI6O0fawwZC5gA= user@example";
constexpr char kEcdsa384[] =
    "ecdsa-sha2-nistp384 "
    "AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBHzJ7N2qSsgrZAVXLjrLQrIlfwPvhe3wNxDonAQRBI"
    "jtRO"
    "bL8fL5YX4wjnbAZoJSJI79tk6yTOeRFlMsZllE6UK+H+Fi/yobIzgAVp0wx4DOtXarU+FqhFat9i5MnDimhQ==";
constexpr char kEcdsa521[] =
    "ecdsa-sha2-nistp521 "
    "AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACFBACfYVW3C2FYHDMFHBeuFkoU99ooaP++"
    "kLw5y2XJ35xr3v"
    "brunMKiZlgRv3JrjGKVcg8PMRW++"
    "jRQXvPuueTv1aZQwA0yrVmyacu6MOCeDTyplP9uRPKHspa1pucF14aDoPMVlotzZl24p2G"
    "olbinJBTvfhRIFk9/ESM5REaBFQJ+yFQQQ== user@example";
constexpr char kDsa[] =
    "ssh-dss "
    "AAAAB3NzaC1kc3MAAACBAMi364LJpdo43Rc6f31zdeexymEzB8+TlxWq3Ts/"
    "al5v+PPc7PdWqVh+3osIJWJh75ZHJAxAaCg3XA"
    "huchjtcxrjkM9xqZY8br/4q6mY48fN0VdgpwGOwusS7CztY3/"
    "YgP8sOf78jO1ieqztv9XKXfQJE2BNuqSEBsUxN80JWZcpAAAA"
    "FQDyuHCpEf8TbRxCYk+3tIjnd7V2TQ== user@example";

// RFC 4251 string: big-endian uint32 length, then the bytes.
std::string SshString(absl::string_view bytes) {
  const uint32_t n = static_cast<uint32_t>(bytes.size());
  std::string out = {static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                     static_cast<char>(n >> 8), static_cast<char>(n)};
  return absl::StrCat(out, bytes);
}

// "<type> <base64 of the concatenated strings>".
std::string SshKey(absl::string_view type, const std::vector<std::string>& fields) {
  std::string blob;
  for (const std::string& field : fields) absl::StrAppend(&blob, SshString(field));
  return absl::StrCat(type, " ", absl::Base64Escape(blob));
}

std::string Point(size_t size) { return std::string(1, '\x04') + std::string(size - 1, 'p'); }

// A case for a validator of one string: the input and the expected message prefix ("" = OK).
struct Case {
  std::string input;
  std::string message;
};

void ExpectCases(const std::function<absl::Status(absl::string_view)>& validate,
                 const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    if (c.message.empty()) {
      EXPECT_THAT(validate(c.input), IsOk()) << absl::CHexEscape(c.input);
    } else {
      EXPECT_THAT(validate(c.input),
                  StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(c.message)))
          << absl::CHexEscape(c.input);
    }
  }
}

// ---- Single values

TEST(ValidateUuid, AcceptsCanonicalLowerCaseOnly) {
  ExpectCases([](absl::string_view s) { return ValidateUuid(s, "cluster.id"); },
              {
                  {kUuid, ""},
                  {"00000000-0000-0000-0000-000000000001", ""},
                  {"", "cluster.id: \"\" is not a UUID (8-4-4-4-12 hexadecimal digits, e.g. "},
                  {"3fa85f64-5717-4562-b3fc-2c963f66afa", "cluster.id: \"3fa85f64-5717-4562-b3fc"},
                  {"3fa85f6457174562b3fc2c963f66afa6", "cluster.id: \"3fa85f6457174562b3fc2c96"},
                  {"{3fa85f64-5717-4562-b3fc-2c963f66afa6}", "cluster.id: \"{3fa85f64-5717"},
                  {"3fa85f64-5717-4562-b3fc-2c963f66afg6", "cluster.id: \"3fa85f64-5717-4562"},
                  {"3fa85f64-5717-4562-b3fc-2c963f66afa6-", "cluster.id: \"3fa85f64-5717-4562"},
                  {"3fa85f645-717-4562-b3fc-2c963f66afa6", "cluster.id: \"3fa85f645-717-4562"},
                  {" 3fa85f64-5717-4562-b3fc-2c963f66afa6", "cluster.id: \" 3fa85f64-5717"},
                  {"3FA85F64-5717-4562-B3FC-2C963F66AFA6",
                   "cluster.id: \"3FA85F64-5717-4562-B3FC-2C963F66AFA6\" must be lower case (did "
                   "you mean 3fa85f64-5717-4562-b3fc-2c963f66afa6?)"},
                  {"00000000-0000-0000-0000-000000000000", "cluster.id: the nil UUID is not an id"},
              });
}

TEST(ValidateClusterName, IsOneDnsLabelOfAtMost54Characters) {
  ExpectCases(
      [](absl::string_view s) { return ValidateClusterName(s, "cluster.name"); },
      {
          {"mycluster", ""},
          {"a", ""},
          {"1", ""},
          {"my-cluster-1", ""},
          {std::string(54, 'a'), ""},
          {"My_Cluster",
           "cluster.name: \"My_Cluster\" is not a valid DNS label (lower-case letters, digits and "
           "'-', 1 to 54 characters, starting and ending with a letter or digit)"},
          {std::string(55, 'a'), "cluster.name: \"aaaa"},
          {"-cluster", "cluster.name: \"-cluster\" is not a valid DNS label"},
          {"cluster-", "cluster.name: \"cluster-\" is not a valid DNS label"},
          {"my.cluster", "cluster.name: \"my.cluster\" is not a valid DNS label"},
          {"my cluster", "cluster.name: \"my cluster\" is not a valid DNS label"},
          {"", "cluster.name: must not be empty"},
          {"MyCluster",
           "cluster.name: \"MyCluster\" must be lower case (did you mean \"mycluster\"?)"},
          {"mycluster.",
           "cluster.name: \"mycluster.\" must not end with a dot (did you mean \"mycluster\"?)"},
      });
}

TEST(ValidateInfraEnvName, IsPrintableUtf8OfAtMost253Characters) {
  ExpectCases(
      [](absl::string_view s) { return ValidateInfraEnvName(s, "infra_env.name"); },
      {
          {"My infra-env", ""},
          {"mycluster_infra-env", ""},
          {"Ünïcødé 名前 🚀", ""},
          {std::string(253, 'a'), ""},
          {[] {
             std::string s;
             for (int i = 0; i < 253; ++i) s += "\xc3\xa9";  // é: 253 characters, 506 bytes
             return s;
           }(),
           ""},
          {"", "infra_env.name: must not be empty"},
          {std::string(254, 'a'), "infra_env.name: \"aaaa"},
          {"a\tb", "infra_env.name: \"a\\tb\" contains a control character"},
          {"a\nb", "infra_env.name: \"a\\nb\" contains a control character"},
          {"a\x7f", "infra_env.name: \"a\\x7f\" contains a control character"},
          {"a\xc2\x85", "infra_env.name: \"a\\xc2\\x85\" contains a control character"},  // NEL
          {std::string("a\0b", 3), "infra_env.name: \"a\\x00\\x62\" contains a control character"},
          {"\xff", "infra_env.name: \"\\xff\" is not valid UTF-8"},
          {"\xc0\xaf", "infra_env.name: \"\\xc0\\xaf\" is not valid UTF-8"},           // overlong
          {"\xed\xa0\x80", "infra_env.name: \"\\xed\\xa0\\x80\" is not valid UTF-8"},  // surrogate
          {"\xf4\x90\x80\x80", "infra_env.name: \"\\xf4\\x90\\x80\\x80\" is not valid UTF-8"},
          {"abc\xe2\x82", "infra_env.name: \"abc\\xe2\\x82\" is not valid UTF-8"},  // truncated
          {"\x80", "infra_env.name: \"\\x80\" is not valid UTF-8"},
          {" lead", "infra_env.name: \" lead\" must not start or end with white space"},
          {"trail ", "infra_env.name: \"trail \" must not start or end with white space"},
      });
  EXPECT_THAT(ValidateInfraEnvName(std::string(254, 'a'), "n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("is 254 characters long (at most 253)")));
}

TEST(ValidateHostname, IsAnRfc1123NameThatIsNotLocalhost) {
  const std::string label63(63, 'a');
  const std::string name253 = absl::StrJoin({label63, label63, label63, std::string(61, 'b')}, ".");
  ExpectCases(
      [](absl::string_view s) { return ValidateHostname(s, "host.requested_hostname"); },
      {
          {"master-0", ""},
          {"master-0.example.com", ""},
          {"0", ""},
          {"worker-12.rack-3", ""},
          {label63, ""},
          {name253, ""},
          {"localhost",
           "host.requested_hostname: \"localhost\" is reserved: the agent replaces it (choose a "
           "name unique in the cluster)"},
          {"localhost.localdomain",
           "host.requested_hostname: \"localhost.localdomain\" is reserved"},
          {"localhost6.localdomain6",
           "host.requested_hostname: \"localhost6.localdomain6\" is reserved"},
          {"Master-0",
           "host.requested_hostname: \"Master-0\" must be lower case (did you mean \"master-0\"?)"},
          {"master-0.",
           "host.requested_hostname: \"master-0.\" must not end with a dot (did you mean "
           "\"master-0\"?)"},
          {"master_0",
           "host.requested_hostname: \"master_0\" has an invalid label \"master_0\" (lower-case "
           "letters, digits and '-', 1 to 63 characters, starting and ending with a letter or "
           "digit)"},
          {"-master", "host.requested_hostname: \"-master\" has an invalid label \"-master\""},
          {"master..0", "host.requested_hostname: \"master..0\" has an empty label"},
          {".master", "host.requested_hostname: \".master\" has an empty label"},
          {".", "host.requested_hostname: \".\" has an empty label"},
          {label63 + "a", "host.requested_hostname: \"aaaa"},
          {name253 + "b", "host.requested_hostname: \"aaaa"},
          {"", "host.requested_hostname: must not be empty"},
      });
  EXPECT_THAT(ValidateHostname(name253 + "b", "h"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("is 254 characters long (at most 253)")));
}

TEST(ValidateBaseDomain, IsADnsNameOfTwoOrMoreLabels) {
  const std::string label63(63, 'a');
  ExpectCases(
      [](absl::string_view s) { return ValidateBaseDomain(s, "cluster.base_dns_domain"); },
      {
          {"example.com", ""},
          {"lab.example.com", ""},
          {"a.b", ""},
          {"xn--bcher-kva.example", ""},
          {"example.co1", ""},
          {absl::StrJoin({label63, label63, label63, std::string(61, 'b')}, "."), ""},
          {"example",
           "cluster.base_dns_domain: \"example\" needs at least two labels (e.g. example.com)"},
          {"Example.com",
           "cluster.base_dns_domain: \"Example.com\" must be lower case (did you mean "
           "\"example.com\"?)"},
          {"example.com.",
           "cluster.base_dns_domain: \"example.com.\" must not end with a dot (did you mean "
           "\"example.com\"?)"},
          {"Example.COM.",
           "cluster.base_dns_domain: \"Example.COM.\" must be lower case and must not end with a "
           "dot (did you mean \"example.com\"?)"},
          {"Example.", "cluster.base_dns_domain: \"Example.\" has an invalid label \"Example\""},
          {"ex_ample.com", "cluster.base_dns_domain: \"ex_ample.com\" has an invalid label"},
          {"exa mple.com", "cluster.base_dns_domain: \"exa mple.com\" has an invalid label"},
          {".example.com", "cluster.base_dns_domain: \".example.com\" has an empty label"},
          {"192.168.1.1",
           "cluster.base_dns_domain: \"192.168.1.1\" ends with the all-digit label \"1\" (a domain "
           "must not read as an IP address)"},
          {label63 + "a.com", "cluster.base_dns_domain: \"aaaa"},
          {"", "cluster.base_dns_domain: must not be empty"},
      });
}

// "auths" JSON with one registry whose entry is `entry`.
std::string Secret(absl::string_view entry, absl::string_view registry = "quay.io") {
  return absl::StrCat(R"({"auths":{")", registry, R"(":)", entry, "}}");
}

TEST(ValidatePullSecret, AcceptsWhatThePodmanAuthFileHolds) {
  ExpectCases(
      ValidatePullSecret,
      {
          {Secret(R"({"auth":"dXNlcjpwYXNz","email":"me@example.com"})"), ""},
          {"\n  " + Secret(R"({"auth":"dXNlcjpwYXNz"})") + "\n", ""},
          {Secret(R"({"auth":"dXNlcjpwYTpzcw=="})"), ""},  // user:pa:ss
          {Secret(R"({"auth":"dXNlcjo="})"), ""},          // user: (empty password)
          {Secret(R"({"auth":"dXNlcjpwYXNz"})", "registry.example.com:5000/ns"), ""},
          {R"({"auths":{"a.io":{"auth":"dXNlcjpwYXNz"},"b.io":{"auth":"dXNlcjpwYXNz"}}})", ""},
      });
}

TEST(ValidatePullSecret, SaysWhatIsWrong) {
  ExpectCases(
      ValidatePullSecret,
      {
          {"", "pull_secret: must not be empty"},
          {" \n ", "pull_secret: must not be empty"},
          {"not json", "pull_secret: is not valid JSON (paste the pull secret file as downloaded)"},
          {Secret(R"({"auth":"dXNlcjpwYXNz"})") + "x", "pull_secret: is not valid JSON"},
          {"[]", "pull_secret: must be a JSON object with an \"auths\" object"},
          {"\"text\"", "pull_secret: must be a JSON object"},
          {"{}", "pull_secret: has no \"auths\" object with at least one registry"},
          {R"({"auths":[]})", "pull_secret: has no \"auths\" object"},
          {R"({"auths":{}})", "pull_secret: has no \"auths\" object"},
          {Secret(R"("dXNlcjpwYXNz")"), "pull_secret: auths[\"quay.io\"] is not an object"},
          {Secret("{}"),
           "pull_secret: auths[\"quay.io\"] has no \"auth\" string (base64 of user:password)"},
          {Secret(R"({"username":"u","password":"p"})"),
           "pull_secret: auths[\"quay.io\"] has no \"auth\" string"},
          {Secret(R"({"auth":42})"), "pull_secret: auths[\"quay.io\"] has no \"auth\" string"},
          {Secret(R"({"auth":"not base64!"})"),
           "pull_secret: auths[\"quay.io\"].auth is not base64"},
          {Secret(R"({"auth":"dXNlcjpwYXN"})"),
           "pull_secret: auths[\"quay.io\"].auth is not base64"},
          {Secret(R"({"auth":"dXNl cjpw"})"), "pull_secret: auths[\"quay.io\"].auth is not base64"},
          {Secret(R"({"auth":""})"), "pull_secret: auths[\"quay.io\"].auth is not base64"},
          {Secret(R"({"auth":"dXNlcnBhc3M="})"),  // userpass
           "pull_secret: auths[\"quay.io\"].auth does not decode to user:password"},
          {Secret(R"({"auth":"OnBhc3M="})"),  // :pass
           "pull_secret: auths[\"quay.io\"].auth does not decode to user:password"},
          {Secret(R"({"auth":"dXNlcjpwYXNz"})", ""),
           "pull_secret: auths entry 1 has an empty registry name"},
          {R"({"auths":{"a.io":{"auth":"dXNlcjpwYXNz"},"not a registry!":{}}})",
           "pull_secret: auths entry 2 has no \"auth\" string"},
          {std::string(100, '[') + std::string(100, ']'),
           "pull_secret: is not a pull secret (JSON nested more than 32 levels deep)"},
      });
}

TEST(ValidatePullSecret, NeverQuotesTheSecret) {
  // "s3cretUser:Pa55word-XYZ" in base64, in every broken position we can think of.
  const std::string auth = absl::Base64Escape("s3cretUser:Pa55word-XYZ");
  const std::vector<std::string> secrets = {
      Secret(absl::StrCat(R"({"auth":")", auth, R"(!"})")),
      Secret(absl::StrCat(R"({"auth":")", auth.substr(1), R"("})")),
      Secret(absl::StrCat(R"({"password":"Pa55word-XYZ","username":"s3cretUser"})")),
      Secret(R"({"auth":"x"})", auth + "="),
      Secret("{}", "Pa55word-XYZ !"),
      absl::StrCat(R"({"auths":{"quay.io":{"auth":")", auth, R"("}}})", "Pa55word-XYZ"),
      absl::StrCat(R"({"auths":"s3cretUser:Pa55word-XYZ"})"),
      absl::StrCat(R"({"auths":{"quay.io":"s3cretUser:Pa55word-XYZ"}})"),
      absl::StrCat("s3cretUser:Pa55word-XYZ"),
  };
  for (const std::string& secret : secrets) {
    const absl::Status status = ValidatePullSecret(secret);
    ASSERT_FALSE(status.ok()) << secret;
    const std::string message(status.message());
    EXPECT_THAT(message, StartsWith("pull_secret: "));
    for (absl::string_view fragment : {"Pa55word", "s3cret", auth.c_str(), "XYZ"}) {
      EXPECT_THAT(message, Not(HasSubstr(std::string(fragment)))) << secret;
    }
  }
}

TEST(ValidateSshPublicKeys, AcceptsAuthorizedKeysLines) {
  const std::string sk_ed25519 = SshKey(
      "sk-ssh-ed25519@openssh.com", {"sk-ssh-ed25519@openssh.com", std::string(32, 'k'), "ssh:"});
  const std::string sk_ecdsa =
      SshKey("sk-ecdsa-sha2-nistp256@openssh.com",
             {"sk-ecdsa-sha2-nistp256@openssh.com", "nistp256", Point(65), "ssh:"});
  ExpectCases(
      [](absl::string_view s) { return ValidateSshPublicKeys(s, "cluster.ssh_public_key"); },
      {
          {kEd25519, ""},
          {kRsa, ""},
          {kEcdsa256, ""},
          {kEcdsa384, ""},  // no comment
          {kEcdsa521, ""},
          {sk_ed25519, ""},
          {sk_ecdsa + " yubikey", ""},
          {absl::StrCat("# admins\n", kEd25519, "\n\n", kRsa, "\n"), ""},
          {absl::StrCat(kEd25519, "\r\n", kRsa, "\r\n"), ""},
          {absl::StrCat("  ", kEd25519, "\t"), ""},
          {absl::StrCat("ssh-ed25519\t",
                        "AAAAC3NzaC1lZDI1NTE5AAAAINizsJY/3y7bgbSZ8qGDxAfCzyvMSQN1vC+NoVCRbhE4"),
           ""},
          {absl::StrCat(kEd25519, " comment with  spaces and ünïcode"), ""},
      });
}

TEST(ValidateSshPublicKeys, NamesTheLineAndTheProblem) {
  const std::string rsa_blob_as_ed25519 = absl::StrCat("ssh-ed25519 ", std::string(kRsa).substr(8));
  ExpectCases(
      [](absl::string_view s) { return ValidateSshPublicKeys(s, "cluster.ssh_public_key"); },
      {
          {"", "cluster.ssh_public_key: holds no key (only blank or comment lines)"},
          {"\n  \n# just a comment\n", "cluster.ssh_public_key: holds no key"},
          {"ssh-foo AAAA",
           "cluster.ssh_public_key: line 1: unknown key type \"ssh-foo\" (expected ssh-ed25519, "
           "ssh-rsa, ecdsa-sha2-nistp256/384/521"},
          {kDsa,
           "cluster.ssh_public_key: line 1: ssh-dss (DSA) keys are refused by current OpenSSH; use "
           "ssh-ed25519 or ssh-rsa"},
          {absl::StrCat("no-pty ", kEd25519),
           "cluster.ssh_public_key: line 1: unknown key type \"no-pty\""},
          {absl::StrCat(kEd25519, "\n\n", kRsa, "\nssh-rsa"),
           "cluster.ssh_public_key: line 4: no key data after ssh-rsa"},
          {"ssh-ed25519 !!!!", "cluster.ssh_public_key: line 1: key data is not base64"},
          {"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINizsJY/3y7bgbSZ8qGDxAfCzyvMSQN1vC+NoVCRbhE",
           "cluster.ssh_public_key: line 1: key data is not base64"},
          {rsa_blob_as_ed25519,
           "cluster.ssh_public_key: line 1: key data is not an ssh-ed25519 key (it encodes "
           "\"ssh-rsa\")"},
          {SshKey("ssh-ed25519", {"ssh-ed25519"}),
           "cluster.ssh_public_key: line 1: key data is truncated"},
          {"ssh-ed25519 AAAA", "cluster.ssh_public_key: line 1: key data is truncated"},
          {SshKey("ssh-ed25519", {"ssh-ed25519", std::string(32, 'k'), "extra"}),
           "cluster.ssh_public_key: line 1: key data has trailing bytes"},
          {SshKey("ssh-ed25519", {"ssh-ed25519", std::string(31, 'k')}),
           "cluster.ssh_public_key: line 1: key data holds a 31-byte public key, not 32"},
          {SshKey("ecdsa-sha2-nistp256", {"ecdsa-sha2-nistp256", "nistp384", Point(65)}),
           "cluster.ssh_public_key: line 1: key data names the curve \"nistp384\", not nistp256"},
          {SshKey("ecdsa-sha2-nistp384", {"ecdsa-sha2-nistp384", "nistp384", Point(65)}),
           "cluster.ssh_public_key: line 1: key data holds a 65-byte public key, not 97"},
          {SshKey("ssh-rsa", {"ssh-rsa", "\x01\x00\x01", ""}),
           "cluster.ssh_public_key: line 1: key data has an empty field"},
          {absl::StrCat(kEd25519, " comment\x01"),
           "cluster.ssh_public_key: line 1: contains a control character"},
      });
}

// ---- Clusters

Cluster SingleStack() {
  Cluster cluster;
  cluster.set_id(kUuid);
  cluster.set_name("mycluster");
  cluster.set_base_dns_domain("example.com");
  auto* pods = cluster.add_cluster_networks();
  pods->set_cidr("10.128.0.0/14");
  pods->set_host_prefix(23);
  cluster.add_service_networks()->set_cidr("172.30.0.0/16");
  cluster.add_machine_networks()->set_cidr("192.168.111.0/24");
  cluster.add_api_vips()->set_ip("192.168.111.5");
  cluster.add_ingress_vips()->set_ip("192.168.111.4");
  cluster.set_ssh_public_key(kEd25519);
  return cluster;
}

Cluster DualStack() {
  Cluster cluster = SingleStack();
  auto* pods = cluster.add_cluster_networks();
  pods->set_cidr("fd01::/48");
  pods->set_host_prefix(64);
  cluster.add_service_networks()->set_cidr("fd02::/112");
  cluster.add_machine_networks()->set_cidr("fd00::/64");
  cluster.add_api_vips()->set_ip("fd00::5");
  cluster.add_ingress_vips()->set_ip("fd00::4");
  return cluster;
}

struct ClusterCase {
  std::string what;
  std::function<Cluster()> make;
  std::string message;  // expected prefix; "" = OK
};

TEST(ValidateCluster, AcceptsSoundClusters) {
  const std::vector<ClusterCase> cases = {
      {"nothing set", [] { return Cluster(); }, ""},
      {"single stack", SingleStack, ""},
      {"dual stack", DualStack, ""},
      {"IPv6-primary dual stack",
       [] {
         Cluster c = DualStack();
         c.mutable_cluster_networks()->SwapElements(0, 1);
         c.mutable_service_networks()->SwapElements(0, 1);
         c.mutable_machine_networks()->SwapElements(0, 1);
         c.mutable_api_vips()->SwapElements(0, 1);
         c.mutable_ingress_vips()->SwapElements(0, 1);
         return c;
       },
       ""},
      {"IPv6 only",
       [] {
         Cluster c = DualStack();
         c.mutable_cluster_networks()->DeleteSubrange(0, 1);
         c.mutable_service_networks()->DeleteSubrange(0, 1);
         c.mutable_machine_networks()->DeleteSubrange(0, 1);
         c.mutable_api_vips()->DeleteSubrange(0, 1);
         c.mutable_ingress_vips()->DeleteSubrange(0, 1);
         return c;
       },
       ""},
      {"several IPv4 cluster and machine networks, VIPs in the second",
       [] {
         Cluster c = SingleStack();
         auto* pods = c.add_cluster_networks();
         pods->set_cidr("10.132.0.0/14");
         pods->set_host_prefix(23);
         c.add_machine_networks()->set_cidr("192.168.112.0/24");
         c.mutable_api_vips(0)->set_ip("192.168.112.5");
         return c;
       },
       ""},
      {"VIPs without machine networks",
       [] {
         Cluster c = SingleStack();
         c.clear_machine_networks();
         c.mutable_api_vips(0)->set_ip("10.0.0.5");
         return c;
       },
       ""},
      {"only one VIP list set",
       [] {
         Cluster c = SingleStack();
         c.clear_ingress_vips();
         return c;
       },
       ""},
      {"VIP at the ends of a /31",
       [] {
         Cluster c = SingleStack();
         c.mutable_machine_networks(0)->set_cidr("192.168.111.0/31");
         c.mutable_api_vips(0)->set_ip("192.168.111.0");
         c.mutable_ingress_vips(0)->set_ip("192.168.111.1");
         return c;
       },
       ""},
      {"host prefix equal to the block's",
       [] {
         Cluster c = SingleStack();
         c.mutable_cluster_networks(0)->set_host_prefix(14);
         return c;
       },
       ""},
      {"IPv4-mapped IPv6 machine network is plain IPv6",
       [] {
         Cluster c;
         c.add_machine_networks()->set_cidr("::ffff:192.168.111.0/120");
         c.add_api_vips()->set_ip("::ffff:192.168.111.5");
         return c;
       },
       ""},
  };
  for (const ClusterCase& c : cases) EXPECT_THAT(ValidateCluster(c.make()), IsOk()) << c.what;
}

// Returns SingleStack() (or DualStack()) changed by `change`.
std::function<Cluster()> Single(std::function<void(Cluster&)> change) {
  return [change] {
    Cluster c = SingleStack();
    change(c);
    return c;
  };
}

std::function<Cluster()> Dual(std::function<void(Cluster&)> change) {
  return [change] {
    Cluster c = DualStack();
    change(c);
    return c;
  };
}

TEST(ValidateCluster, OneCasePerRule) {
  const std::string label63(63, 'a');
  const std::vector<ClusterCase> cases = {
      {"id", Single([](Cluster& c) { c.set_id("nope"); }), "cluster.id: \"nope\" is not a UUID"},
      {"name", Single([](Cluster& c) { c.set_name("My_Cluster"); }),
       "cluster.name: \"My_Cluster\" is not a valid DNS label (lower-case letters, digits and "
       "'-', 1 to 54 characters, starting and ending with a letter or digit)"},
      {"base domain", Single([](Cluster& c) { c.set_base_dns_domain("example"); }),
       "cluster.base_dns_domain: \"example\" needs at least two labels"},
      {"derived names too long", Single([&](Cluster& c) {
         c.set_name(std::string(54, 'n'));
         c.set_base_dns_domain(absl::StrJoin({label63, label63, label63}, "."));  // 191
       }),
       "cluster.base_dns_domain: api-int.nnnn"},
      {"ssh key", Single([](Cluster& c) { c.set_ssh_public_key("ssh-foo AAAA"); }),
       "cluster.ssh_public_key: line 1: unknown key type \"ssh-foo\""},
      {"cidr required", Single([](Cluster& c) { c.mutable_cluster_networks(0)->clear_cidr(); }),
       "cluster.cluster_networks[0].cidr: required"},
      {"cidr syntax",
       Single([](Cluster& c) { c.mutable_cluster_networks(0)->set_cidr("10.128.0.0"); }),
       "cluster.cluster_networks[0].cidr: \"10.128.0.0\" is not a CIDR block"},
      {"cidr host bits",
       Single([](Cluster& c) { c.mutable_cluster_networks(0)->set_cidr("10.128.0.1/14"); }),
       "cluster.cluster_networks[0].cidr: \"10.128.0.1/14\" has host bits set (did you mean "
       "10.128.0.0/14?)"},
      {"cidr canonical text",
       Dual([](Cluster& c) { c.mutable_cluster_networks(1)->set_cidr("FD01:0::/48"); }),
       "cluster.cluster_networks[1].cidr: \"FD01:0::/48\" is not in canonical form (did you mean "
       "fd01::/48?)"},
      {"cidr at the unspecified address",
       Single([](Cluster& c) { c.mutable_service_networks(0)->set_cidr("0.0.0.0/0"); }),
       "cluster.service_networks[0].cidr: 0.0.0.0/0 starts at the unspecified address 0.0.0.0"},
      {"service network too small",
       Single([](Cluster& c) { c.mutable_service_networks(0)->set_cidr("172.30.0.0/26"); }),
       "cluster.service_networks[0].cidr: 172.30.0.0/26 is too small (at most /25 for IPv4: at "
       "least 128 addresses)"},
      {"cluster network too small",
       Dual([](Cluster& c) { c.mutable_cluster_networks(1)->set_cidr("fd01::/122"); }),
       "cluster.cluster_networks[1].cidr: fd01::/122 is too small (at most /121 for IPv6: at "
       "least 128 addresses)"},
      {"machine network too small",
       Single([](Cluster& c) { c.mutable_machine_networks(0)->set_cidr("192.168.111.5/32"); }),
       "cluster.machine_networks[0].cidr: 192.168.111.5/32 is too small (at most /31 for IPv4: "
       "at least 2 addresses)"},
      {"host prefix required",
       Single([](Cluster& c) { c.mutable_cluster_networks(0)->clear_host_prefix(); }),
       "cluster.cluster_networks[0].host_prefix: required (the prefix length of each host's slice "
       "of 10.128.0.0/14, e.g. 23)"},
      {"host prefix shorter than the block's",
       Single([](Cluster& c) { c.mutable_cluster_networks(0)->set_host_prefix(12); }),
       "cluster.cluster_networks[0].host_prefix: 12 is shorter than the prefix of 10.128.0.0/14 "
       "(at least 14)"},
      {"host prefix negative",
       Single([](Cluster& c) { c.mutable_cluster_networks(0)->set_host_prefix(-3); }),
       "cluster.cluster_networks[0].host_prefix: -3 is shorter than the prefix"},
      {"host prefix too long",
       Single([](Cluster& c) { c.mutable_cluster_networks(0)->set_host_prefix(26); }),
       "cluster.cluster_networks[0].host_prefix: 26 leaves each host fewer than 128 addresses (at "
       "most 25 for IPv4)"},
      {"IPv6 host prefix too long",
       Dual([](Cluster& c) { c.mutable_cluster_networks(1)->set_host_prefix(122); }),
       "cluster.cluster_networks[1].host_prefix: 122 leaves each host fewer than 128 addresses (at "
       "most 121 for IPv6)"},
      {"primary family differs",
       Single([](Cluster& c) { c.mutable_service_networks(0)->set_cidr("fd02::/112"); }),
       "cluster.service_networks[0].cidr: fd02::/112 is IPv6 but cluster_networks[0].cidr "
       "(10.128.0.0/14) is IPv4; every network and VIP list starts with the same (primary) "
       "family"},
      {"VIPs in the other order",
       Dual([](Cluster& c) { c.mutable_api_vips()->SwapElements(0, 1); }),
       "cluster.api_vips[0].ip: fd00::5 is IPv6 but cluster_networks[0].cidr (10.128.0.0/14) is "
       "IPv4"},
      {"dual-stack list of three", Dual([](Cluster& c) {
         auto* pods = c.add_cluster_networks();
         pods->set_cidr("10.132.0.0/14");
         pods->set_host_prefix(23);
       }),
       "cluster.cluster_networks: a dual-stack list holds exactly one IPv4 and one IPv6 network "
       "(got 3 networks)"},
      {"dual-stack cluster with a single-stack list",
       Dual([](Cluster& c) { c.mutable_service_networks()->RemoveLast(); }),
       "cluster.service_networks: the cluster is dual-stack (cluster_networks has IPv4 and IPv6), "
       "so this list needs one IPv4 and one IPv6 network"},
      {"overlap across lists",
       Single([](Cluster& c) { c.mutable_service_networks(0)->set_cidr("10.130.0.0/16"); }),
       "cluster.service_networks[0].cidr: 10.130.0.0/16 overlaps cluster_networks[0].cidr "
       "(10.128.0.0/14)"},
      {"machine network overlaps service network",
       Single([](Cluster& c) { c.mutable_machine_networks(0)->set_cidr("172.16.0.0/12"); }),
       "cluster.machine_networks[0].cidr: 172.16.0.0/12 overlaps service_networks[0].cidr "
       "(172.30.0.0/16)"},
      {"overlap within a list", Single([](Cluster& c) {
         auto* pods = c.add_cluster_networks();
         pods->set_cidr("10.128.0.0/16");
         pods->set_host_prefix(23);
       }),
       "cluster.cluster_networks[1].cidr: 10.128.0.0/16 overlaps cluster_networks[0].cidr "
       "(10.128.0.0/14)"},
      {"IPv6 overlap",
       Dual([](Cluster& c) { c.mutable_machine_networks(1)->set_cidr("fd01::/64"); }),
       "cluster.machine_networks[1].cidr: fd01::/64 overlaps cluster_networks[1].cidr (fd01::/48)"},
      {"VIP required", Single([](Cluster& c) { c.mutable_api_vips(0)->clear_ip(); }),
       "cluster.api_vips[0].ip: required"},
      {"VIP syntax", Single([](Cluster& c) { c.mutable_api_vips(0)->set_ip("192.168.111.300"); }),
       "cluster.api_vips[0].ip: \"192.168.111.300\" is not an IPv4 address"},
      {"VIP canonical text", Dual([](Cluster& c) { c.mutable_api_vips(1)->set_ip("fd00::0005"); }),
       "cluster.api_vips[1].ip: \"fd00::0005\" is not in canonical form (did you mean fd00::5?)"},
      {"VIP used twice in a list",
       Single([](Cluster& c) { c.add_api_vips()->set_ip("192.168.111.5"); }),
       "cluster.api_vips[1].ip: 192.168.111.5 is already used by api_vips[0]"},
      {"VIP used by both lists",
       Single([](Cluster& c) { c.mutable_ingress_vips(0)->set_ip("192.168.111.5"); }),
       "cluster.ingress_vips[0].ip: 192.168.111.5 is already used by api_vips[0].ip"},
      {"two VIPs of one family",
       Single([](Cluster& c) { c.add_api_vips()->set_ip("192.168.111.6"); }),
       "cluster.api_vips[1].ip: a second IPv4 VIP after api_vips[0].ip (at most one per family)"},
      {"VIP outside the machine networks",
       Single([](Cluster& c) { c.mutable_api_vips(0)->set_ip("10.0.0.5"); }),
       "cluster.api_vips[0].ip: 10.0.0.5 is not inside any machine network (192.168.111.0/24)"},
      {"VIP of a family without machine network",
       Single([](Cluster& c) { c.add_api_vips()->set_ip("fd00::5"); }),
       "cluster.api_vips[1].ip: fd00::5 is not inside any machine network (none is IPv6)"},
      {"VIP on the network address",
       Single([](Cluster& c) { c.mutable_ingress_vips(0)->set_ip("192.168.111.0"); }),
       "cluster.ingress_vips[0].ip: 192.168.111.0 is the network address of "
       "machine_networks[0].cidr (192.168.111.0/24)"},
      {"VIP on the broadcast address",
       Single([](Cluster& c) { c.mutable_ingress_vips(0)->set_ip("192.168.111.255"); }),
       "cluster.ingress_vips[0].ip: 192.168.111.255 is the broadcast address of "
       "machine_networks[0].cidr (192.168.111.0/24)"},
  };
  for (const ClusterCase& c : cases) {
    EXPECT_THAT(ValidateCluster(c.make()),
                StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(c.message)))
        << c.what;
  }
}

TEST(ValidateCluster, DerivedNameLengthIsCounted) {
  Cluster cluster = SingleStack();
  const std::string label63(63, 'a');
  cluster.set_name(std::string(54, 'n'));
  cluster.set_base_dns_domain(absl::StrJoin({label63, label63, label63}, "."));
  EXPECT_THAT(ValidateCluster(cluster),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(" would be 254 characters long (at most 253)")));
  cluster.set_base_dns_domain(absl::StrJoin({label63, label63, std::string(62, 'a')}, "."));
  EXPECT_THAT(ValidateCluster(cluster), IsOk());
}

TEST(ValidateCluster, UiSettingsAreBoundedTo64KiB) {
  Cluster cluster = SingleStack();
  cluster.set_ui_settings(std::string(64 << 10, 'x'));
  EXPECT_THAT(ValidateCluster(cluster), IsOk());
  cluster.set_ui_settings(std::string((64 << 10) + 1, 'x'));
  EXPECT_THAT(ValidateCluster(cluster),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cluster.ui_settings: 65537 bytes (at most 65536)")));
}

// ---- Infra-envs and hosts

TEST(ValidateInfraEnv, ChecksEachSetField) {
  InfraEnv sound;
  sound.set_id(kUuid);
  sound.set_name("mycluster_infra-env");
  sound.set_cluster_id(kUuid);
  sound.set_ssh_authorized_key(kRsa);
  sound.set_rendezvous_ip("fd00::10");
  EXPECT_THAT(ValidateInfraEnv(sound), IsOk());
  EXPECT_THAT(ValidateInfraEnv(InfraEnv()), IsOk());

  const std::vector<std::pair<std::function<void(InfraEnv&)>, std::string>> cases = {
      {[](InfraEnv& e) { e.set_id("x"); }, "infra_env.id: \"x\" is not a UUID"},
      {[](InfraEnv& e) { e.set_name("a\nb"); },
       "infra_env.name: \"a\\nb\" contains a control character"},
      {[](InfraEnv& e) { e.set_cluster_id(std::string(kUuid) + "0"); },
       "infra_env.cluster_id: \"3fa85f64"},
      {[](InfraEnv& e) { e.set_ssh_authorized_key("ssh-rsa"); },
       "infra_env.ssh_authorized_key: line 1: no key data after ssh-rsa"},
      {[](InfraEnv& e) { e.set_rendezvous_ip("10.0.0.01"); },
       "infra_env.rendezvous_ip: \"10.0.0.01\" is not an IPv4 address"},
      {[](InfraEnv& e) { e.set_rendezvous_ip("FD00::10"); },
       "infra_env.rendezvous_ip: \"FD00::10\" is not in canonical form (did you mean fd00::10?)"},
  };
  for (const auto& [change, message] : cases) {
    InfraEnv infra_env = sound;
    change(infra_env);
    EXPECT_THAT(ValidateInfraEnv(infra_env),
                StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(message)));
  }
}

TEST(ValidateHost, ChecksIdsAndRequestedHostname) {
  Host sound;
  sound.set_id(kUuid);
  sound.set_infra_env_id(kUuid);
  sound.set_cluster_id(kUuid);
  sound.set_requested_hostname("master-0");
  EXPECT_THAT(ValidateHost(sound), IsOk());
  EXPECT_THAT(ValidateHost(Host()), IsOk());

  const std::vector<std::pair<std::function<void(Host&)>, std::string>> cases = {
      {[](Host& h) { h.set_id("x"); }, "host.id: \"x\" is not a UUID"},
      {[](Host& h) { h.set_infra_env_id("x"); }, "host.infra_env_id: \"x\" is not a UUID"},
      {[](Host& h) { h.set_cluster_id("x"); }, "host.cluster_id: \"x\" is not a UUID"},
      {[](Host& h) { h.set_requested_hostname("localhost"); },
       "host.requested_hostname: \"localhost\" is reserved"},
  };
  for (const auto& [change, message] : cases) {
    Host host = sound;
    change(host);
    EXPECT_THAT(ValidateHost(host),
                StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(message)));
  }
}

// ---- Requests

constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})";

TEST(ValidateRequests, CreateClusterNeedsANameAndAValidPullSecret) {
  inventory::v1::CreateClusterRequest request;
  *request.mutable_cluster() = SingleStack();
  request.set_pull_secret(kPullSecret);
  EXPECT_THAT(ValidateCreateClusterRequest(request), IsOk());
  request.clear_pull_secret();
  EXPECT_THAT(ValidateCreateClusterRequest(request), IsOk());
  request.set_pull_secret("{}");
  EXPECT_THAT(ValidateCreateClusterRequest(request),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("pull_secret: has no")));
  request.mutable_cluster()->clear_name();
  EXPECT_THAT(ValidateCreateClusterRequest(request),
              StatusIs(absl::StatusCode::kInvalidArgument, "cluster.name: required"));
  request.mutable_cluster()->set_name("mycluster");
  request.mutable_cluster()->mutable_api_vips(0)->set_ip("10.0.0.1");
  EXPECT_THAT(ValidateCreateClusterRequest(request),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("cluster.api_vips[0].ip: ")));
}

TEST(ValidateRequests, ImportedAndDisconnectedClustersAreRegisteredInTheirOwnStatus) {
  Cluster imported;
  imported.set_name("existing");
  imported.set_kind(types::v1::CLUSTER_KIND_ADD_HOSTS_CLUSTER);
  imported.set_status(types::v1::CLUSTER_STATUS_ADDING_HOSTS);
  imported.set_imported(true);
  imported.set_api_vip_dns_name("api.existing.example.com");
  EXPECT_THAT(ValidateRegisteredKind(imported), IsOk());
  Cluster wrong = imported;
  wrong.set_status(types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT);
  EXPECT_THAT(ValidateRegisteredKind(wrong),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("cluster.kind: ")));
  wrong = imported;
  wrong.set_imported(false);
  EXPECT_THAT(ValidateRegisteredKind(wrong),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("cluster.kind: ")));
  wrong = imported;
  wrong.clear_api_vip_dns_name();
  EXPECT_THAT(ValidateRegisteredKind(wrong),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "cluster.api_vip_dns_name: required for an imported cluster"));
  wrong.set_api_vip_dns_name("api..example.com");
  EXPECT_THAT(ValidateRegisteredKind(wrong), StatusIs(absl::StatusCode::kInvalidArgument,
                                                      StartsWith("cluster.api_vip_dns_name: ")));

  Cluster disconnected;
  disconnected.set_name("offline");
  disconnected.set_openshift_version("4.16");
  disconnected.set_kind(types::v1::CLUSTER_KIND_DISCONNECTED_CLUSTER);
  disconnected.set_status(types::v1::CLUSTER_STATUS_UNMONITORED);
  EXPECT_THAT(ValidateRegisteredKind(disconnected), IsOk());
  disconnected.set_status(types::v1::CLUSTER_STATUS_READY);
  EXPECT_THAT(ValidateRegisteredKind(disconnected),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("cluster.status: ")));

  Cluster day1 = SingleStack();
  EXPECT_THAT(ValidateRegisteredKind(day1), IsOk());
  day1.set_imported(true);
  EXPECT_THAT(ValidateRegisteredKind(day1),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("cluster.imported: ")));
}

TEST(ValidateRequests, UpdateClusterNeedsAnIdAndChecksAMaskedPullSecret) {
  inventory::v1::UpdateClusterRequest request;
  EXPECT_THAT(ValidateUpdateClusterRequest(request),
              StatusIs(absl::StatusCode::kInvalidArgument, "cluster.id: required"));
  request.mutable_cluster()->set_id(kUuid);
  request.mutable_update_mask()->add_paths("name");
  request.set_pull_secret("garbage, but not in the mask");
  EXPECT_THAT(ValidateUpdateClusterRequest(request), IsOk());
  request.mutable_update_mask()->add_paths("pull_secret");
  EXPECT_THAT(ValidateUpdateClusterRequest(request),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("pull_secret: ")));
  request.clear_pull_secret();  // clears the stored secret
  EXPECT_THAT(ValidateUpdateClusterRequest(request), IsOk());
  request.set_pull_secret(kPullSecret);
  EXPECT_THAT(ValidateUpdateClusterRequest(request), IsOk());
}

TEST(ValidateRequests, InfraEnvRequests) {
  inventory::v1::CreateInfraEnvRequest create;
  EXPECT_THAT(ValidateCreateInfraEnvRequest(create),
              StatusIs(absl::StatusCode::kInvalidArgument, "infra_env.name: required"));
  create.mutable_infra_env()->set_name("lab");
  create.set_pull_secret(kPullSecret);
  EXPECT_THAT(ValidateCreateInfraEnvRequest(create), IsOk());
  create.set_pull_secret("[]");
  EXPECT_THAT(ValidateCreateInfraEnvRequest(create),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("pull_secret: ")));

  inventory::v1::UpdateInfraEnvRequest update;
  EXPECT_THAT(ValidateUpdateInfraEnvRequest(update),
              StatusIs(absl::StatusCode::kInvalidArgument, "infra_env.id: required"));
  update.mutable_infra_env()->set_id(kUuid);
  update.mutable_update_mask()->add_paths("pull_secret");
  update.set_pull_secret("[]");
  EXPECT_THAT(ValidateUpdateInfraEnvRequest(update),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("pull_secret: ")));
  update.set_pull_secret(kPullSecret);
  EXPECT_THAT(ValidateUpdateInfraEnvRequest(update), IsOk());
}

TEST(ValidateRequests, HostRequests) {
  inventory::v1::CreateHostRequest create;
  EXPECT_THAT(ValidateCreateHostRequest(create),
              StatusIs(absl::StatusCode::kInvalidArgument, "host.id: required"));
  create.mutable_host()->set_id(kUuid);
  EXPECT_THAT(ValidateCreateHostRequest(create),
              StatusIs(absl::StatusCode::kInvalidArgument, "host.infra_env_id: required"));
  create.mutable_host()->set_infra_env_id(kUuid);
  EXPECT_THAT(ValidateCreateHostRequest(create), IsOk());
  create.mutable_host()->set_requested_hostname("Master-0");
  EXPECT_THAT(ValidateCreateHostRequest(create), StatusIs(absl::StatusCode::kInvalidArgument,
                                                          StartsWith("host.requested_hostname: ")));

  inventory::v1::UpdateHostRequest update;
  EXPECT_THAT(ValidateUpdateHostRequest(update),
              StatusIs(absl::StatusCode::kInvalidArgument, "host.id: required"));
  update.mutable_host()->set_id(kUuid);
  EXPECT_THAT(ValidateUpdateHostRequest(update),
              StatusIs(absl::StatusCode::kInvalidArgument, "host.infra_env_id: required"));
  update.mutable_host()->set_infra_env_id(kUuid);
  EXPECT_THAT(ValidateUpdateHostRequest(update), IsOk());
}

// ---- Robustness: random and mutated input never crashes and always fails cleanly.

class Garbage {
 public:
  std::string Bytes(size_t max_length) {
    std::string out(Below(max_length + 1), '\0');
    for (char& c : out) c = static_cast<char>(Below(256));
    return out;
  }

  // `text` with a few random bytes replaced, inserted or deleted.
  std::string Mutate(std::string text) {
    const size_t edits = 1 + Below(4);
    for (size_t i = 0; i < edits; ++i) {
      const size_t at = Below(text.size() + 1);
      const char byte = static_cast<char>(Below(256));
      switch (Below(3)) {
        case 0:
          if (at < text.size()) text[at] = byte;
          break;
        case 1:
          text.insert(at, 1, byte);
          break;
        default:
          if (at < text.size()) text.erase(at, 1);
      }
    }
    return text;
  }

  size_t Below(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(engine_); }

 private:
  std::mt19937_64 engine_{20220623};
};

// OK, or INVALID_ARGUMENT with a short message starting with `prefix`.
void ExpectCleanResult(const absl::Status& status, absl::string_view prefix,
                       absl::string_view input) {
  if (status.ok()) return;
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << absl::CHexEscape(input);
  EXPECT_THAT(std::string(status.message()), StartsWith(std::string(prefix)))
      << absl::CHexEscape(input);
  EXPECT_LT(status.message().size(), 1024u) << absl::CHexEscape(input);
}

TEST(Robustness, StringValidatorsSurviveRandomBytes) {
  const std::vector<std::pair<std::string, std::function<absl::Status(absl::string_view)>>>
      validators = {
          {"f: ", [](absl::string_view s) { return ValidateUuid(s, "f"); }},
          {"f: ", [](absl::string_view s) { return ValidateClusterName(s, "f"); }},
          {"f: ", [](absl::string_view s) { return ValidateInfraEnvName(s, "f"); }},
          {"f: ", [](absl::string_view s) { return ValidateHostname(s, "f"); }},
          {"f: ", [](absl::string_view s) { return ValidateBaseDomain(s, "f"); }},
          {"pull_secret: ", ValidatePullSecret},
          {"f: ", [](absl::string_view s) { return ValidateSshPublicKeys(s, "f"); }},
      };
  const std::vector<std::string> seeds = {
      kUuid,
      "mycluster",
      "Ünïcødé 名前",
      "master-0.example.com",
      "lab.example.com",
      kPullSecret,
      absl::StrCat(kEd25519, "\n", kRsa, "\n", kEcdsa521),
  };
  Garbage garbage;
  for (int round = 0; round < 3000; ++round) {
    const std::string random = garbage.Bytes(300);
    for (const auto& [field, validate] : validators) {
      ExpectCleanResult(validate(random), field, random);
    }
    for (size_t i = 0; i < validators.size(); ++i) {
      const std::string mutated = garbage.Mutate(seeds[i]);
      ExpectCleanResult(validators[i].second(mutated), validators[i].first, mutated);
    }
  }
}

TEST(Robustness, ValidateClusterSurvivesMutatedNetworks) {
  Garbage garbage;
  for (int round = 0; round < 3000; ++round) {
    Cluster cluster = DualStack();
    switch (garbage.Below(6)) {
      case 0:
        cluster.mutable_cluster_networks(garbage.Below(2))
            ->set_cidr(garbage.Mutate(cluster.cluster_networks(0).cidr()));
        break;
      case 1:
        cluster.mutable_cluster_networks(garbage.Below(2))
            ->set_host_prefix(static_cast<int>(garbage.Below(300)) - 150);
        break;
      case 2:
        cluster.mutable_service_networks(garbage.Below(2))
            ->set_cidr(garbage.Mutate(cluster.service_networks(1).cidr()));
        break;
      case 3:
        cluster.mutable_machine_networks(garbage.Below(2))->set_cidr(garbage.Bytes(40));
        break;
      case 4:
        cluster.mutable_api_vips(garbage.Below(2))
            ->set_ip(garbage.Mutate(cluster.api_vips(garbage.Below(2)).ip()));
        break;
      default:
        cluster.mutable_ingress_vips(garbage.Below(2))->set_ip(garbage.Bytes(20));
    }
    ExpectCleanResult(ValidateCluster(cluster), "cluster.", cluster.ShortDebugString());
  }
}

}  // namespace
}  // namespace assisted::inventory
