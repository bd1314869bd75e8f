// File: lib/iso/embed.h
//
// The writable areas a CoreOS live ISO reserves so an image service can customise it without
// rebuilding it: the Ignition embed area (found through coreos/igninfo.json, else
// images/ignition.img) and the kernel-argument areas in the boot loader configs (listed in
// coreos/kargs.json). A customised ISO is the base image with a few Patches laid over it; the
// image length never changes.

#ifndef ASSISTED_LIB_ISO_EMBED_H_
#define ASSISTED_LIB_ISO_EMBED_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/iso/iso9660.h"

namespace assisted::iso {

// Bytes that replace image[offset, offset + bytes.size()).
struct Patch {
  uint64_t offset = 0;
  std::string bytes;
};

// One kernel-argument area: `size` bytes at `offset` holding "<kargs><end><pad…>".
struct KargsArea {
  std::string path;  // the boot loader config it lies in
  uint64_t offset = 0;
  uint64_t size = 0;
  std::string end = "\n";
  char pad = '#';
};

struct EmbedAreas {
  Extent ignition;
  std::vector<KargsArea> kargs;  // empty when the image has no coreos/kargs.json
  std::string default_kargs;     // what the image boots with unmodified
};

// Locates the areas of `iso`. INVALID_ARGUMENT naming the file when its metadata is malformed,
// NOT_FOUND when the image has no Ignition embed area at all.
absl::StatusOr<EmbedAreas> FindEmbedAreas(const IsoReader& iso);

// The patch putting `archive` (see IgnitionArchive) at the start of the Ignition area and zeros
// after it. RESOURCE_EXHAUSTED when it does not fit, naming both sizes.
absl::StatusOr<Patch> IgnitionPatch(const Extent& area, absl::string_view archive);

// The patches setting the kernel arguments to the image's defaults followed by `extra` in every
// kargs area. RESOURCE_EXHAUSTED when they do not fit; FAILED_PRECONDITION when the image has
// no kargs areas but `extra` is not empty.
absl::StatusOr<std::vector<Patch>> KargsPatches(const EmbedAreas& areas, absl::string_view extra);

// The config.ign a customised image carries in its Ignition area (gzip'd newc cpio, zero padded),
// as the live system would find it: how a simulated host "boots" a downloaded discovery ISO.
// NOT_FOUND when the area is empty or holds no config.ign; INVALID_ARGUMENT when it is corrupt.
absl::StatusOr<std::string> ReadEmbeddedIgnition(const IsoReader& iso);

// image[offset, offset + length) with `patches` applied, read from `iso`: a fully materialised
// slice, for tests and for small reads (never for streaming whole images).
absl::StatusOr<std::string> ReadPatched(const IsoReader& iso, const std::vector<Patch>& patches,
                                        uint64_t offset, uint64_t length);

}  // namespace assisted::iso

#endif  // ASSISTED_LIB_ISO_EMBED_H_
