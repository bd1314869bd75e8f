#include "lib/pki/pki.h"

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/process/subprocess.h"
#include "lib/random/random.h"
#include "lib/testing/status_matchers.h"
#include "lib/testing/test_files.h"
#include "yaml-cpp/yaml.h"

namespace assisted::pki {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

// What GenerateCredentials reads: the name and the base domain.
types::v1::Cluster NamedCluster() {
  types::v1::Cluster cluster;
  cluster.set_name("c");
  cluster.set_base_dns_domain("example.com");
  return cluster;
}

// Runs the system's openssl with `args`; returns stdout+stderr, failing the test on exit != 0.
std::string OpenSsl(std::vector<std::string> args, bool expect_ok = true) {
  args.insert(args.begin(), "openssl");
  process::LocalProcessRunner runner;
  absl::StatusOr<process::CommandResult> result = runner.Run({.argv = args});
  EXPECT_THAT(result, IsOk());
  if (!result.ok()) return "";
  EXPECT_EQ(result->ok(), expect_ok) << result->stdout_data << result->stderr_data;
  return result->stdout_data + result->stderr_data;
}

TEST(Pki, AdminCertificateVerifiesAgainstTheRootCa) {
  SeededRandom random(7);
  absl::StatusOr<ClusterCredentials> creds =
      GenerateCredentials(NamedCluster(), absl::Now(), random);
  ASSERT_THAT(creds, IsOk());
  absl::StatusOr<std::string> ca =
      testing::WriteTestFile("pki/ca.pem", creds->root_ca.certificate_pem);
  absl::StatusOr<std::string> admin =
      testing::WriteTestFile("pki/admin.pem", creds->admin.certificate_pem);
  ASSERT_THAT(ca, IsOk());
  ASSERT_THAT(admin, IsOk());
  EXPECT_THAT(OpenSsl({"verify", "-CAfile", *ca, *admin}), HasSubstr("OK"));
  // The CA is a CA, the admin certificate a client certificate for system:admin.
  const std::string ca_text = OpenSsl({"x509", "-in", *ca, "-noout", "-text"});
  EXPECT_THAT(ca_text, HasSubstr("CA:TRUE"));
  const std::string admin_text = OpenSsl({"x509", "-in", *admin, "-noout", "-text"});
  EXPECT_THAT(admin_text, HasSubstr("CN = system:admin"));
  EXPECT_THAT(admin_text, HasSubstr("O = system:masters"));
  EXPECT_THAT(admin_text, HasSubstr("TLS Web Client Authentication"));
  // The key matches the certificate.
  absl::StatusOr<std::string> key =
      testing::WriteTestFile("pki/admin.key", creds->admin.private_key_pem);
  ASSERT_THAT(key, IsOk());
  EXPECT_EQ(OpenSsl({"x509", "-in", *admin, "-noout", "-pubkey"}),
            OpenSsl({"pkey", "-in", *key, "-pubout"}));
}

TEST(Pki, ACertificateFromAnotherCaDoesNotVerify) {
  SeededRandom random(8);
  absl::StatusOr<KeyPair> ca = CreateRootCa("root-ca", kNow, absl::Hours(1000), random);
  absl::StatusOr<KeyPair> other = CreateRootCa("other", kNow, absl::Hours(1000), random);
  ASSERT_THAT(ca, IsOk());
  ASSERT_THAT(other, IsOk());
  absl::StatusOr<KeyPair> client = IssueClientCertificate(*other, "system:admin", "system:masters",
                                                          absl::Now(), absl::Hours(1000), random);
  ASSERT_THAT(client, IsOk());
  absl::StatusOr<std::string> ca_path = testing::WriteTestFile("pki2/ca.pem", ca->certificate_pem);
  absl::StatusOr<std::string> client_path =
      testing::WriteTestFile("pki2/client.pem", client->certificate_pem);
  ASSERT_THAT(ca_path, IsOk());
  ASSERT_THAT(client_path, IsOk());
  OpenSsl({"verify", "-CAfile", *ca_path, *client_path}, /*expect_ok=*/false);
}

TEST(Pki, KubeconfigEmbedsCaAndClient) {
  SeededRandom random(9);
  absl::StatusOr<ClusterCredentials> creds = GenerateCredentials(NamedCluster(), kNow, random);
  ASSERT_THAT(creds, IsOk());
  const YAML::Node config = YAML::Load(creds->kubeconfig);
  EXPECT_EQ(config["kind"].as<std::string>(), "Config");
  EXPECT_EQ(config["clusters"][0]["cluster"]["server"].as<std::string>(),
            "https://api.c.example.com:6443");
  std::string ca;
  ASSERT_TRUE(absl::Base64Unescape(
      config["clusters"][0]["cluster"]["certificate-authority-data"].as<std::string>(), &ca));
  EXPECT_EQ(ca, creds->root_ca.certificate_pem);
  std::string cert;
  ASSERT_TRUE(absl::Base64Unescape(
      config["users"][0]["user"]["client-certificate-data"].as<std::string>(), &cert));
  EXPECT_EQ(cert, creds->admin.certificate_pem);
  std::string key;
  ASSERT_TRUE(
      absl::Base64Unescape(config["users"][0]["user"]["client-key-data"].as<std::string>(), &key));
  EXPECT_EQ(key, creds->admin.private_key_pem);
  EXPECT_EQ(config["current-context"].as<std::string>(), "admin");
  EXPECT_EQ(config["contexts"][0]["context"]["cluster"].as<std::string>(), "c");
}

TEST(Pki, IngressCaJoinsTheKubeconfigOnce) {
  SeededRandom random(12);
  absl::StatusOr<ClusterCredentials> creds = GenerateCredentials(NamedCluster(), kNow, random);
  absl::StatusOr<KeyPair> ingress = CreateRootCa("ingress-operator", kNow, absl::Hours(10), random);
  ASSERT_THAT(creds, IsOk());
  ASSERT_THAT(ingress, IsOk());
  absl::StatusOr<std::string> merged =
      AddCertificateAuthority(creds->kubeconfig, ingress->certificate_pem);
  ASSERT_THAT(merged, IsOk());
  std::string bundle;
  ASSERT_TRUE(absl::Base64Unescape(
      YAML::Load(*merged)["clusters"][0]["cluster"]["certificate-authority-data"].as<std::string>(),
      &bundle));
  EXPECT_EQ(bundle, creds->root_ca.certificate_pem + ingress->certificate_pem);
  EXPECT_EQ(AddCertificateAuthority(*merged, ingress->certificate_pem).value_or(""), *merged);
  EXPECT_THAT(AddCertificateAuthority(creds->kubeconfig, "garbage"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ca_certificate")));
  EXPECT_THAT(AddCertificateAuthority("[1]", ingress->certificate_pem),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("kubeconfig")));
}

TEST(Pki, KubeadminPasswordFormat) {
  SeededRandom random(10);
  const std::string a = KubeadminPassword(random);
  const std::string b = KubeadminPassword(random);
  EXPECT_THAT(a, MatchesRegex("[A-Za-z0-9]{5}-[A-Za-z0-9]{5}-[A-Za-z0-9]{5}-[A-Za-z0-9]{5}"));
  EXPECT_NE(a, b);
}

TEST(Pki, BadInputsNameTheField) {
  SeededRandom random(11);
  types::v1::Cluster cluster = NamedCluster();
  cluster.clear_name();
  EXPECT_THAT(GenerateCredentials(cluster, kNow, random),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cluster.name")));
  EXPECT_THAT(
      IssueClientCertificate({"garbage", "garbage"}, "x", "y", kNow, absl::Hours(1), random),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ca.certificate_pem")));
}

}  // namespace
}  // namespace assisted::pki
