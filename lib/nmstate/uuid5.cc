#include "lib/nmstate/uuid5.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace assisted::nmstate {

std::string Uuid5(absl::string_view name_space, absl::string_view name) {
  const std::string hex = absl::StrReplaceAll(name_space, {{"-", ""}});
  std::string namespace_bytes(16, '\0');
  if (hex.size() == 32 && std::all_of(hex.begin(), hex.end(), absl::ascii_isxdigit)) {
    namespace_bytes = absl::HexStringToBytes(hex);
  }
  const std::string input = absl::StrCat(namespace_bytes, name);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int digest_size = 0;
  EVP_Digest(input.data(), input.size(), digest.data(), &digest_size, EVP_sha1(), nullptr);
  digest[6] = static_cast<unsigned char>((digest[6] & 0x0F) | 0x50);  // version 5
  digest[8] = static_cast<unsigned char>((digest[8] & 0x3F) | 0x80);  // RFC 4122 variant
  const std::string text =
      absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest.data()), 16));
  return absl::StrCat(text.substr(0, 8), "-", text.substr(8, 4), "-", text.substr(12, 4), "-",
                      text.substr(16, 4), "-", text.substr(20, 12));
}

}  // namespace assisted::nmstate
