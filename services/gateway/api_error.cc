#include "services/gateway/api_error.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/http/message.h"
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
  // The REST API answers a wrong state with 409 naming the current one (the reference's
  // convention); every other code maps as everywhere else in lib/http.
  if (status.code() == absl::StatusCode::kFailedPrecondition) return 409;
  return http::HttpStatusFor(status.code());
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
