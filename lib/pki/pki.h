// File: lib/pki/pki.h
//
// The cluster's credentials, made with OpenSSL: a self-signed root CA, the admin client
// certificate it signs (CN system:admin, O system:masters: cluster-admin through Kubernetes'
// client-certificate authentication), the admin kubeconfig for https://api.<name>.<domain>:6443
// embedding the CA, certificate and key, and a random kubeadmin password.
//
//   ASSIGN_OR_RETURN(ClusterCredentials creds, GenerateCredentials(cluster, clock.Now(), random));
//
// Keys are ECDSA P-256 with SHA-256 signatures: Kubernetes and kubectl accept them for CAs and
// client certificates, and making one takes well under a millisecond where RSA 2048 took
// hundreds (seconds on a loaded 2-core machine; see bench/installgen). Serial numbers and the
// password come from `random`, so a SeededRandom gives repeatable serials in tests (the keys
// themselves come from OpenSSL's generator).

#ifndef ASSISTED_LIB_PKI_PKI_H_
#define ASSISTED_LIB_PKI_PKI_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "assisted/types/v1/cluster.pb.h"
#include "lib/random/random.h"

namespace assisted::pki {

// A PEM certificate and its PEM (PKCS#8) private key.
struct KeyPair {
  std::string certificate_pem;
  std::string private_key_pem;
};

// A self-signed CA (basicConstraints CA:TRUE, keyCertSign) named `common_name`, valid from
// `now` - 1 hour (clock skew) for `validity`.
absl::StatusOr<KeyPair> CreateRootCa(absl::string_view common_name, absl::Time now,
                                     absl::Duration validity, Random& random);

// A client certificate (extendedKeyUsage clientAuth) for `common_name` in `organization`,
// signed by `ca`. INVALID_ARGUMENT when `ca` does not parse.
absl::StatusOr<KeyPair> IssueClientCertificate(const KeyPair& ca, absl::string_view common_name,
                                               absl::string_view organization, absl::Time now,
                                               absl::Duration validity, Random& random);

// A kubeconfig (YAML) with one cluster, one user "admin" and the context "admin".
std::string Kubeconfig(absl::string_view cluster_name, absl::string_view server,
                       absl::string_view ca_pem, const KeyPair& client);

// `kubeconfig` with `ca_pem` appended to every cluster's certificate-authority-data (how the
// ingress CA joins the admin kubeconfig at the end of an installation). INVALID_ARGUMENT naming
// the field when `ca_pem` holds no PEM certificate or `kubeconfig` is not a kubeconfig.
absl::StatusOr<std::string> AddCertificateAuthority(absl::string_view kubeconfig,
                                                    absl::string_view ca_pem);

// "xxxxx-xxxxx-xxxxx-xxxxx" of letters and digits, as openshift-install makes it.
std::string KubeadminPassword(Random& random);

struct ClusterCredentials {
  KeyPair root_ca;
  KeyPair admin;
  std::string kubeconfig;  // admin, for https://api.<name>.<domain>:6443
  std::string kubeadmin_password;
};

// Everything above for `cluster` (which needs name and base_dns_domain: INVALID_ARGUMENT naming
// the field otherwise). Certificates are valid for ten years.
absl::StatusOr<ClusterCredentials> GenerateCredentials(const types::v1::Cluster& cluster,
                                                       absl::Time now, Random& random);

}  // namespace assisted::pki

#endif  // ASSISTED_LIB_PKI_PKI_H_
