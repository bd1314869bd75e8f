#include "tests/harness/install_checks.h"

#include "absl/strings/escaping.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "lib/ignition/test_util.h"
#include "lib/process/subprocess.h"
#include "lib/testing/test_files.h"
#include "yaml-cpp/yaml.h"

namespace assisted::testing {

namespace inv = ::assisted::inventory::v1;

std::optional<std::string> GetArtifact(inv::InventoryService::Stub& stub,
                                       const std::string& cluster_id, const std::string& name) {
  inv::GetArtifactRequest request;
  request.set_cluster_id(cluster_id);
  request.set_name(name);
  inv::Artifact artifact;
  grpc::ClientContext context;
  if (!stub.GetArtifact(&context, request, &artifact).ok()) return std::nullopt;
  return artifact.content();
}

void ExpectValidIgnition(inv::InventoryService::Stub& stub, const std::string& cluster_id,
                         const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    std::optional<std::string> config = GetArtifact(stub, cluster_id, name);
    if (!config.has_value()) {
      ADD_FAILURE() << "no artifact " << name;
      continue;
    }
    const absl::Status valid = ignition::IgnitionValidate(*config, name);
    EXPECT_TRUE(valid.ok()) << name << ": " << valid.message();
  }
}

std::string ExpectVerifiableKubeconfig(inv::InventoryService::Stub& stub,
                                       const std::string& cluster_id) {
  std::optional<std::string> kubeconfig = GetArtifact(stub, cluster_id, "kubeconfig");
  if (!kubeconfig.has_value()) {
    ADD_FAILURE() << "no kubeconfig";
    return "";
  }
  return ExpectKubeconfigVerifies(*kubeconfig, cluster_id);
}

std::string ExpectKubeconfigVerifies(const std::string& kubeconfig, const std::string& scratch) {
  std::string ca, cert;
  try {  // yaml-cpp throws on a malformed document; a test failure says so
    const YAML::Node config = YAML::Load(kubeconfig);
    if (!absl::Base64Unescape(
            config["clusters"][0]["cluster"]["certificate-authority-data"].as<std::string>(),
            &ca) ||
        !absl::Base64Unescape(
            config["users"][0]["user"]["client-certificate-data"].as<std::string>(), &cert)) {
      ADD_FAILURE() << "kubeconfig data is not base64:\n" << kubeconfig;
      return "";
    }
  } catch (const YAML::Exception& error) {
    ADD_FAILURE() << "kubeconfig: " << error.what() << "\n" << kubeconfig;
    return "";
  }
  absl::StatusOr<std::string> ca_path = WriteTestFile(scratch + "/ca.pem", ca);
  absl::StatusOr<std::string> cert_path = WriteTestFile(scratch + "/admin.pem", cert);
  if (!ca_path.ok() || !cert_path.ok()) {
    ADD_FAILURE() << "cannot write the certificates";
    return "";
  }
  process::LocalProcessRunner runner;
  absl::StatusOr<process::CommandResult> verify =
      runner.Run({.argv = {"openssl", "verify", "-CAfile", *ca_path, *cert_path}});
  if (!verify.ok() || !verify->ok()) {
    ADD_FAILURE() << "openssl verify: "
                  << (verify.ok() ? verify->stdout_data + verify->stderr_data
                                  : std::string(verify.status().message()));
    return "";
  }
  return ca;
}

}  // namespace assisted::testing
