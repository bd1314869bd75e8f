// File: lib/crypto/sealed.h
//
// Secrets at rest: values sealed with AES-256-GCM under a key read from a file, so that a copy of
// the database alone reveals nothing.
//
// Envelope (binary), version 1:
//   [0x01][key id: 8 bytes][nonce: 12 bytes][ciphertext: as long as the plaintext][tag: 16 bytes]
// The key id is the first 8 bytes of SHA-256 over the key: it names which key sealed a value,
// so a Sealer holding the current key and older ones opens values of any of them (rotation),
// and a re-seal pass finds the values not yet under the current key by their first 9 bytes
// (Header()). The nonce is random (SecureRandomBytes) for every value; with 96-bit random
// nonces one key seals far more values than any inventory holds before collisions matter.
// The associated data (not stored) binds a ciphertext to where it lives, e.g. the table, column
// and row: moved to another row, it no longer opens.
//
// Key files hold exactly 32 bytes, raw or base64 (surrounding whitespace ignored).
// Thread-safe: a Sealer is immutable after construction.

#ifndef ASSISTED_LIB_CRYPTO_SEALED_H_
#define ASSISTED_LIB_CRYPTO_SEALED_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::crypto {

inline constexpr size_t kSealKeySize = 32;
inline constexpr size_t kSealKeyIdSize = 8;
inline constexpr size_t kSealHeaderSize = 1 + kSealKeyIdSize;
inline constexpr size_t kSealNonceSize = 12;
inline constexpr size_t kSealTagSize = 16;
// Bytes an envelope adds to its plaintext.
inline constexpr size_t kSealOverhead = kSealHeaderSize + kSealNonceSize + kSealTagSize;

class Sealer {
 public:
  // From 32-byte keys: `current` seals and opens, each of `older` only opens.
  // INVALID_ARGUMENT for a key of another size.
  static absl::StatusOr<Sealer> FromKeys(std::string current, std::vector<std::string> older = {});

  // From key files (see the banner). INVALID_ARGUMENT naming the file when it is missing,
  // unreadable, or does not hold 32 bytes raw or in base64.
  static absl::StatusOr<Sealer> FromFiles(const std::string& current_file,
                                          const std::vector<std::string>& older_files = {});

  // Reads one key file; exposed for configuration checks.
  static absl::StatusOr<std::string> ReadKeyFile(const std::string& path);

  // A new envelope of `plaintext` under the current key. INTERNAL only when OpenSSL fails.
  absl::StatusOr<std::string> Seal(absl::string_view plaintext,
                                   absl::string_view associated_data) const;

  // The plaintext of an envelope sealed with any key held here and the same associated data.
  // DATA_LOSS for a truncated, tampered or misplaced (other associated data) envelope;
  // FAILED_PRECONDITION when sealed with a key not held here (its id is named).
  absl::StatusOr<std::string> Open(absl::string_view envelope,
                                   absl::string_view associated_data) const;

  // The first kSealHeaderSize bytes of every envelope the current key seals.
  const std::string& Header() const { return keys_.front().header; }
  // Whether `envelope` was sealed with the current key (by its header).
  bool SealedWithCurrentKey(absl::string_view envelope) const;

 private:
  struct Key {
    std::string secret;  // 32 bytes
    std::string header;  // version byte + key id
  };
  explicit Sealer(std::vector<Key> keys) : keys_(std::move(keys)) {}

  std::vector<Key> keys_;  // current first
};

}  // namespace assisted::crypto

#endif  // ASSISTED_LIB_CRYPTO_SEALED_H_
