#include "services/gateway/request_context.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace assisted::gateway {
namespace {

using ::testing::MatchesRegex;

class JsonLines final : public log::Sink {
 public:
  bool Enabled(log::Level) const override { return true; }
  void Write(const log::Record& record) override {
    lines.push_back(nlohmann::json::parse(log::FormatJson(record)));
  }
  std::vector<nlohmann::json> lines;
};

class FixedClock final : public Clock {
 public:
  absl::Time Now() const override { return now; }
  absl::Time now = absl::FromUnixSeconds(1000);
};

http::Request WithHeader(std::string name, std::string value) {
  http::Request request;
  request.headers.Add(std::move(name), std::move(value));
  return request;
}

TEST(RequestIdOf, TakesAWellFormedClientId) {
  EXPECT_EQ(RequestIdOf(WithHeader("x-request-id", "abc-123")), "abc-123");
}

TEST(RequestIdOf, TakesTheTraceIdOfAValidTraceparent) {
  EXPECT_EQ(RequestIdOf(WithHeader("traceparent",
                                   "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")),
            "4bf92f3577b34da6a3ce929d0e0e4736");
}

TEST(RequestIdOf, MakesARandomIdForMissingOrMalformedOnes) {
  const std::vector<http::Request> requests = {
      http::Request{},
      WithHeader("X-Request-ID", "two words"),
      WithHeader("X-Request-ID", std::string(129, 'a')),
      WithHeader("X-Request-ID", "line\nbreak"),
      WithHeader("traceparent", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
      WithHeader("traceparent", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"),
      WithHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x"),
      WithHeader("traceparent", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
      WithHeader("traceparent", "garbage"),
  };
  std::vector<std::string> ids;
  for (const http::Request& request : requests) {
    ids.push_back(RequestIdOf(request));
    EXPECT_THAT(ids.back(), MatchesRegex("[0-9a-f]{32}"));
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end()) << "random ids repeat";
}

TEST(WithRequestContext, TheHandlerRunsUnderTheIdTheResponseNamesAndTheAccessLogRecords) {
  auto sink = std::make_shared<JsonLines>();
  FixedClock clock;
  std::string seen_by_handler;
  http::Handler handler = WithRequestContext(
      [&](const http::Request&) {
        seen_by_handler = std::string(log::CurrentRequestId());
        clock.now += absl::Milliseconds(250);
        return http::Response::Json(201, "{\"id\":1}");
      },
      log::Logger(sink, "gateway.access"), clock);
  http::Request request = WithHeader("X-Request-ID", "client-7");
  request.method = "POST";
  request.path = "/api/assisted-install/v2/clusters";
  request.route = "/api/assisted-install/v2/clusters";
  request.peer = "10.0.0.9:5000";

  http::Response response = handler(request);

  EXPECT_EQ(seen_by_handler, "client-7");
  EXPECT_EQ(log::CurrentRequestId(), "") << "the scope outlived the request";
  EXPECT_EQ(response.headers.Get(kRequestIdHeader), "client-7");
  ASSERT_EQ(sink->lines.size(), 1u);
  const nlohmann::json& line = sink->lines[0];
  EXPECT_EQ(line["component"], "gateway.access");
  EXPECT_EQ(line["request_id"], "client-7");
  EXPECT_EQ(line["method"], "POST");
  EXPECT_EQ(line["route"], "/api/assisted-install/v2/clusters");
  EXPECT_EQ(line["status"], 201);
  EXPECT_EQ(line["bytes"], 8);
  EXPECT_EQ(line["seconds"], 0.25);
  EXPECT_EQ(line["peer"], "10.0.0.9:5000");
}

}  // namespace
}  // namespace assisted::gateway
