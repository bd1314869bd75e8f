#include "services/agent/steps/api_vip_connectivity.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/http/server.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/steps/orchestrator_view.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/test_util.h"

namespace assisted::agent::steps {
namespace {

using ::assisted::testing::IsOk;
using nlohmann::json;
using testing::ContextHolder;
using ::testing::HasSubstr;
using testing::MakeStep;
using testing::ReferenceText;

constexpr StepType kType = types::v1::STEP_TYPE_API_VIP_CONNECTIVITY_CHECK;

json RunCheck(const std::string& args, const SimulationHooks* hooks = nullptr) {
  ApiVipConnectivityCheck check({.timeout = absl::Seconds(5)});
  ContextHolder holder;
  holder.simulation = hooks;
  StepContext context = holder.context();
  StepResult result = check.Run(MakeStep(kType, {args}), context);
  EXPECT_EQ(result.exit_code(), 0) << result.error();
  return json::parse(ReferenceText(result), nullptr, false);
}

class ApiVipServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    http::Router router;
    ASSERT_THAT(
        router.Handle("GET", "/config/worker",
                      [](const http::Request& request) {
                        const std::string accept(request.headers.Get("accept").value_or(""));
                        if (accept.find("vnd.coreos.ignition+json") == std::string::npos) {
                          return http::Response::Text(406, "wrong accept");
                        }
                        return http::Response::Json(
                            200, R"({"ignition":{"version":"3.2.0"},"passwd":{}})");
                      }),
        IsOk());
    ASSERT_THAT(router.Handle(
                    "GET", "/config/broken",
                    [](const http::Request&) { return http::Response::Text(200, "not a config"); }),
                IsOk());
    http::HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    auto server =
        http::HttpServer::Start(options, std::move(router), nullptr, log::Logger::Discard());
    ASSERT_THAT(server, IsOk());
    server_ = *std::move(server);
  }
  std::string Url(const std::string& path) const {
    return absl::StrCat("http://127.0.0.1:", server_->port(), path);
  }
  std::unique_ptr<http::HttpServer> server_;
};

TEST_F(ApiVipServerTest, AServedConfigIsSuccessAndIsNotEchoed) {
  const json out = RunCheck(json{{"url", Url("/config/worker")}}.dump());
  EXPECT_EQ(out["is_success"], true) << out.dump();
  EXPECT_EQ(out["url"], Url("/config/worker"));
  EXPECT_EQ(out["ignition"], R"({"ignition":{"version":"3.2.0"}})");  // no passwd
}

TEST_F(ApiVipServerTest, WrongAnswersAndNoServerAreFailuresWithAReason) {
  json out = RunCheck(json{{"url", Url("/config/master")}}.dump());
  EXPECT_EQ(out["is_success"], false);
  EXPECT_THAT(out["download_error"].get<std::string>(), HasSubstr("404"));
  out = RunCheck(json{{"url", Url("/config/broken")}}.dump());
  EXPECT_EQ(out["is_success"], false);
  EXPECT_THAT(out["download_error"].get<std::string>(), HasSubstr("not an Ignition config"));
  out = RunCheck(json{{"url", "http://127.0.0.1:1/config/worker"}}.dump());
  EXPECT_EQ(out["is_success"], false);
  EXPECT_FALSE(out["download_error"].get<std::string>().empty());
}

TEST(ApiVipConnectivity, SimulatedHostsReachNamesTheirProfileResolves) {
  SimulationHooks hooks;
  hooks.resolve = [](const std::string& name) {
    return name == "api.demo.example.com" ? ResolvedName{{"192.168.122.5"}, {}, {}}
                                          : ResolvedName{};
  };
  json out = RunCheck(R"({"url":"http://api.demo.example.com:22623/config/worker"})", &hooks);
  EXPECT_EQ(out["is_success"], true) << out.dump();
  out = RunCheck(R"({"url":"http://api.other.example.com:22623/config/worker"})", &hooks);
  EXPECT_EQ(out["is_success"], false);
  EXPECT_THAT(out["download_error"].get<std::string>(), HasSubstr("api.other.example.com"));
}

TEST(ApiVipConnectivity, BadArgumentsAreMinusOne) {
  ApiVipConnectivityCheck check({});
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{},
                                             {"[]"},
                                             {R"({"url":"ftp://x/config"})"},
                                             {R"({"url":"http://x","ca_certificate":"%"})"},
                                             {R"({"url":"http://x"})", "extra"}}) {
    ContextHolder holder;
    StepContext context = holder.context();
    EXPECT_EQ(check.Run(MakeStep(kType, args), context).exit_code(), -1) << args.size();
  }
}

}  // namespace
}  // namespace assisted::agent::steps
