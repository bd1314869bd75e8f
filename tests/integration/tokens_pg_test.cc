// One purpose per token, end to end: the real inventory, orchestrator, image service and gateway
// sharing one --url-signing-key-file, the tokens taken from what the image service hands out
// (download URLs, iPXE scripts, the Ignition inside a downloaded ISO) and presented where an
// attacker would present them: a download link pasted into a BMC must not register a host or
// reach the agents' REST routes, the token on a PXE kernel command line (readable by anyone on
// the host or the PXE network) must open nothing but the rootfs, and regenerating an
// infra-env's signing key must revoke the agent tokens of the images made before.
#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "assisted/image/v1/image_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/boot/discovery_media.h"
#include "services/gateway/jwt.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/probes.h"
#include "tests/harness/stack.h"

namespace assisted::testing {
namespace {

namespace img = ::assisted::image::v1;
namespace agent = ::assisted::agent::v1;
using Json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kPrefix[] = "/api/assisted-install/v2";
constexpr char kJwtSecret[] = "tokens-test-jwt-secret-0123456789abcdef0123";
constexpr char kUrlKey[] = "tokens-test-url-signing-key-0123456789abcdef";
constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})";
constexpr char kHost[] = "0a1b2c3d-4e5f-4789-8bcd-ef0123456789";

