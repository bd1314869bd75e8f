// File: bench/percentile.h
//
// The p-th fraction (0.5 = median, 0.99, 1.0 = max) of a bench's samples: the value at rank
// p x size of them sorted; 0 when there are none.

#ifndef ASSISTED_BENCH_PERCENTILE_H_
#define ASSISTED_BENCH_PERCENTILE_H_

#include <algorithm>
#include <vector>

namespace assisted::bench {

inline double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * values.size()))];
}

}  // namespace assisted::bench

#endif  // ASSISTED_BENCH_PERCENTILE_H_
