// File: services/agent/steps/parallel.h
//
// Bounded fan-out for executors that probe many addresses: calls fn(0..n-1) on at most
// `max_parallel` threads and returns when every call has returned. fn must be thread-safe and
// write only to its own index's slot of whatever it fills.

#ifndef ASSISTED_SERVICES_AGENT_STEPS_PARALLEL_H_
#define ASSISTED_SERVICES_AGENT_STEPS_PARALLEL_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace assisted::agent::steps {

template <typename Fn>
void ParallelFor(size_t n, size_t max_parallel, const Fn& fn) {
  std::atomic<size_t> next{0};
  auto drain = [&] {
    for (size_t i = next++; i < n; i = next++) fn(i);
  };
  const size_t threads = std::min(n, std::max<size_t>(max_parallel, 1));
  std::vector<std::thread> pool;
  pool.reserve(threads > 0 ? threads - 1 : 0);
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(drain);
  drain();
  for (std::thread& thread : pool) thread.join();
}

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_PARALLEL_H_