std::string WriteFile(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string UserToken(const std::string& user, const std::string& org) {
  return gateway::SignHs256(kJwtSecret, {{"sub", user},
                                         {"username", user},
                                         {"org_id", org},
                                         {"exp", absl::ToUnixSeconds(absl::Now()) + 3600}})
      .value();
}

// The path segment after `marker` in `url` ("/images/" → the token).
std::string SegmentAfter(const std::string& url, const std::string& marker) {
  const size_t at = url.find(marker);
  if (at == std::string::npos) return "";
  const size_t begin = at + marker.size();
  return url.substr(begin, url.find('/', begin) - begin);
}

class TokensTest : public StackTest {
 protected:
  StackOptions Options() const override {
    return {.authenticate_agents = true,
            .image = true,
            .gateway = true,
            .jwt_secret = kJwtSecret,
            .url_signing_key = kUrlKey};
  }

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StackTest::SetUp());
    image_http_ = stack().image_http();
    gateway_http_ = stack().gateway_http();
    alice_ = UserToken("alice", "acme");

    image_stub_ = img::ImageService::NewStub(
        grpc::CreateChannel(stack().image().grpc_target(), grpc::InsecureChannelCredentials()));

    // alice's infra-env, registered through the REST API as a user would.
    std::vector<std::string> args = {
        "infra-envs",
        "create",
        "--name=discovery",
        "--pull-secret-file=" + WriteFile("pull-secret.json", kPullSecret),
        "-o",
        "json"};
    AictlOutcome created = Aictl(args);
    ASSERT_EQ(created.code, 0) << created.err;
    infra_env_id_ = Json::parse(created.out)["id"];
  }

  // aictl with `args` against this test's gateway, as alice unless `token` says otherwise.
  AictlOutcome Aictl(const std::vector<std::string>& args, const std::string& token = "") {
    return RunAictl(gateway_http_, token.empty() ? alice_ : token, args);
  }

  img::GetImageUrlResponse Urls() {
    img::GetImageUrlRequest request;
    request.set_infra_env_id(infra_env_id_);
    img::GetImageUrlResponse response;
    grpc::ClientContext context;
    const grpc::Status status = image_stub_->GetImageUrl(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  // The iPXE script as PXE firmware fetches it, over HTTP from its signed URL.
  std::string IpxeScript() {
    img::GetIpxeScriptRequest request;
    request.set_infra_env_id(infra_env_id_);
    img::GetIpxeScriptResponse response;
    grpc::ClientContext context;
    const grpc::Status status = image_stub_->GetIpxeScript(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    auto served = HttpGet(response.url());
    EXPECT_THAT(served, IsOk());
    if (!served.ok()) return "";
    EXPECT_EQ(served->status, 200) << served->body;
    return served->body;
  }

  // The agent token inside the discovery ISO downloaded from a fresh link, as a booted host
  // finds it.
  std::string AgentTokenFromIso(const std::string& name) {
    auto iso = HttpGet(Urls().url(), absl::Seconds(30));
    EXPECT_THAT(iso, IsOk());
    if (!iso.ok()) return "";
    EXPECT_EQ(iso->status, 200);
    auto settings = ::assisted::agent::boot::SettingsFromIso(WriteFile(name, iso->body));
    EXPECT_THAT(settings, IsOk());
    return settings.ok() ? settings->agent_token : "";
  }

  // Whether the orchestrator registers a host that presents `token` on its stream, and why not.
  struct Registration {
    bool accepted = false;
    std::string reason;
  };
  Registration RegisterWith(const std::string& token) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    context.AddMetadata("authorization", "Bearer " + token);
    auto stream = stack().agent_stub().Connect(&context);
    agent::AgentMessage message;
    agent::Register& registration = *message.mutable_register_();
    registration.set_host_id(kHost);
    registration.set_infra_env_id(infra_env_id_);
    registration.set_agent_version("test");
    registration.set_agent_instance_id("tokens-test");
    registration.mutable_inventory()->set_hostname("node-1");
    Registration outcome;
    if (!stream->Write(message)) {
      outcome.reason = "stream closed before the registration";
    } else {
      agent::ServiceMessage reply;
      while (stream->Read(&reply)) {
        if (!reply.has_registered()) continue;
        outcome.accepted = reply.registered().accepted();
        outcome.reason = reply.registered().reason();
        break;
      }
    }
    context.TryCancel();
    (void)stream->Finish();
    return outcome;
  }

  // The HTTP status of an agent route of the gateway (list the infra-env's hosts) for a request
  // carrying `token` as X-Secret-Key.
  long AgentRouteStatus(const std::string& token) {
    auto response = HttpRequest(
        "GET", absl::StrCat(gateway_http_, kPrefix, "/infra-envs/", infra_env_id_, "/hosts"),
        {"X-Secret-Key: " + token});
    EXPECT_THAT(response, IsOk());
    return response.ok() ? response->status : 0;
  }

  // The HTTP status of `path` on the image service's download port.
  long DownloadStatus(const std::string& path) {
    auto response = HttpRequest("HEAD", image_http_ + path, {});
    EXPECT_THAT(response, IsOk());
    return response.ok() ? response->status : 0;
  }

  std::unique_ptr<img::ImageService::Stub> image_stub_;
  std::string image_http_, gateway_http_, alice_, infra_env_id_;
};

TEST_F(TokensTest, ADownloadTokenIsNotAnAgentCredential) {
  // The genuine agent token works on both doors: the test proves the doors, not a typo.
  const std::string agent_token = AgentTokenFromIso("genuine.iso");
  ASSERT_FALSE(agent_token.empty());
  EXPECT_TRUE(RegisterWith(agent_token).accepted);
  EXPECT_EQ(AgentRouteStatus(agent_token), 200);

  const img::GetImageUrlResponse urls = Urls();
  for (const std::string& url : {urls.url(), urls.pxe_initrd_url()}) {
    SCOPED_TRACE(url);
    const std::string download = SegmentAfter(url, url == urls.url() ? "/images/" : "/pxe/");
    ASSERT_FALSE(download.empty());
    const Registration registration = RegisterWith(download);
    EXPECT_FALSE(registration.accepted);
    EXPECT_THAT(registration.reason, HasSubstr("invalid agent token"));
    EXPECT_EQ(AgentRouteStatus(download), 401);
  }
}

TEST_F(TokensTest, ARootfsTokenIsNotADownloadToken) {
  // The rootfs URL of a PXE boot is on the kernel command line of every host booted from it.
  const std::string script = IpxeScript();
  const std::string kKarg = "coreos.live.rootfs_url=";
  const size_t at = script.find(kKarg);
  ASSERT_NE(at, std::string::npos) << script;
  const size_t begin = at + kKarg.size();
  const std::string url = script.substr(begin, script.find_first_of(" \n", begin) - begin);
  ASSERT_TRUE(absl::StartsWith(url, image_http_)) << url;
  ASSERT_TRUE(absl::EndsWith(url, "/rootfs.img")) << url;
  EXPECT_EQ(DownloadStatus(url.substr(image_http_.size())), 200) << url;
  const std::vector<std::string> segments = absl::StrSplit(url, '/');
  const std::string rootfs = segments[segments.size() - 2];
  for (const std::string& path :
       {"/images/" + rootfs + "/discovery.iso", "/images/" + rootfs + "/minimal.iso",
        "/pxe/" + rootfs + "/initrd", "/pxe/" + rootfs + "/vmlinuz", "/pxe/" + rootfs + "/ipxe"}) {
    EXPECT_EQ(DownloadStatus(path), 403) << path;
  }
}

TEST_F(TokensTest, ADownloadTokenIsNotARootfsToken) {
  const std::string download = SegmentAfter(Urls().url(), "/images/");
  ASSERT_FALSE(download.empty());
  EXPECT_EQ(DownloadStatus("/images/" + download + "/discovery.iso"), 200);
  EXPECT_EQ(DownloadStatus("/rootfs/" + download + "/rootfs.img"), 403);
}

TEST_F(TokensTest, PxeArtifactsCarryNoAgentToken) {
  const std::string agent_token = AgentTokenFromIso("genuine.iso");
  ASSERT_FALSE(agent_token.empty());
  const std::string script = IpxeScript();
  EXPECT_THAT(script, Not(HasSubstr(agent_token)));
  // The kernel command line, as the host's /proc/cmdline shows it: iPXE hands the kernel the
  // words after the image's URI on the "kernel" line.
  std::string cmdline;
  for (absl::string_view line : absl::StrSplit(script, '\n')) {
    std::vector<absl::string_view> words = absl::StrSplit(line, absl::MaxSplits(' ', 2));
    if (words.size() == 3 && words[0] == "kernel") cmdline = std::string(words[2]);
  }
  ASSERT_THAT(cmdline, HasSubstr("coreos.live.rootfs_url=")) << script;
  // Every token-shaped word of it.
  int tokens = 0;
  for (absl::string_view word : absl::StrSplit(cmdline, absl::ByAnyChar(" =/"))) {
    if (word.size() != 50) continue;
    ++tokens;
    const std::string token(word);
    SCOPED_TRACE(token);
    EXPECT_FALSE(RegisterWith(token).accepted);
    EXPECT_EQ(AgentRouteStatus(token), 401);
    // Nor does it fetch what holds the agent token: the Ignition in the ISO or the PXE initrd.
    EXPECT_EQ(DownloadStatus("/images/" + token + "/discovery.iso"), 403);
    EXPECT_EQ(DownloadStatus("/pxe/" + token + "/initrd"), 403);
  }
  EXPECT_GT(tokens, 0) << cmdline;
}

TEST_F(TokensTest, RegeneratingTheSigningKeyRevokesOldAgentTokens) {
  const std::string old_token = AgentTokenFromIso("before.iso");
  ASSERT_FALSE(old_token.empty());
  ASSERT_TRUE(RegisterWith(old_token).accepted);
  ASSERT_EQ(AgentRouteStatus(old_token), 200);

  // Another tenant cannot rotate alice's key (nor learn that the infra-env exists).
  AictlOutcome foreign =
      Aictl({"infra-envs", "regenerate-signing-key", infra_env_id_}, UserToken("bob", "other"));
  EXPECT_EQ(foreign.code, 1) << foreign.err;
  EXPECT_THAT(foreign.err, HasSubstr("404"));
  ASSERT_TRUE(RegisterWith(old_token).accepted);

  const absl::Time rotated = absl::Now();
  AictlOutcome regenerated = Aictl({"infra-envs", "regenerate-signing-key", infra_env_id_});
  ASSERT_EQ(regenerated.code, 0) << regenerated.err;

  // The services cache keys briefly (lib/inventory_client/signing_keys.h): the old token is
  // refused once that has passed, on both doors.
  Registration after;
  while ((after = RegisterWith(old_token)).accepted && absl::Now() - rotated < absl::Seconds(30)) {
  }
  EXPECT_FALSE(after.accepted);
  EXPECT_THAT(after.reason, HasSubstr("invalid agent token"));
  std::cerr << "old agent token refused on Connect " << absl::Now() - rotated
            << " after the rotation\n";
  long status = 0;
  while ((status = AgentRouteStatus(old_token)) == 200 &&
         absl::Now() - rotated < absl::Seconds(30)) {
  }
  EXPECT_EQ(status, 401);

  // A new image carries a new token, which works.
  const std::string new_token = AgentTokenFromIso("after.iso");
  ASSERT_FALSE(new_token.empty());
  EXPECT_NE(new_token, old_token);
  EXPECT_TRUE(RegisterWith(new_token).accepted);
  EXPECT_EQ(AgentRouteStatus(new_token), 200);
}

}  // namespace
}  // namespace assisted::testing
