// File: lib/testing/status_matchers.h
//
// GoogleTest matchers for absl::Status and absl::StatusOr<T> (Abseil 20220623 ships none).
//
//   EXPECT_THAT(store.Put(k, v), IsOk());
//   EXPECT_THAT(store.Get(k), IsOkAndHolds(Eq("v")));
//   EXPECT_THAT(parse(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--port")));

#ifndef ASSISTED_LIB_TESTING_STATUS_MATCHERS_H_
#define ASSISTED_LIB_TESTING_STATUS_MATCHERS_H_

#include <ostream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace assisted::testing {

namespace internal {

inline const absl::Status& GetStatus(const absl::Status& status) { return status; }

template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

}  // namespace internal

// Matches an OK absl::Status or an absl::StatusOr<T> holding a value.
MATCHER(IsOk, "is OK") {
  const absl::Status& status = internal::GetStatus(arg);
  if (!status.ok()) *result_listener << "which is " << status;
  return status.ok();
}

// Matches a status (or StatusOr's status) whose code equals `code` and whose message matches
// `message_matcher` (any message when omitted).
MATCHER_P2(StatusIs, code, message_matcher,
           "has code " + absl::StatusCodeToString(code) + " and a matching message") {
  const absl::Status& status = internal::GetStatus(arg);
  if (status.code() != code) {
    *result_listener << "which is " << status;
    return false;
  }
  return ::testing::ExplainMatchResult(message_matcher, std::string(status.message()),
                                       result_listener);
}

MATCHER_P(StatusIs, code, "has code " + absl::StatusCodeToString(code)) {
  const absl::Status& status = internal::GetStatus(arg);
  if (status.code() != code) *result_listener << "which is " << status;
  return status.code() == code;
}

// Matches an absl::StatusOr<T> that holds a value matching `value_matcher`.
MATCHER_P(IsOkAndHolds, value_matcher, "is OK and holds a matching value") {
  if (!arg.ok()) {
    *result_listener << "which is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(value_matcher, *arg, result_listener);
}

}  // namespace assisted::testing

#endif  // ASSISTED_LIB_TESTING_STATUS_MATCHERS_H_
