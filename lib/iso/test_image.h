// File: lib/iso/test_image.h
//
// Builds small ISO images laid out like a CoreOS live ISO (Ignition embed area, kargs areas in
// grub.cfg and isolinux.cfg, kernel/initrd/rootfs placeholders) with xorriso, so tests and the
// demo need no multi-GiB download. A real RHCOS live ISO has the same structure where it matters.

#ifndef ASSISTED_LIB_ISO_TEST_IMAGE_H_
#define ASSISTED_LIB_ISO_TEST_IMAGE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "lib/process/subprocess.h"

namespace assisted::iso {

struct TestImageOptions {
  std::string volume_id = "fedora-coreos-test";
  uint64_t ignition_area_bytes = 256 * 1024;
  uint64_t kargs_area_bytes = 1024;
  std::string default_kargs =
      "coreos.liveiso=fedora-coreos-test ignition.firstboot ignition.platform.id=metal";
  // Size of images/pxeboot/rootfs.img (zeros); makes large images for benches.
  uint64_t rootfs_bytes = 64 * 1024;
  // Without Rock Ridge and Joliet only plain ISO9660 8.3 names exist (exercises that lookup).
  bool rock_ridge = true;
};

// Writes the image to `output`, using `work_dir` (created if needed) for the file tree.
absl::Status BuildTestImage(process::ProcessRunner& runner, const TestImageOptions& options,
                            const std::string& work_dir, const std::string& output);

// The initrd placed in the test image: a gzip'd newc cpio holding "init" and "etc/os-release".
std::string TestInitrd();

}  // namespace assisted::iso

#endif  // ASSISTED_LIB_ISO_TEST_IMAGE_H_
