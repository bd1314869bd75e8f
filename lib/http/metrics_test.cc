#include "lib/http/metrics.h"

#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/http/server.h"
#include "lib/http/test_client.h"
#include "lib/testing/status_matchers.h"
#include "prometheus/registry.h"
#include "tests/harness/eventually.h"

namespace assisted::http {
namespace {

using ::assisted::http::test::CurlClient;
using ::assisted::http::test::CurlRequest;
using ::assisted::http::test::HeldHandler;
using ::assisted::http::test::RawConnection;
using ::assisted::testing::IsOk;

// The value of series `name`{labels} in `registry`: counter, gauge, or histogram sample count;
// -1 when there is no such series.
double Value(prometheus::Registry& registry, const std::string& name,
             const std::map<std::string, std::string>& labels = {}) {
  for (const prometheus::MetricFamily& family : registry.Collect()) {
    if (family.name != name) continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      std::map<std::string, std::string> have;
      for (const auto& label : metric.label) have[label.name] = label.value;
      if (have != labels) continue;
      switch (family.type) {
        case prometheus::MetricType::Counter:
          return metric.counter.value;
        case prometheus::MetricType::Gauge:
          return metric.gauge.value;
        case prometheus::MetricType::Histogram:
          return static_cast<double>(metric.histogram.sample_count);
        default:
          return -1;
      }
    }
  }
  return -1;
}

// A gauge of `registry` reaching `want` (connection gauges settle asynchronously).
::testing::AssertionResult GaugeReaches(prometheus::Registry& registry, const std::string& name,
                                        double want) {
  return assisted::testing::Eventually(
      [&] {
        const double value = Value(registry, name);
        return assisted::testing::Observed{value == want, absl::StrCat(value)};
      },
      absl::Seconds(30), absl::StrCat(name, " = ", want));
}

TEST(HttpMetrics, CountsResponsesBytesInFlightConnectionsAndTimeouts) {
  auto registry = std::make_shared<prometheus::Registry>();
  HttpMetrics metrics(*registry);
  HeldHandler held("");
  Router router;
  ASSERT_THAT(router.Handle("GET", "/items/{id}",
                            [](const Request&) { return Response::Text(200, "hello\n"); }),
              IsOk());
  ASSERT_THAT(router.Handle("GET", "/slow", held.handler()), IsOk());
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  options.io_threads = 2;
  options.handler_threads = 1;
  options.header_timeout = absl::Milliseconds(200);
  absl::StatusOr<std::unique_ptr<HttpServer>> server =
      HttpServer::Start(options, std::move(router), &metrics, log::Logger::Discard());
  ASSERT_THAT(server, IsOk());
  const std::string base = absl::StrCat("http://127.0.0.1:", (*server)->port());

  {
    CurlClient client;
    ASSERT_THAT(client.Fetch(base + "/items/1"), IsOk());
    ASSERT_THAT(client.Fetch(base + "/items/2"), IsOk());
    ASSERT_THAT(client.Fetch(base + "/missing"), IsOk());
    CurlRequest brew;
    brew.method = "BREW";
    ASSERT_THAT(client.Fetch(base + "/items/3", brew), IsOk());
    EXPECT_EQ(Value(*registry, "assisted_http_server_open_connections"), 1);
  }
  const std::string requests = "assisted_http_server_requests_total";
  EXPECT_EQ(
      Value(*registry, requests, {{"route", "/items/{id}"}, {"method", "GET"}, {"code", "200"}}),
      2);
  EXPECT_EQ(Value(*registry, requests, {{"route", "none"}, {"method", "GET"}, {"code", "404"}}), 1);
  EXPECT_EQ(Value(*registry, requests, {{"route", "none"}, {"method", "other"}, {"code", "405"}}),
            1);
  EXPECT_EQ(Value(*registry, "assisted_http_server_sent_bytes_total", {{"route", "/items/{id}"}}),
            12);
  EXPECT_EQ(Value(*registry, "assisted_http_server_handling_seconds", {{"route", "/items/{id}"}}),
            2);
  EXPECT_TRUE(GaugeReaches(*registry, "assisted_http_server_open_connections", 0));

  std::thread slow([&]() {
    CurlClient client;
    EXPECT_THAT(client.Fetch(base + "/slow"), IsOk());
  });
  held.WaitUntilEntered();
  EXPECT_EQ(Value(*registry, "assisted_http_server_in_flight_requests"), 1);
  held.Release();
  slow.join();
  EXPECT_TRUE(GaugeReaches(*registry, "assisted_http_server_in_flight_requests", 0));

  absl::StatusOr<RawConnection> sloth = RawConnection::Connect((*server)->port());
  ASSERT_THAT(sloth, IsOk());
  ASSERT_THAT(sloth->Send("GET /items/1 HTTP/1.1\r\n"), IsOk());
  ASSERT_THAT(sloth->ReadUntilClosed(absl::Seconds(5)), IsOk());
  EXPECT_EQ(Value(*registry, "assisted_http_server_timeouts_total", {{"phase", "header"}}), 1);
  EXPECT_EQ(Value(*registry, requests, {{"route", "none"}, {"method", "GET"}, {"code", "408"}}), 1);
  (*server)->Shutdown(absl::Seconds(1));
  EXPECT_EQ(Value(*registry, "assisted_http_server_open_connections"), 0);
}

}  // namespace
}  // namespace assisted::http
