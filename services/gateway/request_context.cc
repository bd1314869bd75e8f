#include "services/gateway/request_context.h"

#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "lib/random/random.h"

namespace assisted::gateway {
namespace {

bool IsLowerHex(absl::string_view text) {
  for (char c : text) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c)) ||
        absl::ascii_isupper(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

// The trace id of a W3C trace context header "00-<32 hex>-<16 hex>-<2 hex>" (version 00; later
// versions may append fields), or empty. An all-zero id is invalid by the spec.
absl::string_view TraceIdOf(absl::string_view traceparent) {
  std::vector<absl::string_view> parts = absl::StrSplit(traceparent, '-');
  if (parts.size() < 4 || parts[0].size() != 2 || !IsLowerHex(parts[0]) || parts[0] == "ff" ||
      (parts[0] == "00" && parts.size() != 4) || parts[1].size() != 32 || !IsLowerHex(parts[1]) ||
      parts[1] == std::string(32, '0') || parts[2].size() != 16 || !IsLowerHex(parts[2]) ||
      parts[3].size() != 2 || !IsLowerHex(parts[3])) {
    return {};
  }
  return parts[1];
}

}  // namespace

std::string RequestIdOf(const http::Request& request) {
  if (absl::optional<absl::string_view> id = request.headers.Get(kRequestIdHeader);
      id.has_value() && log::IsWellFormedRequestId(*id)) {
    return std::string(*id);
  }
  if (absl::optional<absl::string_view> traceparent = request.headers.Get("traceparent")) {
    if (absl::string_view trace_id = TraceIdOf(*traceparent); !trace_id.empty()) {
      return std::string(trace_id);
    }
  }
  absl::StatusOr<std::string> bytes = SecureRandomBytes(16);
  // Without the generator (it fails only when it cannot seed) the request still gets served;
  // its lines just share the id "unnamed".
  return bytes.ok() ? absl::BytesToHexString(*bytes) : "unnamed";
}

http::Handler WithRequestContext(http::Handler handler, const log::Logger& access_log,
                                 const Clock& clock) {
  return [handler = std::move(handler), access_log, &clock](const http::Request& request) {
    const absl::Time start = clock.Now();
    std::string id = RequestIdOf(request);
    log::RequestIdScope scope(id);
    http::Response response = handler(request);
    response.headers.Set(kRequestIdHeader, std::move(id));
    access_log.Info("request", {{"method", request.method},
                                {"path", request.path},
                                {"route", request.route},
                                {"status", response.status},
                                {"bytes", response.body.size()},
                                {"seconds", absl::ToDoubleSeconds(clock.Now() - start)},
                                {"peer", request.peer},
                                {"user_agent", request.headers.Get("User-Agent").value_or("")}});
    return response;
  };
}

}  // namespace assisted::gateway
