#include "tests/harness/certificates.h"

#include <filesystem>
#include <fstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/process/subprocess.h"
#include "lib/status/status_macros.h"

namespace assisted::testing {
namespace {

absl::Status Openssl(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "openssl");
  process::LocalProcessRunner runner;
  ASSIGN_OR_RETURN(process::CommandResult result,
                   runner.Run({.argv = args, .working_dir = dir, .timeout = absl::Minutes(1)}));
  if (!result.ok()) return absl::InternalError(absl::StrCat("openssl: ", result.stderr_data));
  return absl::OkStatus();
}

// `openssl req` arguments making a new EC P-256 key into `key_file` (milliseconds, where an RSA
// key takes a noticeable part of a second) for subject CN `common_name`.
std::vector<std::string> NewKeyRequest(const std::string& key_file,
                                       const std::string& common_name) {
  return {"req",    "-newkey", "ec",     "-pkeyopt", "ec_paramgen_curve:prime256v1",
          "-nodes", "-keyout", key_file, "-subj",    absl::StrCat("/CN=", common_name)};
}

// Extensions of issued certificates: valid for the loopback addresses tests use, as servers and
// as clients.
constexpr char kLeafExtensions[] =
    "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n";

}  // namespace

absl::StatusOr<TestCa> TestCa::Create(const std::string& dir, const std::string& name) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return absl::InternalError(absl::StrCat("cannot create ", dir, ": ", error.message()));
  std::ofstream(dir + "/leaf.ext") << kLeafExtensions;
  CertificateFiles ca{absl::StrCat(dir, "/", name, "-ca.pem"),
                      absl::StrCat(dir, "/", name, "-ca.key")};
  std::vector<std::string> args = NewKeyRequest(ca.key, name);
  args.insert(args.end(), {"-x509", "-days", "2", "-out", ca.cert});
  RETURN_IF_ERROR(Openssl(dir, std::move(args)));
  return TestCa(dir, std::move(ca));
}

absl::StatusOr<CertificateFiles> TestCa::Issue(const std::string& common_name,
                                               const std::vector<std::string>& more_ips) const {
  const std::string base = absl::StrCat(dir_, "/", common_name);
  CertificateFiles issued{base + ".pem", base + ".key"};
  std::string extensions = dir_ + "/leaf.ext";
  if (!more_ips.empty()) {
    extensions = base + ".ext";
    std::string sans = "DNS:localhost,IP:127.0.0.1";
    for (const std::string& ip : more_ips) absl::StrAppend(&sans, ",IP:", ip);
    std::ofstream(extensions) << "subjectAltName=" << sans
                              << "\nextendedKeyUsage=serverAuth,clientAuth\n";
  }
  std::vector<std::string> request = NewKeyRequest(issued.key, common_name);
  request.insert(request.end(), {"-out", base + ".csr"});
  RETURN_IF_ERROR(Openssl(dir_, std::move(request)));
  RETURN_IF_ERROR(Openssl(
      dir_, {"x509", "-req", "-in", base + ".csr", "-CA", ca_.cert, "-CAkey", ca_.key,
             "-CAcreateserial", "-days", "2", "-extfile", extensions, "-out", issued.cert}));
  return issued;
}

}  // namespace assisted::testing
