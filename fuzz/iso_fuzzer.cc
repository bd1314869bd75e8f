// File: fuzz/iso_fuzzer.cc
//
// Base ISO images as the image service and the simulated hosts read them (lib/iso): the
// ISO9660 directory walk, the embed-area metadata (coreos/igninfo.json, coreos/kargs.json), the
// Ignition area's gzip'd cpio, the kargs and Ignition patches and their layout over the image.
// Input: the image from sector 16 on (the primary volume descriptor); the 16 sectors of system
// area before it are zeros added here, so no mutation is spent on them. The image is handed to
// IsoReader through a memfd, as a file would be.
//
// Besides "no crash", it checks that patches made for an image lay out over it: Layout accepts
// them and its pieces cover the image exactly once.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "lib/iso/embed.h"
#include "lib/iso/iso9660.h"
#include "lib/iso/layout.h"

namespace {

namespace iso = assisted::iso;

constexpr uint64_t kSystemArea = 16 * iso::kSectorSize;

int ImageFd() {
  static const int fd = memfd_create("fuzz.iso", 0);
  return fd;
}

bool WriteImage(const uint8_t* data, size_t size) {
  const int fd = ImageFd();
  if (fd < 0 || ftruncate(fd, 0) != 0 || ftruncate(fd, kSystemArea + size) != 0) return false;
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, kSystemArea + done);
    if (n <= 0) return false;
    done += n;
  }
  return true;
}

void CheckLayout(const iso::IsoReader& reader, const std::vector<iso::Patch>& patches) {
  absl::StatusOr<std::vector<iso::Piece>> pieces = iso::Layout(reader.image_size(), patches);
  if (!pieces.ok()) std::abort();  // patches the library made must fit the image they are for
  uint64_t next = 0;
  for (const iso::Piece& piece : *pieces) {
    if (piece.offset != next || piece.length == 0) std::abort();
    next += piece.length;
  }
  if (next != reader.image_size()) std::abort();
  (void)iso::ReadPatched(reader, patches, 0, std::min<uint64_t>(reader.image_size(), 1 << 16));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!WriteImage(data, size)) std::abort();
  absl::StatusOr<iso::IsoReader> reader = iso::IsoReader::Open(ImageFd(), "fuzz.iso");
  if (!reader.ok()) return 0;
  for (const char* path : {"coreos/igninfo.json", "images/pxeboot/initrd.img",
                           "isolinux/isolinux.cfg", "EFI/fedora/grub.cfg", "a/b/c/d/e/f/g/h/i"}) {
    (void)reader->ReadFile(path, 1 << 16);
  }
  (void)iso::ReadEmbeddedIgnition(*reader);
  absl::StatusOr<iso::EmbedAreas> areas = iso::FindEmbedAreas(*reader);
  if (!areas.ok()) return 0;
  std::vector<iso::Patch> patches;
  absl::StatusOr<std::vector<iso::Patch>> kargs = iso::KargsPatches(*areas, "ip=dhcp rd.fuzz=1");
  if (kargs.ok()) patches = *std::move(kargs);
  absl::StatusOr<iso::Patch> ignition = iso::IgnitionPatch(areas->ignition, "ignition archive");
  if (ignition.ok()) patches.push_back(*std::move(ignition));
  CheckLayout(*reader, patches);
  return 0;
}
