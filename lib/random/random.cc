#include "lib/random/random.h"

#include "absl/strings/str_format.h"

namespace assisted {

std::string RandomUuid(Random& random) {
  uint8_t bytes[16];
  for (int i = 0; i < 16; i += 4) {
    const uint32_t word = random.Next32();
    for (int j = 0; j < 4; ++j) bytes[i + j] = static_cast<uint8_t>(word >> (8 * j));
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x40;  // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80;  // RFC 4122 variant
  std::string text;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    absl::StrAppendFormat(&text, "%02x", bytes[i]);
  }
  return text;
}

}  // namespace assisted
