#include "lib/http/metrics.h"

#include "absl/strings/str_cat.h"

namespace assisted::http {
namespace {

std::string RouteLabel(absl::string_view route) {
  return route.empty() ? "none" : std::string(route);
}

std::string MethodLabel(absl::string_view method) {
  for (absl::string_view known :
       {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"}) {
    if (method == known) return std::string(known);
  }
  return "other";
}

}  // namespace

HttpMetrics::HttpMetrics(prometheus::Registry& registry)
    : requests_(prometheus::BuildCounter()
                    .Name("assisted_http_server_requests_total")
                    .Help("HTTP responses by route pattern, method and status code.")
                    .Register(registry)),
      handling_(prometheus::BuildHistogram()
                    .Name("assisted_http_server_handling_seconds")
                    .Help("Time from a request's head to its response's head, by route.")
                    .Register(registry)),
      sent_bytes_(prometheus::BuildCounter()
                      .Name("assisted_http_server_sent_bytes_total")
                      .Help("Response body bytes written to client sockets, by route.")
                      .Register(registry)),
      timeouts_(prometheus::BuildCounter()
                    .Name("assisted_http_server_timeouts_total")
                    .Help("Clients cut off for being too slow, by phase (header, body, send).")
                    .Register(registry)),
      in_flight_(prometheus::BuildGauge()
                     .Name("assisted_http_server_in_flight_requests")
                     .Help("Requests between their head and the end of their response.")
                     .Register(registry)
                     .Add({})),
      connections_(prometheus::BuildGauge()
                       .Name("assisted_http_server_open_connections")
                       .Help("Open client connections.")
                       .Register(registry)
                       .Add({})),
      refused_(prometheus::BuildCounter()
                   .Name("assisted_http_server_refused_connections_total")
                   .Help("Connections closed on accept because max_connections were open.")
                   .Register(registry)
                   .Add({})) {}

void HttpMetrics::Responded(absl::string_view route, absl::string_view method, int status,
                            absl::Duration handling) {
  const std::string label = RouteLabel(route);
  requests_.Add({{"route", label}, {"method", MethodLabel(method)}, {"code", absl::StrCat(status)}})
      .Increment();
  // 1 ms to 30 s: handlers answer from memory or after a gRPC call or two.
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
  handling_.Add({{"route", label}}, kBuckets).Observe(absl::ToDoubleSeconds(handling));
}

void HttpMetrics::BodyBytesSent(absl::string_view route, uint64_t bytes) {
  sent_bytes_.Add({{"route", RouteLabel(route)}}).Increment(static_cast<double>(bytes));
}

void HttpMetrics::TimedOut(absl::string_view phase) {
  timeouts_.Add({{"phase", std::string(phase)}}).Increment();
}

}  // namespace assisted::http
