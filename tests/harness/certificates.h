// File: tests/harness/certificates.h
//
// A throwaway PKI made with the openssl command, for tests of mutual TLS between real service
// processes: a CA, and certificates it signs for 127.0.0.1/localhost that serve as server and
// as client certificates, named by their CN (the service they stand for).

#ifndef ASSISTED_TESTS_HARNESS_CERTIFICATES_H_
#define ASSISTED_TESTS_HARNESS_CERTIFICATES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace assisted::testing {

// PEM files of one certificate and its key.
struct CertificateFiles {
  std::string cert;
  std::string key;
};

class TestCa {
 public:
  // Makes a CA named `name` with its files in `dir` (created when missing).
  static absl::StatusOr<TestCa> Create(const std::string& dir, const std::string& name);

  // A certificate for CN `common_name` (and SANs 127.0.0.1, localhost and the IP addresses
  // `more_ips`, e.g. a guest address of tests/vm) signed by this CA, in files named after it.
  // INTERNAL with openssl's complaint when it fails.
  absl::StatusOr<CertificateFiles> Issue(const std::string& common_name,
                                         const std::vector<std::string>& more_ips = {}) const;

  // The CA certificate (what verifying peers trust).
  const std::string& ca_file() const { return ca_.cert; }

 private:
  TestCa(std::string dir, CertificateFiles ca) : dir_(std::move(dir)), ca_(std::move(ca)) {}

  std::string dir_;
  CertificateFiles ca_;
};

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_CERTIFICATES_H_
