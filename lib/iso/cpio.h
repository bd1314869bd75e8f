// File: lib/iso/cpio.h
//
// newc ("070701") cpio archives, the format Linux unpacks from an initramfs, and gzip. Used to
// carry config.ign into a live ISO's embed area and onto a PXE initrd: the kernel unpacks
// concatenated compressed archives, so an archive can simply be appended.

#ifndef ASSISTED_LIB_ISO_CPIO_H_
#define ASSISTED_LIB_ISO_CPIO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::iso {

// Builds an archive member by member; Finish() appends the TRAILER!!! entry.
class CpioWriter {
 public:
  // Adds a directory (mode 040755). Parents must be added before their children.
  void AddDirectory(absl::string_view path);
  // Adds a regular file with permission bits `mode` (e.g. 0644).
  void AddFile(absl::string_view path, absl::string_view content, uint32_t mode);
  // Adds a symbolic link (mode 0120777) to `target`, e.g. enabling a systemd unit.
  void AddSymlink(absl::string_view path, absl::string_view target);
  // The finished archive; the writer is empty afterwards.
  std::string Finish();

 private:
  void AddEntry(absl::string_view path, uint32_t mode, absl::string_view content);
  std::string data_;
  uint32_t next_inode_ = 1;
};

// One member of a newc archive as ReadCpio returns it.
struct CpioMember {
  std::string path;
  uint32_t mode = 0;  // file type and permission bits, e.g. 0100644
  std::string content;
};

// The members of a newc archive up to its TRAILER!!! entry (or the end of `archive`), so tools
// can read back what CpioWriter wrote. INVALID_ARGUMENT naming the offset for a bad magic, a
// non-hex field or a member running past the end; never reads out of bounds.
absl::StatusOr<std::vector<CpioMember>> ReadCpio(absl::string_view archive);

// gzip (RFC 1952) of `data` at the best compression. INTERNAL if zlib fails.
absl::StatusOr<std::string> Gzip(absl::string_view data);

// Decompresses gzip members until `data` ends or zero padding starts (tests and tools).
absl::StatusOr<std::string> Gunzip(absl::string_view data);

// gzip(newc cpio { config.ign (0644) }) of an Ignition config, padded with zeros to a multiple
// of 4 bytes: what goes into a live ISO's embed area or after a PXE initrd.
absl::StatusOr<std::string> IgnitionArchive(absl::string_view ignition_json);

}  // namespace assisted::iso

#endif  // ASSISTED_LIB_ISO_CPIO_H_
