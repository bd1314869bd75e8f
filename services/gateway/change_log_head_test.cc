#include "services/gateway/change_log_head.h"

#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/eventually.h"

namespace assisted::gateway {
namespace {

using ::assisted::testing::Eventually;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;

constexpr absl::Duration kPatience = absl::Seconds(30);

// A fetch the test lets return, one at a time; each answers the number of fetches begun so far.
class SteppedFetch {
 public:
  ChangeLogHead::Fetch AsFetch() {
    return [this](absl::Time) -> absl::StatusOr<int64_t> {
      absl::MutexLock lock(&mu_);
      const int64_t mine = ++begun_;
      auto released = [this, mine]()
                          ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return released_ >= mine; };
      mu_.Await(absl::Condition(&released));
      if (mine == fail_) return absl::UnavailableError("inventory down");
      return mine * 10;
    };
  }
  // Waits until `n` fetches have begun.
  void AwaitBegun(int64_t n) {
    absl::MutexLock lock(&mu_);
    auto begun = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return begun_ >= n; };
    mu_.Await(absl::Condition(&begun));
  }
  void Release(int64_t n) {
    absl::MutexLock lock(&mu_);
    released_ = n;
  }
  void FailNumber(int64_t n) {
    absl::MutexLock lock(&mu_);
    fail_ = n;
  }
  int64_t begun() {
    absl::MutexLock lock(&mu_);
    return begun_;
  }

 private:
  absl::Mutex mu_;
  int64_t begun_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t released_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t fail_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST(ChangeLogHead, AReadAloneFetchesTheHeadItself) {
  SteppedFetch fetch;
  fetch.Release(100);
  ChangeLogHead head(fetch.AsFetch());
  EXPECT_THAT(head.Current(absl::Now() + kPatience), IsOkAndHolds(10));
  EXPECT_THAT(head.Current(absl::Now() + kPatience), IsOkAndHolds(20));
}

TEST(ChangeLogHead, AReadArrivingDuringAFetchWaitsForTheNextOneWhichServesEveryoneThatArrived) {
  SteppedFetch fetch;
  ChangeLogHead head(fetch.AsFetch());
  absl::StatusOr<int64_t> first;
  std::thread first_reader([&] { first = head.Current(absl::Now() + kPatience); });
  fetch.AwaitBegun(1);
  // Three reads arrive while fetch 1 is in flight: it may predate them, so none may use it.
  std::vector<absl::StatusOr<int64_t>> later(3);
  std::vector<std::thread> later_readers;
  for (auto& result : later) {
    later_readers.emplace_back([&] { result = head.Current(absl::Now() + kPatience); });
  }
  ASSERT_TRUE(Eventually([&] { return head.waiting() == 3; }, kPatience,
                         "three reads wait for the fetch in flight"));
  fetch.Release(1);
  first_reader.join();
  EXPECT_THAT(first, IsOkAndHolds(10));
  fetch.AwaitBegun(2);
  fetch.Release(2);
  for (std::thread& reader : later_readers) reader.join();
  // One fetch, begun after fetch 1 returned, served all three.
  for (const auto& result : later) EXPECT_THAT(result, IsOkAndHolds(20));
  EXPECT_EQ(fetch.begun(), 2);
}

TEST(ChangeLogHead, AFailedFetchFailsTheReadsItServedAndTheNextReadTriesAgain) {
  SteppedFetch fetch;
  fetch.FailNumber(1);
  fetch.Release(100);
  ChangeLogHead head(fetch.AsFetch());
  EXPECT_THAT(head.Current(absl::Now() + kPatience), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(head.Current(absl::Now() + kPatience), IsOkAndHolds(20));
}

TEST(ChangeLogHead, AReadWhoseDeadlinePassesWhileAnotherFetchIsInFlightGivesUp) {
  SteppedFetch fetch;
  ChangeLogHead head(fetch.AsFetch());
  std::thread first_reader([&] { (void)head.Current(absl::Now() + kPatience); });
  fetch.AwaitBegun(1);
  EXPECT_THAT(head.Current(absl::Now()), StatusIs(absl::StatusCode::kDeadlineExceeded));
  fetch.Release(100);
  first_reader.join();
}

}  // namespace
}  // namespace assisted::gateway
