#include "tests/harness/image_service.h"

#include "absl/strings/str_cat.h"
#include "lib/iso/test_image.h"
#include "lib/process/subprocess.h"
#include "lib/status/status_macros.h"
#include "tests/harness/probes.h"

namespace assisted::testing {

absl::StatusOr<RunningImageService> LaunchImageService(const ImageServiceOptions& options) {
  RunningImageService running;
  running.base_iso = options.base_iso;
  if (running.base_iso.empty()) {
    running.base_iso = options.dir + "/base.iso";
    process::LocalProcessRunner runner;
    RETURN_IF_ERROR(iso::BuildTestImage(runner, {}, options.dir + "/build", running.base_iso));
  }
  ASSIGN_OR_RETURN(running.http_port, FreePort());
  running.http_base = absl::StrCat("http://127.0.0.1:", running.http_port);
  std::vector<std::string> args = {
      "--inventory-address=" + options.inventory_address,
      absl::StrCat("--http-listen=127.0.0.1:", running.http_port),
      "--public-url=" + (options.public_url.empty() ? running.http_base : options.public_url),
      "--url-signing-key-file=" + options.url_signing_key_file,
      "--image-cache-dir=" + options.dir + "/cache",
      "--default-openshift-version=4.16",
      absl::StrCat(R"(--os-images=[{"openshift_version":"4.16",)",
                   R"("cpu_architecture":"x86_64","url":"file://)", running.base_iso,
                   R"(","version":"416.94.1"}])")};
  if (!options.orchestrator_address.empty()) {
    args.push_back("--orchestrator-address=" + options.orchestrator_address);
  }
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  ASSIGN_OR_RETURN(running.service,
                   LaunchedService::Launch({.binary = "services/image/assisted-image",
                                            .args = args,
                                            .grpc_port = options.grpc_port,
                                            .probe_channel = options.probe_channel}));
  if (!WaitServing(running.service->grpc_target(), "assisted.image.v1.ImageService",
                   absl::Seconds(30), options.probe_channel)) {
    return absl::DeadlineExceededError(
        absl::StrCat("the image service did not become SERVING:\n", running.service->Log()));
  }
  return running;
}

}  // namespace assisted::testing
