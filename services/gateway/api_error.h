// File: services/gateway/api_error.h
//
// How the REST API reports failures: every error is the assisted-service Error model
//   {"code": "404", "href": "", "id": 404, "kind": "Error", "reason": "cluster … not found"}
// with the HTTP status that carries it. Handlers and the layers below them deal only in
// absl::Status; HttpStatusFor() is the one place that turns a canonical (gRPC) code into an
// HTTP status. Where the code alone is not precise enough (413, 415, 422), the gateway pins the
// HTTP status on the Status itself with WithHttpStatus().

#ifndef ASSISTED_SERVICES_GATEWAY_API_ERROR_H_
#define ASSISTED_SERVICES_GATEWAY_API_ERROR_H_

#include <string>

#include "absl/status/status.h"
#include "lib/http/message.h"

namespace assisted::gateway {

// `status` (not OK) with an explicit HTTP status attached, e.g. 415 for a wrong Content-Type.
absl::Status WithHttpStatus(absl::Status status, int http_status);

// The HTTP status for a failed call: the one pinned with WithHttpStatus, else by code:
//   INVALID_ARGUMENT, OUT_OF_RANGE 400 · UNAUTHENTICATED 401 · PERMISSION_DENIED 403 ·
//   NOT_FOUND 404 (also another tenant's resource) · ALREADY_EXISTS, ABORTED,
//   FAILED_PRECONDITION 409 (a wrong state; the message names the current one) ·
//   RESOURCE_EXHAUSTED 429 · CANCELLED 499 · UNIMPLEMENTED 501 · UNAVAILABLE 503 ·
//   DEADLINE_EXCEEDED 504 · anything else 500. OK is 200.
int HttpStatusFor(const absl::Status& status);

// The Error JSON document for an HTTP status and a reason.
std::string ErrorJson(int http_status, const std::string& reason);

// The response for a failed call: HttpStatusFor(status) and ErrorJson with the status message.
// Backend outages (UNAVAILABLE, DEADLINE_EXCEEDED) also get Retry-After. Internal errors are
// reported without their message, which may carry details meant for logs only.
http::Response ErrorResponse(const absl::Status& status);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_API_ERROR_H_
