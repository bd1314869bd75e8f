// File: lib/http/server.h
//
// The project's HTTP/1.1 server (Boost.Beast parsing over Boost.Asio), shared by the image service
// (ISO/PXE downloads: 1 GiB files to browsers, BMC virtual media and PXE firmware, many at once,
// some very slow) and the REST gateway. What it guarantees:
//   - every response has a Content-Length; bodies are segments of memory and file ranges, and
//     file ranges go out with sendfile(2) on non-blocking sockets, never through user space;
//   - keep-alive and pipelining; HEAD on every GET route (same headers, no body);
//   - hostile or broken clients cost bounded resources: header and body size limits (431, 413),
//     a header deadline and a body deadline (408), an idle keep-alive timeout, a send-stall
//     timeout, a cap on requests in flight (503 + Retry-After; a request takes its slot only once
//     its body is in) and on open connections, in total and per client address; a
//     malformed request gets 400 and the connection is closed; nothing a client sends can stop
//     the server or pin a thread;
//   - Shutdown(grace) stops accepting, closes idle connections and lets responses in flight
//     finish for up to `grace`.
//
//   Router router;
//   RETURN_IF_ERROR(router.Handle("GET", "/images/{image_id}/{file}", ServeImage));
//   ASSIGN_OR_RETURN(std::unique_ptr<HttpServer> server,
//                    HttpServer::Start(options, std::move(router), &metrics, log));
//   ...
//   server->Shutdown(absl::Seconds(10));

#ifndef ASSISTED_LIB_HTTP_SERVER_H_
#define ASSISTED_LIB_HTTP_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/config/config.h"
#include "lib/http/message.h"
#include "lib/http/router.h"
#include "lib/log/log.h"

namespace assisted::http {

class HttpMetrics;

struct HttpServerOptions {
  // "host:port" ("[v6]:port"; an empty host is 0.0.0.0); port 0 binds a free port, see
  // HttpServer::port().
  std::string listen = "0.0.0.0:8080";
  // Threads running the event loop (0: one per core). Every connection lives on one of them at a
  // time; handlers run there too unless handler_threads > 0.
  int io_threads = 0;
  // Threads for handlers (0: handlers run on the I/O threads). Give handlers that block (a gRPC
  // call per REST request in the gateway) their own threads so they never stall downloads.
  int handler_threads = 0;

  // Largest request head (request line + header fields); beyond it, 431 and close.
  uint32_t max_header_bytes = 16 * 1024;
  // Largest request body; beyond it, 413 and close (before reading the body when the client
  // announces its length).
  uint64_t max_body_bytes = 1 << 20;
  // Requests between the end of their body (a slow upload holds none) and the end of their
  // response; beyond it, 503 with Retry-After. A download counts until its last byte is sent.
  int max_in_flight = 1024;
  // Open connections; beyond it, new ones are closed at once.
  int max_connections = 10000;
  // Open connections from one client address; beyond it, that address's new connections are
  // closed at once, so one host cannot take every connection (or, with slow bodies, every
  // buffer) for itself. Clients behind one NAT or proxy share the budget.
  int max_connections_per_peer = 64;
  // What a 503 tells the client to wait (rounded up to whole seconds, at least 1).
  absl::Duration retry_after = absl::Seconds(1);

  // From the first byte of a request (or from accepting the connection) until its whole head is
  // in; a slow-header (slowloris) client gets 408 and is closed.
  absl::Duration header_timeout = absl::Seconds(10);
  // From the end of the head until the whole body is in; 408 and close beyond it.
  absl::Duration body_timeout = absl::Seconds(60);
  // How long a kept-alive connection may wait for its next request before it is closed.
  absl::Duration idle_timeout = absl::Seconds(30);
  // How long a response may make no progress at all (the client reads nothing) before the
  // connection is dropped. Slow readers are fine (a BMC at 1 Mbit/s takes hours for an ISO);
  // only a stalled one is cut.
  absl::Duration send_stall_timeout = absl::Seconds(60);

  // Builds the answers the server gives by itself (400 malformed, 404 and 405 without a route,
  // 408, 413, 431, 501, 503 busy, 500 for a handler that threw) from their status and a one-line
  // reason. Unset: the reason as plain text. The gateway answers its API's Error document.
  std::function<Response(int status, absl::string_view reason)> error_response;

  // Send file segments with sendfile(2). Off: read them into a buffer and write it (what TLS
  // will need); also the fallback when a file system refuses sendfile.
  bool use_sendfile = true;

  // Adds --<prefix>-listen, --<prefix>-threads, --<prefix>-max-in-flight and
  // --<prefix>-max-connections-per-peer, bound to these fields.
  void Register(config::Parser& parser, absl::string_view prefix = "http");
};

class HttpServer {
 public:
  // Binds `options.listen` and starts serving `router` on options.io_threads threads.
  // `metrics` (may be null) and everything the handlers use must outlive the server.
  // INVALID_ARGUMENT for a bad listen address or option; UNAVAILABLE when the address cannot be
  // bound (in use, no permission).
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                           Router router, HttpMetrics* metrics,
                                                           const log::Logger& log);

  // Shuts down with no grace if Shutdown() was not called.
  ~HttpServer();

  // The bound TCP port.
  int port() const;

  // Stops accepting connections, closes idle ones, lets requests in flight finish their
  // responses for up to `grace`, then closes whatever is left and stops the threads (waiting for
  // handlers that are still running). Idempotent; blocks until done.
  void Shutdown(absl::Duration grace);

  class Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace assisted::http

#endif  // ASSISTED_LIB_HTTP_SERVER_H_
