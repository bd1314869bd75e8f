// File: services/image/minimal_iso.h
//
// The minimal discovery ISO (reference agent-and-image.md §3.4): the live ISO without its
// rootfs (~1 GiB smaller); its initramfs fetches the rootfs over HTTP instead, from the URL in
// the `coreos.live.rootfs_url=` kernel argument. It is derived ONCE per base image, with
// xorriso, never per request:
//   - images/pxeboot/rootfs.img is left out;
//   - images/assisted_installer_custom.img, 1 MiB of zeros, is added and every boot loader
//     config listed in coreos/kargs.json loads it as one more initrd (grub `initrd` lines,
//     isolinux `initrd=` lists). Per request it holds a gzip'd cpio of what the initramfs needs
//     before it can fetch the rootfs: static-network profiles, a proxy for the fetch;
//   - `coreos.liveiso=…` (which makes the initramfs look for the rootfs on the ISO) is dropped
//     from the default kernel arguments, in kargs.json and in every kargs area;
//   - coreos/kargs.json's offsets follow the edits.
// Per request, the derived image is customised like the full ISO (Ignition embed area, kargs
// areas with the signed rootfs URL) plus the ramdisk area: nothing is rebuilt.

#ifndef ASSISTED_SERVICES_IMAGE_MINIMAL_ISO_H_
#define ASSISTED_SERVICES_IMAGE_MINIMAL_ISO_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/process/subprocess.h"

namespace assisted::image {

// Where the per-request ramdisk lives in a minimal ISO, and its size.
inline constexpr char kMinimalRamdiskPath[] = "images/assisted_installer_custom.img";
inline constexpr uint64_t kMinimalRamdiskBytes = 1 << 20;

// `kargs` without any `coreos.liveiso=` argument.
std::string WithoutLiveIsoKarg(absl::string_view kargs);

// A boot loader config edited for the minimal ISO.
struct MinimalBootConfig {
  std::string text;
  uint64_t kargs_offset = 0;  // where the kargs area now starts in `text`
};

// Edits one boot loader config (`isolinux` picks the isolinux syntax, else grub): the ramdisk
// is added to its initrd lines and its kargs area (`kargs_size` bytes at `kargs_offset`, holding
// "<kargs><end><pad…>") is rewritten to hold `kargs`. INVALID_ARGUMENT naming `path` when the
// area lies outside the text, `kargs` does not fit it, or no initrd line exists.
absl::StatusOr<MinimalBootConfig> EditBootConfig(absl::string_view path, absl::string_view text,
                                                 bool isolinux, uint64_t kargs_offset,
                                                 uint64_t kargs_size, absl::string_view kargs,
                                                 absl::string_view end, char pad);

// Writes the minimal ISO derived from the full live ISO at `full_path` to `output` (replaced
// atomically), using `work_dir` (created) for the edited files. INVALID_ARGUMENT when the full
// ISO lacks what the derivation needs (kargs.json, a rootfs), INTERNAL when xorriso fails.
absl::Status BuildMinimalIso(process::ProcessRunner& runner, const std::string& full_path,
                             const std::string& work_dir, const std::string& output);

}  // namespace assisted::image

#endif  // ASSISTED_SERVICES_IMAGE_MINIMAL_ISO_H_
