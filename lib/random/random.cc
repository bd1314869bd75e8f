#include "lib/random/random.h"

#include <openssl/err.h>
#include <openssl/rand.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace assisted {

absl::StatusOr<std::string> SecureRandomBytes(size_t count) {
  std::string bytes(count, '\0');
  // RAND_bytes takes an int; larger requests are served in pieces.
  for (size_t done = 0; done < count;) {
    const int piece = static_cast<int>(std::min<size_t>(count - done, INT_MAX));
    if (RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data() + done), piece) != 1) {
      const char* reason = ERR_reason_error_string(ERR_get_error());
      return absl::InternalError(absl::StrCat("the CSPRNG (OpenSSL RAND_bytes) failed: ",
                                              reason != nullptr ? reason : "no reason given"));
    }
    done += piece;
  }
  return bytes;
}

uint32_t SystemRandom::Next32() {
  absl::StatusOr<std::string> bytes = SecureRandomBytes(sizeof(uint32_t));
  if (!bytes.ok()) {
    std::fprintf(stderr, "fatal: %s\n", std::string(bytes.status().message()).c_str());
    std::abort();
  }
  uint32_t value = 0;
  std::memcpy(&value, bytes->data(), sizeof(value));
  return value;
}

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
