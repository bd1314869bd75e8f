#include "services/gateway/api_error.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace assisted::gateway {
namespace {

constexpr char kHttpStatusPayload[] = "type.assisted.dev/gateway.http_status";

}  // namespace

absl::Status WithHttpStatus(absl::Status status, int http_status) {
  status.SetPayload(kHttpStatusPayload, absl::Cord(absl::StrCat(http_status)));
  return status;
}

int HttpStatusFor(const absl::Status& status) {
  if (absl::optional<absl::Cord> pinned = status.GetPayload(kHttpStatusPayload)) {
    int value = 0;
    if (absl::SimpleAtoi(std::string(*pinned), &value) && value >= 400 && value <= 599) {
      return value;
    }
  }
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kFailedPrecondition:
      return 409;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kCancelled:
      return 499;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    default:  // UNKNOWN, INTERNAL, DATA_LOSS
      return 500;
  }
}

std::string ErrorJson(int http_status, const std::string& reason) {
  nlohmann::json error = {{"code", absl::StrCat(http_status)},
                          {"href", ""},
                          {"id", http_status},
                          {"kind", "Error"},
                          {"reason", reason}};
  // Reasons may quote client input that is not UTF-8; replace rather than throw.
  return error.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

http::Response ErrorResponse(const absl::Status& status) {
  const int http_status = HttpStatusFor(status);
  std::string reason(status.message());
  if (http_status == 500) reason = "internal error";
  if (reason.empty()) reason = std::string(http::ReasonPhrase(http_status));
  http::Response response = http::Response::Json(http_status, ErrorJson(http_status, reason));
  if (http_status == 503 || http_status == 504 || http_status == 429) {
    response.headers.Set("Retry-After", "1");
  }
  return response;
}

}  // namespace assisted::gateway
