// File: lib/iso/iso9660.h
//
// Read-only lookup of files inside an ISO9660 image (CoreOS live ISOs and test images): where a
// file's bytes start in the image and how many there are. Enough to find the Ignition embed area
// and the kernel-argument areas without mounting or rewriting anything. Names are matched by
// their Rock Ridge name when present (what `ls` shows on a mounted ISO), else by the plain
// ISO9660 name with its ";1" version and 8.3 truncation taken into account.

#ifndef ASSISTED_LIB_ISO_ISO9660_H_
#define ASSISTED_LIB_ISO_ISO9660_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::iso {

inline constexpr uint64_t kSectorSize = 2048;

// A file's location inside the image.
struct Extent {
  uint64_t offset = 0;  // byte offset in the image
  uint64_t size = 0;    // bytes
};

// Reads an image through pread on a file descriptor the caller keeps open.
class IsoReader {
 public:
  // Checks the primary volume descriptor. INVALID_ARGUMENT (naming `name`) when `fd` is not an
  // ISO9660 image.
  static absl::StatusOr<IsoReader> Open(int fd, std::string name);

  // Finds "dir/sub/file" (case-insensitive, '/'-separated, no leading '/' needed).
  // NOT_FOUND when absent; INVALID_ARGUMENT when a directory is named.
  absl::StatusOr<Extent> Find(absl::string_view path) const;

  // Reads a whole file (for small metadata like coreos/igninfo.json); FAILED_PRECONDITION above
  // `max_size`.
  absl::StatusOr<std::string> ReadFile(absl::string_view path, uint64_t max_size = 1 << 20) const;

  // Reads `size` bytes at `offset` of the image.
  absl::StatusOr<std::string> ReadAt(uint64_t offset, uint64_t size) const;

  const std::string& volume_id() const { return volume_id_; }
  uint64_t image_size() const { return image_size_; }

 private:
  IsoReader(int fd, std::string name, std::string volume_id, Extent root, uint64_t image_size)
      : fd_(fd),
        name_(std::move(name)),
        volume_id_(std::move(volume_id)),
        root_(root),
        image_size_(image_size) {}

  int fd_;
  std::string name_;
  std::string volume_id_;
  Extent root_;
  uint64_t image_size_;
};

}  // namespace assisted::iso

#endif  // ASSISTED_LIB_ISO_ISO9660_H_
