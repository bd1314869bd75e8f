// File: lib/http/message.h
//
// The values handlers of lib/http see and return: a parsed Request and a Response whose body is
// a segmented Body (lib/http/body.h). Plain structs, no I/O, so handlers are unit-tested by
// calling them with a Request and inspecting the Response.
//
//   Response GetCluster(const Request& request) {
//     absl::StatusOr<std::string> json = api.GetCluster(request.Param("cluster_id"));
//     if (!json.ok()) return Response::FromStatus(json.status());
//     return Response::Json(200, *std::move(json));
//   }

#ifndef ASSISTED_LIB_HTTP_MESSAGE_H_
#define ASSISTED_LIB_HTTP_MESSAGE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/optional.h"
#include "lib/http/body.h"

namespace assisted::http {

// Header fields in order, names compared case-insensitively (RFC 9110 §5.1). A few fields per
// message, so a vector beats a map.
class Headers {
 public:
  // Appends a field; an existing one of the same name stays.
  void Add(std::string name, std::string value);
  // Replaces every field called `name` with one holding `value`.
  void Set(std::string name, std::string value);
  void Remove(absl::string_view name);

  // The first value of `name`, or nullopt.
  absl::optional<absl::string_view> Get(absl::string_view name) const;
  bool Has(absl::string_view name) const { return Get(name).has_value(); }

  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

struct Request {
  std::string method;  // as sent ("GET"; methods are case-sensitive). "HEAD" reaches GET routes.
  std::string target;  // the raw request-target, "/images/abc.iso?arch=x86_64"
  std::string path;    // percent-decoded path, "/images/abc.iso"
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  Headers headers;
  std::string body;
  std::string peer;   // client address "ip:port" ("[v6]:port")
  std::string route;  // the pattern that matched, "/images/{image_id}"
  absl::flat_hash_map<std::string, std::string> path_params;  // from {name} segments, decoded

  // The first value of query parameter `name`, or nullopt.
  absl::optional<absl::string_view> Query(absl::string_view name) const;
  // The value of path parameter `name` of the matched route; empty when the route has none.
  absl::string_view Param(absl::string_view name) const;
  // Whether the client wants the headers only (HEAD); the server drops the body either way.
  bool is_head() const { return method == "HEAD"; }
};

struct Response {
  // Any status from 200 to 599. The server writes Content-Length (from the body) and
  // Connection itself and ignores those fields (and Transfer-Encoding) if a handler sets them.
  int status = 200;
  Headers headers;
  Body body;

  // A response whose body is `text` with Content-Type text/plain; charset=utf-8.
  static Response Text(int status, std::string text);
  // A response whose body is the JSON document `json` with Content-Type application/json.
  static Response Json(int status, std::string json);
  // The same, sharing `json` (not null) with whoever else holds it: no copy.
  static Response Json(int status, std::shared_ptr<const std::string> json);
  // An error response for `status` (which must not be OK): the HTTP status for its code (see
  // HttpStatusFor) and its message as text.
  static Response FromStatus(const absl::Status& status);
};

// The HTTP status that best carries a canonical error code: INVALID_ARGUMENT 400,
// UNAUTHENTICATED 401, PERMISSION_DENIED 403, NOT_FOUND 404, ALREADY_EXISTS/ABORTED 409,
// FAILED_PRECONDITION 412... see the table in message.cc; OK is 200.
int HttpStatusFor(absl::StatusCode code);

// The reason phrase of `status` ("Partial Content"), "Unknown" for unregistered codes.
absl::string_view ReasonPhrase(int status);

}  // namespace assisted::http

#endif  // ASSISTED_LIB_HTTP_MESSAGE_H_
