// File: lib/random/random.h
//
// The project's door to randomness (ids, jitter, sampling). Logic takes a `Random&` so tests can
// use SeededRandom and get the same sequence every run; main() hands out SystemRandom.

#ifndef ASSISTED_LIB_RANDOM_RANDOM_H_
#define ASSISTED_LIB_RANDOM_RANDOM_H_

#include <cstdint>
#include <random>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/random/random.h"
#include "absl/synchronization/mutex.h"

namespace assisted {

class Random {
 public:
  virtual ~Random() = default;
  // 32 uniformly distributed bits.
  virtual uint32_t Next32() = 0;
};

// Non-deterministic, seeded by the operating system. Thread-safe.
class SystemRandom final : public Random {
 public:
  uint32_t Next32() override {
    absl::MutexLock lock(&mu_);
    return absl::Uniform<uint32_t>(gen_);
  }

 private:
  absl::Mutex mu_;
  absl::BitGen gen_ ABSL_GUARDED_BY(mu_);
};

// A fixed sequence per seed, for tests and simulations. Not thread-safe.
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
