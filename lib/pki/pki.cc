#include "lib/pki/pki.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "yaml-cpp/yaml.h"

namespace assisted::pki {
namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Free>;
using Cert = std::unique_ptr<X509, Free>;
using Bio = std::unique_ptr<BIO, Free>;

constexpr absl::Duration kClockSkew = absl::Hours(1);
constexpr absl::Duration kTenYears = absl::Hours(24 * 3653);

// The OpenSSL error queue as text (and emptied), after `what`.
absl::Status OpenSslError(absl::string_view what) {
  std::string detail;
  while (unsigned long code = ERR_get_error()) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof(buffer));
    absl::StrAppend(&detail, detail.empty() ? "" : "; ", buffer);
  }
  return absl::InternalError(absl::StrCat("openssl: ", what, detail.empty() ? "" : ": ", detail));
}

std::string BioText(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(size));
}

absl::StatusOr<Key> NewKey() {
  Key key(EVP_EC_gen("P-256"));
  if (key == nullptr) return OpenSslError("generating an ECDSA P-256 key");
  return key;
}

absl::StatusOr<KeyPair> ToPem(X509* cert, EVP_PKEY* key) {
  Bio cert_bio(BIO_new(BIO_s_mem()));
  Bio key_bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_X509(cert_bio.get(), cert) ||
      !PEM_write_bio_PrivateKey(key_bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)) {
    return OpenSslError("writing PEM");
  }
  return KeyPair{BioText(cert_bio.get()), BioText(key_bio.get())};
}

absl::Status AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  std::unique_ptr<X509_EXTENSION, Free> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  if (ext == nullptr || !X509_add_ext(cert, ext.get(), -1)) {
    return OpenSslError(absl::StrCat("adding extension ", OBJ_nid2sn(nid)));
  }
  return absl::OkStatus();
}

// A certificate for `key` named CN=`common_name`[, O=`organization`], serial from `random`,
// valid from now - skew for `validity`; not yet signed.
absl::StatusOr<Cert> NewCertificate(EVP_PKEY* key, absl::string_view common_name,
                                    absl::string_view organization, absl::Time now,
                                    absl::Duration validity, Random& random) {
  Cert cert(X509_new());
  if (cert == nullptr || !X509_set_version(cert.get(), 2)) return OpenSslError("X509_new");
  unsigned char serial[16];
  for (unsigned char& byte : serial) byte = static_cast<unsigned char>(random.Next32());
  serial[0] &= 0x7f;  // positive
  serial[0] |= 0x01;  // and never zero
  std::unique_ptr<BIGNUM, Free> bn(BN_bin2bn(serial, sizeof(serial), nullptr));
  if (bn == nullptr || !BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()))) {
    return OpenSslError("serial number");
  }
  const time_t not_before = absl::ToTimeT(now - kClockSkew);
  const time_t not_after = absl::ToTimeT(now + validity);
  if (!ASN1_TIME_set(X509_getm_notBefore(cert.get()), not_before) ||
      !ASN1_TIME_set(X509_getm_notAfter(cert.get()), not_after)) {
    return OpenSslError("validity");
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  const std::string org(organization);
  const std::string cn(common_name);
  if ((!org.empty() && !X509_NAME_add_entry_by_txt(
                           name, "O", MBSTRING_UTF8,
                           reinterpret_cast<const unsigned char*>(org.c_str()), -1, -1, 0)) ||
      !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                  reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0) ||
      !X509_set_pubkey(cert.get(), key)) {
    return OpenSslError("subject");
  }
  return cert;
}

absl::StatusOr<Key> ParseKey(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Key key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (key == nullptr) {
    ERR_clear_error();
    return absl::InvalidArgumentError("ca.private_key_pem: not a PEM private key");
  }
  return key;
}

absl::StatusOr<Cert> ParseCertificate(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Cert cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (cert == nullptr) {
    ERR_clear_error();
    return absl::InvalidArgumentError("ca.certificate_pem: not a PEM certificate");
  }
  return cert;
}

}  // namespace

