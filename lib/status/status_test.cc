#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/status/grpc_status.h"
#include "lib/status/status_macros.h"
#include "lib/testing/status_matchers.h"

namespace assisted {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

absl::StatusOr<int> Half(int value) {
  if (value % 2 != 0) return absl::InvalidArgumentError("value: odd");
  return value / 2;
}

absl::StatusOr<int> Quarter(int value) {
  ASSIGN_OR_RETURN(int half, Half(value));
  ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

absl::Status CheckEven(int value) {
  RETURN_IF_ERROR(Half(value).status());
  return absl::OkStatus();
}

TEST(StatusMacros, AssignOrReturnPassesValuesThrough) { EXPECT_THAT(Quarter(8), IsOkAndHolds(2)); }

TEST(StatusMacros, AssignOrReturnStopsAtFirstError) {
  EXPECT_THAT(Quarter(6), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("odd")));
}

TEST(StatusMacros, ReturnIfErrorReturnsTheError) {
  EXPECT_THAT(CheckEven(2), IsOk());
  EXPECT_THAT(CheckEven(3), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(StatusMatchers, IsOkRejectsErrors) {
  EXPECT_THAT(absl::NotFoundError("x"), Not(IsOk()));
  EXPECT_THAT(absl::StatusOr<int>(absl::AbortedError("x")), Not(IsOkAndHolds(1)));
}

TEST(GrpcStatus, CodesAndMessagesSurviveTheRoundTrip) {
  for (int code = 0; code <= 16; ++code) {
    const absl::Status original(static_cast<absl::StatusCode>(code), code == 0 ? "" : "why");
    const grpc::Status wire = ToGrpcStatus(original);
    EXPECT_EQ(static_cast<int>(wire.error_code()), code);
    EXPECT_EQ(FromGrpcStatus(wire), original);
  }
}

TEST(GrpcStatus, AbortedNamesTheActualStatus) {
  const grpc::Status wire = ToGrpcStatus(absl::AbortedError("status is installing"));
  EXPECT_EQ(wire.error_code(), grpc::StatusCode::ABORTED);
  EXPECT_EQ(wire.error_message(), "status is installing");
}

}  // namespace
}  // namespace assisted
