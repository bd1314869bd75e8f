// File: lib/random/random.h
//
// The project's door to randomness, of two kinds:
//   - anything an attacker must not guess (keys, passwords, certificate serials, tokens, ids)
//     comes from OpenSSL's CSPRNG: SecureRandomBytes(), or SystemRandom for code that takes a
//     Random&;
//   - tests and simulations that want the same sequence every run use SeededRandom, which is
//     predictable by design and never a source of secrets.
// Logic takes a `Random&` so tests can use SeededRandom; main() hands out SystemRandom.

#ifndef ASSISTED_LIB_RANDOM_RANDOM_H_
#define ASSISTED_LIB_RANDOM_RANDOM_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

#include "absl/status/statusor.h"

namespace assisted {

// `count` bytes from OpenSSL's CSPRNG (RAND_bytes). INTERNAL when the generator fails (OpenSSL
// does only when it cannot seed itself from the operating system); never weaker bytes instead.
absl::StatusOr<std::string> SecureRandomBytes(size_t count);

class Random {
 public:
  virtual ~Random() = default;
  // 32 uniformly distributed bits.
  virtual uint32_t Next32() = 0;
};

// Unpredictable: every value comes from SecureRandomBytes, so what is made through a Random&
// (kubeadmin passwords, certificate serials, ids) is as strong as the CSPRNG. Thread-safe.
// Next32() has no way to report a failure, and guessable values where secrets are expected
// would be worse than stopping: if the CSPRNG fails, the process ends with a message.
class SystemRandom final : public Random {
 public:
  uint32_t Next32() override;
};

// A fixed sequence per seed (Mersenne Twister), for tests and simulations only: anyone who sees
// a few values can predict the rest. Not thread-safe.
class SeededRandom final : public Random {
 public:
  explicit SeededRandom(uint32_t seed) : engine_(seed) {}
  uint32_t Next32() override { return static_cast<uint32_t>(engine_()); }

 private:
  std::mt19937 engine_;
};

// A random (version 4) UUID in canonical lower-case form.
std::string RandomUuid(Random& random);

}  // namespace assisted

#endif  // ASSISTED_LIB_RANDOM_RANDOM_H_
