#include "lib/iso/layout.h"

#include <openssl/evp.h>

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace assisted::iso {

absl::StatusOr<std::vector<Piece>> Layout(uint64_t image_size, const std::vector<Patch>& patches) {
  std::vector<const Patch*> ordered;
  for (const Patch& patch : patches) {
    if (patch.offset > image_size || patch.bytes.size() > image_size - patch.offset) {
      return absl::InvalidArgumentError(
          absl::StrCat("patch at ", patch.offset, " runs past the image (", image_size, " bytes)"));
    }
    if (!patch.bytes.empty()) ordered.push_back(&patch);
  }
  std::sort(ordered.begin(), ordered.end(),
            [](const Patch* a, const Patch* b) { return a->offset < b->offset; });
  std::vector<Piece> pieces;
  uint64_t at = 0;
  for (const Patch* patch : ordered) {
    if (patch->offset < at) {
      return absl::InvalidArgumentError(absl::StrCat("patches overlap at ", patch->offset));
    }
    if (patch->offset > at) pieces.push_back({at, patch->offset - at, nullptr, 0, at});
    pieces.push_back({patch->offset, patch->bytes.size(), patch, 0, 0});
    at = patch->offset + patch->bytes.size();
  }
  if (at < image_size) pieces.push_back({at, image_size - at, nullptr, 0, at});
  return pieces;
}

std::string ContentDigest(absl::string_view base_sha256, const std::vector<Patch>& patches) {
  std::vector<const Patch*> ordered;
  for (const Patch& patch : patches) ordered.push_back(&patch);
  std::sort(ordered.begin(), ordered.end(),
            [](const Patch* a, const Patch* b) { return a->offset < b->offset; });
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  EVP_DigestInit_ex(context, EVP_sha256(), nullptr);
  EVP_DigestUpdate(context, base_sha256.data(), base_sha256.size());
  for (const Patch* patch : ordered) {
    const std::string header = absl::StrCat("|", patch->offset, ":", patch->bytes.size(), "|");
    EVP_DigestUpdate(context, header.data(), header.size());
    EVP_DigestUpdate(context, patch->bytes.data(), patch->bytes.size());
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context, digest, &length);
  EVP_MD_CTX_free(context);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), length));
}

}  // namespace assisted::iso
