// File: services/gateway/request_context.h
//
// What the gateway does around every REST request, whatever its route: it names the request
// and writes one access log line for it.
//   - The request id is the client's X-Request-ID when well formed (log::IsWellFormedRequestId),
//     else the trace id of a valid W3C `traceparent`, else 32 random hex digits. The response
//     carries it back as X-Request-ID.
//   - The handler runs inside a log::RequestIdScope: its log lines carry request_id, its gRPC
//     calls forward it (metadata x-request-id, lib/grpc/request_id.h), and the events the
//     services append for it record it in request_id.
//   - After the handler, one line on the `access` logger: method, path, route, status, bytes,
//     seconds, peer and user agent (numbers as JSON numbers); the path never includes the query.
// Requests no route takes (404, 405) get the same: the router passes the server's answer through
// its handler wrappers (http::Router::Unrouted), so they have an id and an access log line with
// an empty route. Requests the server refuses before routing (400, 408, 413, 503) reach no
// handler and are counted by the HTTP metrics only.

#ifndef ASSISTED_SERVICES_GATEWAY_REQUEST_CONTEXT_H_
#define ASSISTED_SERVICES_GATEWAY_REQUEST_CONTEXT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "lib/http/router.h"
#include "lib/log/log.h"
#include "lib/time/clock.h"

namespace assisted::gateway {

inline constexpr char kRequestIdHeader[] = "X-Request-ID";

// The id for `request` per the rules above (random ids from OpenSSL's generator).
std::string RequestIdOf(const http::Request& request);

// Wraps `handler` as described in the banner. `clock` must outlive the handler.
http::Handler WithRequestContext(http::Handler handler, const log::Logger& access_log,
                                 const Clock& clock);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_REQUEST_CONTEXT_H_
