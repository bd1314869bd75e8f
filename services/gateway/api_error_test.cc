#include "services/gateway/api_error.h"

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace assisted::gateway {
namespace {

TEST(HttpStatusFor, MapsEveryCanonicalCode) {
  const std::vector<std::pair<absl::StatusCode, int>> table = {
      {absl::StatusCode::kOk, 200},
      {absl::StatusCode::kInvalidArgument, 400},
      {absl::StatusCode::kOutOfRange, 400},
      {absl::StatusCode::kUnauthenticated, 401},
      {absl::StatusCode::kPermissionDenied, 403},
      {absl::StatusCode::kNotFound, 404},
      {absl::StatusCode::kAlreadyExists, 409},
      {absl::StatusCode::kAborted, 409},
      {absl::StatusCode::kFailedPrecondition, 409},
      {absl::StatusCode::kResourceExhausted, 429},
      {absl::StatusCode::kCancelled, 499},
      {absl::StatusCode::kUnimplemented, 501},
      {absl::StatusCode::kUnavailable, 503},
      {absl::StatusCode::kDeadlineExceeded, 504},
      {absl::StatusCode::kInternal, 500},
      {absl::StatusCode::kDataLoss, 500},
      {absl::StatusCode::kUnknown, 500},
  };
  for (const auto& [code, http] : table) {
    EXPECT_EQ(HttpStatusFor(absl::Status(code, "x")), http) << absl::StatusCodeToString(code);
  }
}

TEST(HttpStatusFor, PinnedStatusWins) {
  EXPECT_EQ(HttpStatusFor(WithHttpStatus(absl::InvalidArgumentError("x"), 415)), 415);
  EXPECT_EQ(HttpStatusFor(WithHttpStatus(absl::InvalidArgumentError("x"), 422)), 422);
}

TEST(ErrorResponse, IsTheReferenceErrorDocument) {
  http::Response response =
      ErrorResponse(absl::FailedPreconditionError("cluster abc is installing"));
  EXPECT_EQ(response.status, 409);
  auto body = nlohmann::json::parse(*response.body.ReadAll());
  EXPECT_EQ(body["code"], "409");
  EXPECT_EQ(body["id"], 409);
  EXPECT_EQ(body["kind"], "Error");
  EXPECT_EQ(body["href"], "");
  EXPECT_EQ(body["reason"], "cluster abc is installing");
  EXPECT_FALSE(response.headers.Has("Retry-After"));
}

TEST(ErrorResponse, OutagesSayWhenToRetryAndInternalsStayPrivate) {
  http::Response unavailable = ErrorResponse(absl::UnavailableError("inventory unavailable"));
  EXPECT_EQ(unavailable.status, 503);
  EXPECT_EQ(unavailable.headers.Get("Retry-After").value_or(""), "1");
  http::Response internal = ErrorResponse(absl::InternalError("pq: secret detail"));
  EXPECT_EQ(nlohmann::json::parse(*internal.body.ReadAll())["reason"], "internal error");
}

TEST(ErrorJson, SurvivesInvalidUtf8InTheReason) {
  auto body = nlohmann::json::parse(ErrorJson(400, "name: \xff"));
  EXPECT_EQ(body["id"], 400);
}

}  // namespace
}  // namespace assisted::gateway
