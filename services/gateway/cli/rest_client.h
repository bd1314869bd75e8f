// File: services/gateway/cli/rest_client.h
//
// aictl's client of the gateway's REST API (/api/assisted-install/v2): JSON calls with the
// user's bearer token, and file downloads streamed to disk with progress. Errors come back as
// absl::Status carrying the gateway's own reason, so aictl can print what the server said:
//
//   RestClient client({.server = "http://localhost:8080", .token = token});
//   absl::StatusOr<nlohmann::json> cluster = client.Call("GET", "/clusters/" + id);
//   if (!cluster.ok()) ... cluster.status().message() is "404: cluster 1f… not found"
//
// Status codes mirror HTTP: 400/422 INVALID_ARGUMENT, 401 UNAUTHENTICATED, 403
// PERMISSION_DENIED, 404 NOT_FOUND, 409 FAILED_PRECONDITION, 413/429 RESOURCE_EXHAUSTED,
// 5xx and transport failures UNAVAILABLE.

#ifndef ASSISTED_SERVICES_GATEWAY_CLI_REST_CLIENT_H_
#define ASSISTED_SERVICES_GATEWAY_CLI_REST_CLIENT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace assisted::cli {

inline constexpr char kApiPrefix[] = "/api/assisted-install/v2";

// The status an HTTP answer with `http_status` and `body` stands for: OK for 2xx; otherwise the
// code mapped as above, with the message "<http status>: <reason>" (reason from a JSON error
// body, else the body's first line).
absl::Status StatusFromHttp(long http_status, absl::string_view body);

class RestClient {
 public:
  struct Options {
    std::string server;   // base URL, e.g. http://localhost:8080
    std::string token;    // bearer token; empty: none sent
    std::string ca_file;  // PEM CA bundle for https servers; empty: the system's roots
    absl::Duration timeout = absl::Seconds(30);  // per JSON call
  };

  explicit RestClient(Options options);
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  // `method` on kApiPrefix + `path` (path may carry a query). The body, when given, is sent as
  // application/json. Returns the parsed answer (null for an empty body).
  absl::StatusOr<nlohmann::json> Call(absl::string_view method, absl::string_view path,
                                      const std::optional<nlohmann::json>& body = std::nullopt);

  // GET of kApiPrefix + `path`, the raw body (credentials, Ignition files).
  absl::StatusOr<std::string> GetText(absl::string_view path);

  // Called as bytes arrive: received so far, and the total (-1 while unknown).
  using Progress = std::function<void(int64_t received, int64_t total)>;

  // Streams the absolute `url` into `path` (written to path + ".part", renamed into place once
  // complete, so an interrupted download never looks whole). Sends no token: download URLs
  // carry their own. A transfer cut off mid-content keeps its .part and the content's ETag
  // (path + ".part.etag") and fails UNAVAILABLE; the next call for the same path asks only for
  // the rest (Range, guarded by If-Range: a changed content comes whole and starts the file
  // over). Returns the size of the file.
  absl::StatusOr<int64_t> Download(const std::string& url, const std::string& path,
                                   const Progress& progress);

 private:
  // One request to kApiPrefix + path; `body` (JSON text) when not null. The answer's body on
  // a 2xx status.
  absl::StatusOr<std::string> Perform(absl::string_view method, absl::string_view path,
                                      const std::string* body);

  Options options_;
  void* curl_;
};

}  // namespace assisted::cli

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_REST_CLIENT_H_
