#include "services/agent/steps/image_availability.h"

#include <sys/socket.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/containers/registries_conf.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/steps/orchestrator_view.h"
#include "services/agent/steps/test_util.h"
#include "services/agent/steps/unique_fd.h"

namespace assisted::agent::steps {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using testing::ContextHolder;
using ::testing::HasSubstr;
using testing::MakeStep;
using testing::OrchestratorImages;
using testing::ReferenceText;

constexpr StepType kType = types::v1::STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY;

// An HTTP/1.1 server on 127.0.0.1 answering every request with `status` (or never answering
// when status is 0), until destroyed.
class TestHttpServer {
 public:
  explicit TestHttpServer(int status)
      : server_(SOCK_STREAM, [status](int fd, const absl::Notification& stopping) {
          UniqueFd client(accept4(fd, nullptr, nullptr, SOCK_CLOEXEC));
          std::string request;
          char buffer[1024];
          while (request.find("\r\n\r\n") == std::string::npos) {
            const ssize_t n = recv(client.get(), buffer, sizeof(buffer), 0);
            if (n <= 0) break;
            request.append(buffer, n);
          }
          if (status == 0) {  // hold the connection until the test ends
            stopping.WaitForNotification();
            return;
          }
          const std::string body = status == 200 ? "{}" : R"({"errors":[]})";
          const std::string response = absl::StrCat(
              "HTTP/1.1 ", status, " X\r\nContent-Type: application/json\r\n",
              status == 401 ? "WWW-Authenticate: Bearer realm=\"http://127.0.0.1/token\"\r\n" : "",
              "Docker-Distribution-API-Version: registry/2.0\r\nContent-Length: ", body.size(),
              "\r\nConnection: close\r\n\r\n", body);
          send(client.get(), response.data(), response.size(), MSG_NOSIGNAL);
        }) {}
  std::string registry() const { return absl::StrCat("127.0.0.1:", server_.port()); }

 private:
  testing::LoopbackServer server_;
};

TEST(ImageAvailability, ReachableMeans200Or401FromTheRegistry) {
  TestHttpServer ok(200), auth(401), missing(404);
  ImageAvailabilityOptions options;
  options.plain_http_registries = {ok.registry(), auth.registry(), missing.registry()};
  ImageAvailability step(options);
  ContextHolder holder;
  StepContext context = holder.context();
  const std::string args =
      absl::StrCat(R"({"images": [")", ok.registry(), R"(/ocp/release:4.16", ")", auth.registry(),
                   R"(/ocp/installer@sha256:ab12", ")", missing.registry(),
                   R"(/ocp/controller:1"], "timeout": 60})");
  StepResult result = step.Run(MakeStep(kType, {args}), context);
  EXPECT_EQ(result.exit_code(), 2);
  EXPECT_THAT(result.error(), HasSubstr("not reachable"));
  auto images = OrchestratorImages(result);
  ASSERT_THAT(images, IsOk());
  ASSERT_EQ(images->size(), 3u);
  EXPECT_EQ((*images)[0].name, ok.registry() + "/ocp/release:4.16");
  EXPECT_TRUE((*images)[0].success);
  EXPECT_TRUE((*images)[1].success);
  EXPECT_FALSE((*images)[2].success);
  for (const auto& image : *images) {
    ASSERT_TRUE(image.download_rate_mbps.has_value());
    EXPECT_GT(*image.download_rate_mbps, 0.001) << image.name;  // the validation's floor
  }
  EXPECT_THAT(ReferenceText(result), HasSubstr(R"("size_bytes":)"));
  EXPECT_THAT(ReferenceText(result), HasSubstr(R"("time":)"));
}

TEST(ImageAvailability, AllReachableExitsZero) {
  TestHttpServer auth(401);
  ImageAvailability step({.plain_http_registries = {auth.registry()}});
  ContextHolder holder;
  StepContext context = holder.context();
  StepResult result = step.Run(
      MakeStep(kType, {absl::StrCat(R"({"images": [")", auth.registry(), R"(/a:1"]})")}), context);
  EXPECT_EQ(result.exit_code(), 0) << result.error();
  EXPECT_THAT(OrchestratorImages(result), IsOk());
}

TEST(ImageAvailability, UnansweredAndRefusedRegistriesFailWithinTheTimeout) {
  TestHttpServer silent(0);
  ImageAvailability step({.request_timeout = absl::Milliseconds(300),
                          .plain_http_registries = {silent.registry(), "127.0.0.1:1"}});
  ContextHolder holder;
  StepContext context = holder.context();
  const absl::Time start = absl::Now();
  StepResult result = step.Run(MakeStep(kType, {absl::StrCat(R"({"images": [")", silent.registry(),
                                                             R"(/a:1", "127.0.0.1:1/b:2"]})")}),
                               context);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(result.exit_code(), 2);
  auto images = OrchestratorImages(result);
  ASSERT_THAT(images, IsOk());
  ASSERT_EQ(images->size(), 2u);
  EXPECT_FALSE((*images)[0].success);
  EXPECT_FALSE((*images)[1].success);
}

