#include "lib/time/backoff.h"

#include <algorithm>
#include <cmath>

namespace assisted {

absl::Duration Backoff::Next() {
  const double nominal_seconds =
      std::min(absl::ToDoubleSeconds(policy_.initial) * std::pow(policy_.multiplier, attempt_),
               absl::ToDoubleSeconds(policy_.max));
  if (nominal_seconds < absl::ToDoubleSeconds(policy_.max)) ++attempt_;
  // Uniform in [-1, 1).
  const double spread = (random_.Next32() / 4294967296.0) * 2.0 - 1.0;
  const double seconds = nominal_seconds * (1.0 + policy_.jitter * spread);
  return std::min(absl::Seconds(seconds), policy_.max * (1.0 + policy_.jitter));
}

}  // namespace assisted
