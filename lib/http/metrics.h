// File: lib/http/metrics.h
//
// Metrics of the project's HTTP servers, built once per service over its prometheus::Registry
// (style practice 14) and handed to HttpServer::Start; handlers and the server never touch
// prometheus-cpp types.
//   assisted_http_server_requests_total{route, method, code}   responses by route pattern
//   assisted_http_server_handling_seconds{route}               request head -> response head
//   assisted_http_server_in_flight_requests                    requests holding a slot
//   assisted_http_server_sent_bytes_total{route}               body bytes written to sockets
//   assisted_http_server_open_connections
//   assisted_http_server_timeouts_total{phase}                 header | body | send
//   assisted_http_server_refused_connections_total             over max_connections
// `route` is the matched pattern ("/images/{image_id}/{file}"), never the raw path, and "none"
// for requests that matched no route (404, 405, malformed, shed), so label cardinality is
// bounded by the route table whatever clients send; likewise `method` is one of the standard
// methods or "other".

#ifndef ASSISTED_LIB_HTTP_METRICS_H_
#define ASSISTED_LIB_HTTP_METRICS_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace assisted::http {

// Thread-safe; every method is cheap enough to call per request (per write for bytes).
class HttpMetrics {
 public:
  explicit HttpMetrics(prometheus::Registry& registry);

  // A request took an in-flight slot / gave it back.
  void RequestStarted() { in_flight_.Increment(); }
  void RequestEnded() { in_flight_.Decrement(); }

  // A response head went out. `route` is the matched pattern, empty when none matched;
  // `handling` is the time since the request's head was read.
  void Responded(absl::string_view route, absl::string_view method, int status,
                 absl::Duration handling);

  // `bytes` more body bytes of a response on `route` reached the socket.
  void BodyBytesSent(absl::string_view route, uint64_t bytes);

  void ConnectionOpened() { connections_.Increment(); }
  void ConnectionClosed() { connections_.Decrement(); }
  void ConnectionRefused() { refused_.Increment(); }

  // A client was cut off for being too slow: `phase` is "header", "body" or "send".
  void TimedOut(absl::string_view phase);

 private:
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& handling_;
  prometheus::Family<prometheus::Counter>& sent_bytes_;
  prometheus::Family<prometheus::Counter>& timeouts_;
  prometheus::Gauge& in_flight_;
  prometheus::Gauge& connections_;
  prometheus::Counter& refused_;
};

}  // namespace assisted::http

#endif  // ASSISTED_LIB_HTTP_METRICS_H_