// `text` as a registries.conf in the test's temporary folder; returns its path.
std::string WriteRegistriesConf(const std::string& name, const std::string& text) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/", name, ".conf");
  std::ofstream(path, std::ios::trunc) << text;
  return path;
}

TEST(ImageAvailability, ImagesAreLookedUpThroughTheHostsMirrors) {
  // The release's source refuses connections (a disconnected host has no route to it); its
  // mirror answers. A pull by digest goes to the mirror, as podman's would.
  TestHttpServer mirror(401);
  constexpr char kSource[] = "127.0.0.1:1/openshift-release-dev/ocp-release";
  const std::string conf = WriteRegistriesConf(
      "mirrored",
      containers::RenderRegistriesConf({{.source = kSource,
                                         .mirrors = {mirror.registry() + "/ocp/release"},
                                         .mirror_by_digest_only = true}}));
  ImageAvailability step({.request_timeout = absl::Seconds(5),
                          .plain_http_registries = {mirror.registry(), "127.0.0.1:1"},
                          .registries_conf = conf});
  ContextHolder holder;
  StepContext context = holder.context();
  const std::string by_digest = absl::StrCat(kSource, "@sha256:", std::string(64, 'a'));
  const std::string by_tag = absl::StrCat(kSource, ":4.16.3-x86_64");
  StepResult result = step.Run(
      MakeStep(kType, {absl::StrCat(R"({"images": [")", by_digest, R"(", ")", by_tag, R"("]})")}),
      context);
  auto images = OrchestratorImages(result);
  ASSERT_THAT(images, IsOk());
  ASSERT_EQ(images->size(), 2u);
  EXPECT_EQ((*images)[0].name, by_digest);  // reported under the image's own name
  EXPECT_TRUE((*images)[0].success);
  // mirror-by-digest-only: a tag is pulled from the source, which is not there.
  EXPECT_EQ((*images)[1].name, by_tag);
  EXPECT_FALSE((*images)[1].success);
  EXPECT_EQ(result.exit_code(), 2);
}

TEST(ImageAvailability, AnUnreadableRegistriesConfFailsEveryImage) {
  TestHttpServer registry(200);
  ImageAvailability step(
      {.plain_http_registries = {registry.registry()},
       .registries_conf = WriteRegistriesConf("broken", "[[registry]]\nlocation = \"x\n")});
  ContextHolder holder;
  StepContext context = holder.context();
  StepResult result = step.Run(
      MakeStep(kType, {absl::StrCat(R"({"images": [")", registry.registry(), R"(/a:1"]})")}),
      context);
  EXPECT_EQ(result.exit_code(), 2);
  auto images = OrchestratorImages(result);
  ASSERT_THAT(images, IsOk());
  ASSERT_EQ(images->size(), 1u);
  EXPECT_FALSE((*images)[0].success);
  // A missing file is no mirrors at all.
  ImageAvailability unmirrored({.plain_http_registries = {registry.registry()},
                                .registries_conf = ::testing::TempDir() + "/absent.conf"});
  EXPECT_EQ(unmirrored
                .Run(MakeStep(kType, {absl::StrCat(R"({"images": [")", registry.registry(),
                                                   R"(/a:1"]})")}),
                     context)
                .exit_code(),
            0);
}

TEST(ImageAvailability, SimulatedRegistryAnswersFromItsHook) {
  SimulationHooks hooks;
  hooks.registry = [](const std::string& image) {
    RegistryAnswer a;
    a.http_status = image.find("broken") == std::string::npos ? 401 : 0;
    a.time = absl::Milliseconds(40);
    a.bytes = 800;
    return a;
  };
  ImageAvailability step({});
  ContextHolder holder;
  holder.simulation = &hooks;
  StepContext context = holder.context();
  StepResult result = step.Run(
      MakeStep(kType, {R"({"images": ["quay.io/ocp/release:4.16", "quay.io/broken/x:1"]})"}),
      context);
  EXPECT_EQ(result.exit_code(), 2);
  auto images = OrchestratorImages(result);
  ASSERT_THAT(images, IsOk());
  ASSERT_EQ(images->size(), 2u);
  EXPECT_TRUE((*images)[0].success);
  EXPECT_NEAR(*(*images)[0].download_rate_mbps, 0.02, 1e-9);
  EXPECT_FALSE((*images)[1].success);
}

TEST(ImageAvailability, BadArgumentsAreMinusOne) {
  ImageAvailability step({.max_images = 2});
  ContextHolder holder;
  StepContext context = holder.context();
  for (const char* args : {R"({})", R"({"images": "quay.io/a"})", R"({"images": ["quay.io/a b"]})",
                           R"({"images": ["a", "b", "c"]})", R"({"images": ["a"], "timeout": -1})",
                           R"({"images": ["a"], "timeout": "60"})"}) {
    StepResult result = step.Run(MakeStep(kType, {args}), context);
    EXPECT_EQ(result.exit_code(), -1) << args;
    EXPECT_THAT(result.error(), HasSubstr("invalid arguments")) << args;
  }
}

}  // namespace
}  // namespace assisted::agent::steps
