// File: services/orchestrator/deadlines.h
//
// The monitor's timetable: one deadline per key, kept in time order, so the monitor wakes at the
// nearest one instead of scanning every agent on a fixed period (a quiet fleet of any size then
// costs the monitor nothing). Setting a deadline earlier than the one the monitor sleeps towards
// wakes it at once.
//
//   Deadlines deadlines(clock);
//   deadlines.Set("closed/" + host, heard + timeout);   // replaces the key's deadline
//   deadlines.Cancel("closed/" + host);
//   // the monitor's thread:
//   while (deadlines.WaitForDue(longest_wait)) Handle(deadlines.TakeDue(clock.Now()));
//
// Thread-safe.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_DEADLINES_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_DEADLINES_H_

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/time/clock.h"

namespace assisted::orchestrator {

class Deadlines {
 public:
  // `clock` must outlive this.
  explicit Deadlines(const Clock& clock) : clock_(clock) {}

  // Sets `key`'s deadline to `when`, replacing the one it had.
  void Set(const std::string& key, absl::Time when);
  // Sets `key`'s deadline to `when` unless it has one already.
  void SetIfUnset(const std::string& key, absl::Time when);
  void Cancel(const std::string& key);
  bool Has(const std::string& key) const;

  // Removes and returns the keys due at `now` (deadline <= now), earliest first.
  std::vector<std::string> TakeDue(absl::Time now);

  // The nearest deadline; InfiniteFuture when there is none.
  absl::Time Earliest() const;
  size_t size() const;

  // Blocks until a deadline is due by the clock, `longest_wait` (real time) has passed, or Stop;
  // a deadline set meanwhile earlier than the one waited for shortens the wait. False once
  // stopped.
  bool WaitForDue(absl::Duration longest_wait);
  void Stop();

  // Returns once a thread is blocked in WaitForDue; for tests that must set a deadline while
  // the monitor sleeps.
  void AwaitWaiter() const;

 private:
  void SetLocked(const std::string& key, absl::Time when) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EraseLocked(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Clock& clock_;
  mutable absl::Mutex mu_;
  std::set<std::pair<absl::Time, std::string>> by_time_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, absl::Time> by_key_ ABSL_GUARDED_BY(mu_);
  // Set when a deadline earlier than the one a waiter sleeps towards arrives.
  bool sooner_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time waiting_for_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  int waiters_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_DEADLINES_H_
