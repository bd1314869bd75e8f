// assisted-make-test-iso: builds an ISO laid out like a CoreOS live ISO (Ignition embed area,
// kernel-argument areas, kernel/initrd/rootfs placeholders) with xorriso, for tests, benches
// and the demo. See lib/iso/test_image.h.
#include <filesystem>
#include <iostream>

#include "lib/config/config.h"
#include "lib/iso/test_image.h"
#include "lib/service/runner.h"

int main(int argc, char** argv) {
  assisted::iso::TestImageOptions options;
  std::string output;
  int64_t rootfs_mib = 0;
  assisted::config::Parser parser(
      "assisted-make-test-iso",
      "Builds a small ISO laid out like a CoreOS live ISO, for tests and the demo.");
  parser.String("output", &output, "where to write the ISO").Required();
  parser.String("volume-id", &options.volume_id, "ISO volume id");
  parser.Int64("rootfs-mib", &rootfs_mib, "size of the placeholder rootfs in MiB (sparse)")
      .Range(0, 64 * 1024);
  if (std::optional<int> exit_code = assisted::service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }
  if (rootfs_mib > 0) options.rootfs_bytes = static_cast<uint64_t>(rootfs_mib) << 20;
  const std::string work = output + ".tree";
  assisted::process::LocalProcessRunner runner;
  const absl::Status built = assisted::iso::BuildTestImage(runner, options, work, output);
  std::error_code ignored;
  std::filesystem::remove_all(work, ignored);
  if (!built.ok()) {
    std::cerr << "assisted-make-test-iso: " << built.message() << "\n";
    return assisted::service::kExitFailure;
  }
  std::cout << "wrote " << output << "\n";
  return 0;
}