absl::StatusOr<KeyPair> CreateRootCa(absl::string_view common_name, absl::Time now,
                                     absl::Duration validity, Random& random) {
  ASSIGN_OR_RETURN(Key key, NewKey());
  ASSIGN_OR_RETURN(Cert cert,
                   NewCertificate(key.get(), common_name, "openshift", now, validity, random));
  if (!X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get()))) {
    return OpenSslError("issuer");
  }
  RETURN_IF_ERROR(AddExtension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE"));
  RETURN_IF_ERROR(
      AddExtension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign"));
  RETURN_IF_ERROR(AddExtension(cert.get(), cert.get(), NID_subject_key_identifier, "hash"));
  if (!X509_sign(cert.get(), key.get(), EVP_sha256())) return OpenSslError("signing the CA");
  return ToPem(cert.get(), key.get());
}

absl::StatusOr<KeyPair> IssueClientCertificate(const KeyPair& ca, absl::string_view common_name,
                                               absl::string_view organization, absl::Time now,
                                               absl::Duration validity, Random& random) {
  ASSIGN_OR_RETURN(Cert ca_cert, ParseCertificate(ca.certificate_pem));
  ASSIGN_OR_RETURN(Key ca_key, ParseKey(ca.private_key_pem));
  ASSIGN_OR_RETURN(Key key, NewKey());
  ASSIGN_OR_RETURN(Cert cert,
                   NewCertificate(key.get(), common_name, organization, now, validity, random));
  if (!X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get()))) {
    return OpenSslError("issuer");
  }
  RETURN_IF_ERROR(
      AddExtension(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE"));
  RETURN_IF_ERROR(
      AddExtension(cert.get(), ca_cert.get(), NID_key_usage, "critical,digitalSignature"));
  RETURN_IF_ERROR(AddExtension(cert.get(), ca_cert.get(), NID_ext_key_usage, "clientAuth"));
  RETURN_IF_ERROR(
      AddExtension(cert.get(), ca_cert.get(), NID_authority_key_identifier, "keyid:always"));
  if (!X509_sign(cert.get(), ca_key.get(), EVP_sha256())) {
    return OpenSslError("signing the client certificate");
  }
  return ToPem(cert.get(), key.get());
}

std::string Kubeconfig(absl::string_view cluster_name, absl::string_view server,
                       absl::string_view ca_pem, const KeyPair& client) {
  const std::string cluster(cluster_name);
  YAML::Node config;
  config["apiVersion"] = "v1";
  config["kind"] = "Config";
  YAML::Node entry;
  entry["name"] = cluster;
  entry["cluster"]["server"] = std::string(server);
  entry["cluster"]["certificate-authority-data"] = absl::Base64Escape(ca_pem);
  config["clusters"].push_back(entry);
  YAML::Node user;
  user["name"] = "admin";
  user["user"]["client-certificate-data"] = absl::Base64Escape(client.certificate_pem);
  user["user"]["client-key-data"] = absl::Base64Escape(client.private_key_pem);
  config["users"].push_back(user);
  YAML::Node context;
  context["name"] = "admin";
  context["context"]["cluster"] = cluster;
  context["context"]["user"] = "admin";
  config["contexts"].push_back(context);
  config["current-context"] = "admin";
  config["preferences"] = YAML::Node(YAML::NodeType::Map);
  YAML::Emitter out;
  out << config;
  return absl::StrCat(out.c_str(), "\n");
}

absl::StatusOr<std::string> AddCertificateAuthority(absl::string_view kubeconfig,
                                                    absl::string_view ca_pem) {
  absl::StatusOr<Cert> parsed = ParseCertificate(std::string(ca_pem));
  if (!parsed.ok()) return absl::InvalidArgumentError("ca_certificate: not a PEM certificate");
  YAML::Node config;
  try {
    config = YAML::Load(std::string(kubeconfig));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("kubeconfig: ", e.what()));
  }
  if (!config.IsMap() || !config["clusters"].IsSequence()) {
    return absl::InvalidArgumentError("kubeconfig: no clusters");
  }
  std::string pem(ca_pem);
  if (!absl::EndsWith(pem, "\n")) pem.push_back('\n');
  for (YAML::Node entry : config["clusters"]) {
    YAML::Node data = entry["cluster"]["certificate-authority-data"];
    std::string bundle;
    if (!data.IsScalar() || !absl::Base64Unescape(data.as<std::string>(), &bundle)) {
      return absl::InvalidArgumentError("kubeconfig: certificate-authority-data is not base64");
    }
    if (bundle.find(pem) == std::string::npos) bundle += pem;
    entry["cluster"]["certificate-authority-data"] = absl::Base64Escape(bundle);
  }
  YAML::Emitter out;
  out << config;
  return absl::StrCat(out.c_str(), "\n");
}

std::string KubeadminPassword(Random& random) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  constexpr uint32_t kSize = sizeof(kAlphabet) - 1;
  // Rejection sampling keeps every character equally likely.
  constexpr uint32_t kLimit = UINT32_MAX - UINT32_MAX % kSize;
  std::string password;
  for (int i = 0; i < 20; ++i) {
    if (i > 0 && i % 5 == 0) password.push_back('-');
    uint32_t draw = random.Next32();
    while (draw >= kLimit) draw = random.Next32();
    password.push_back(kAlphabet[draw % kSize]);
  }
  return password;
}

absl::StatusOr<ClusterCredentials> GenerateCredentials(const types::v1::Cluster& cluster,
                                                       absl::Time now, Random& random) {
  if (cluster.name().empty()) return absl::InvalidArgumentError("cluster.name: required");
  if (cluster.base_dns_domain().empty()) {
    return absl::InvalidArgumentError("cluster.base_dns_domain: required");
  }
  ClusterCredentials creds;
  ASSIGN_OR_RETURN(creds.root_ca, CreateRootCa("root-ca", now, kTenYears, random));
  ASSIGN_OR_RETURN(creds.admin, IssueClientCertificate(creds.root_ca, "system:admin",
                                                       "system:masters", now, kTenYears, random));
  creds.kubeconfig = Kubeconfig(
      cluster.name(),
      absl::StrCat("https://api.", cluster.name(), ".", cluster.base_dns_domain(), ":6443"),
      creds.root_ca.certificate_pem, creds.admin);
  creds.kubeadmin_password = KubeadminPassword(random);
  return creds;
}

}  // namespace assisted::pki
