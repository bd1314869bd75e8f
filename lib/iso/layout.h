// File: lib/iso/layout.h
//
// A customised image as an ordered list of pieces: runs of the base image (served straight from
// the file, with sendfile) and the bytes of patches (served from memory). Nothing is copied or
// materialised, whatever the image size.

#ifndef ASSISTED_LIB_ISO_LAYOUT_H_
#define ASSISTED_LIB_ISO_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/iso/embed.h"

namespace assisted::iso {

struct Piece {
  uint64_t offset = 0;  // where the piece starts in the customised content
  uint64_t length = 0;
  const Patch* patch = nullptr;  // null: base bytes from base_offset; else patch bytes from
  uint64_t patch_offset = 0;     //   patch->bytes[patch_offset, patch_offset + length)
  uint64_t base_offset = 0;
};

// The pieces covering [0, image_size) in order. `patches` must lie inside the image and not
// overlap (INVALID_ARGUMENT otherwise); they may come in any order. The pieces point into
// `patches`, which must outlive them.
absl::StatusOr<std::vector<Piece>> Layout(uint64_t image_size, const std::vector<Patch>& patches);

// A digest naming the customised content: changes when the base or any patch changes. For a
// strong ETag.
std::string ContentDigest(absl::string_view base_sha256, const std::vector<Patch>& patches);

}  // namespace assisted::iso

#endif  // ASSISTED_LIB_ISO_LAYOUT_H_
