// The web UI's change stream: positions, held answers, per-cluster and per-tenant filtering,
// resync after gaps, and refusals, on a ChangeFeed fed by hand and a fake tenancy check.

#include "services/gateway/change_stream.h"

#include <thread>

#include "absl/strings/str_cat.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/auth/token.h"
#include "services/gateway/jwt.h"

namespace assisted::gateway {
namespace {

namespace inv = inventory::v1;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecret[] = "0123456789abcdef0123456789abcdef";
constexpr char kMine[] = "11111111-1111-4111-8111-111111111111";
constexpr char kTheirs[] = "22222222-2222-4222-8222-222222222222";

inv::WatchEvent HostChange(const std::string& cluster_id, const std::string& host_id) {
  inv::WatchEvent event;
  event.set_kind(inv::RESOURCE_KIND_HOST);
  event.set_id(host_id);
  event.set_cluster_id(cluster_id);
  event.set_change_type(inv::CHANGE_TYPE_UPDATED);
  event.set_host_status(types::v1::HOST_STATUS_KNOWN);
  event.set_resource_version(7);
  return event;
}

inv::WatchEvent ClusterChange(const std::string& cluster_id) {
  inv::WatchEvent event;
  event.set_kind(inv::RESOURCE_KIND_CLUSTER);
  event.set_id(cluster_id);
  event.set_cluster_id(cluster_id);
  event.set_change_type(inv::CHANGE_TYPE_CREATED);
  return event;
}

class ChangeStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto authenticator = Authenticator::Create({.hs256_secret = kSecret});
    ASSERT_TRUE(authenticator.ok()) << authenticator.status();
    authenticator_ = *std::move(authenticator);
    MakeStream({.max_wait = absl::Milliseconds(200), .max_watchers = 4});
  }
  void MakeStream(ChangeStream::Options options) {
    // Only kMine is the caller's: everything else is another tenant's, NOT_FOUND.
    stream_ = std::make_unique<ChangeStream>(
        feed_, *authenticator_, clock_,
        // The gateway's own reads (no tenant: a viewer's) see every cluster.
        [](const Principal& caller, const std::string& cluster_id) {
          return caller.identity.system() || cluster_id == kMine
                     ? absl::OkStatus()
                     : absl::NotFoundError("cluster " + cluster_id + " not found");
        },
        options);
  }

  http::Response Get(const std::string& query, const std::string& last_event_id = "",
                     bool with_token = true) {
    http::Request request;
    request.method = "GET";
    request.path = ChangeStream::kPath;
    auto target = http::ParseTarget(std::string(ChangeStream::kPath) + query);
    EXPECT_TRUE(target.ok());
    request.query = target->query;
    if (with_token) {
      request.headers.Add(
          "Authorization",
          "Bearer " +
              *SignHs256(kSecret, {{"sub", "alice"},
                                   {"org_id", "acme"},
                                   {"exp", absl::ToUnixSeconds(absl::Now() + absl::Hours(1))}}));
    }
    if (!last_event_id.empty()) request.headers.Add("Last-Event-ID", last_event_id);
    return stream_->Serve(request);
  }
  static std::string Body(const http::Response& response) {
    return response.body.ReadAll().value_or("<unreadable>");
  }
  std::string Position(int64_t n) { return feed_.boot() + "-" + std::to_string(n); }

  ChangeFeed feed_{"b00t", 8};
  RealClock clock_;
  std::unique_ptr<Authenticator> authenticator_;
  std::unique_ptr<ChangeStream> stream_;
};

TEST_F(ChangeStreamTest, WithoutAPositionAnswersAtOnceWithTheCurrentOne) {
  feed_.Append(HostChange(kMine, "h1"));
  http::Response response = Get("?cluster_id=" + std::string(kMine));
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.headers.Get("Content-Type"), "text/event-stream; charset=utf-8");
  EXPECT_EQ(response.headers.Get("Cache-Control"), "no-store");
  EXPECT_THAT(Body(response), HasSubstr("id: b00t-1\nevent: position\n"));
  EXPECT_THAT(Body(response), Not(HasSubstr("event: change")));
}

TEST_F(ChangeStreamTest, AChangeOfTheClusterEndsAHeldAnswer) {
  const std::string start = Position(feed_.head());
  http::Response response;
  std::thread watcher([&] { response = Get("?cluster_id=" + std::string(kMine), start); });
  feed_.Append(HostChange(kMine, "h1"));
  watcher.join();
  const std::string body = Body(response);
  EXPECT_THAT(body, HasSubstr("event: change\ndata: {"));
  EXPECT_THAT(body, HasSubstr("\"kind\":\"host\""));
  EXPECT_THAT(body, HasSubstr("\"id\":\"h1\""));
  EXPECT_THAT(body, HasSubstr("\"status\":\"known\""));
  EXPECT_THAT(body, HasSubstr("\"resource_version\":7"));
  EXPECT_THAT(body, HasSubstr("id: b00t-1\nevent: position"));
}

TEST_F(ChangeStreamTest, NothingToSayWaitsForMaxWaitThenGivesThePosition) {
  feed_.Append(HostChange(kTheirs, "h9"));  // not for this watcher
  const absl::Time start = absl::Now();
  http::Response response = Get("?cluster_id=" + std::string(kMine), Position(0));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(200));
  EXPECT_THAT(Body(response), Not(HasSubstr("event: change")));
  EXPECT_THAT(Body(response), HasSubstr("id: b00t-1\nevent: position"));
}

TEST_F(ChangeStreamTest, OtherClustersChangesAreNotShown) {
  feed_.Append(HostChange(kTheirs, "theirs"));
  feed_.Append(HostChange(kMine, "mine"));
  const std::string body = Body(Get("?cluster_id=" + std::string(kMine), Position(0)));
  EXPECT_THAT(body, HasSubstr("\"id\":\"mine\""));
  EXPECT_THAT(body, Not(HasSubstr("theirs")));
}

TEST_F(ChangeStreamTest, WithoutAClusterOnlyClustersTheCallerCanReadAreShown) {
  feed_.Append(ClusterChange(kTheirs));
  feed_.Append(HostChange(kMine, "a-host"));  // hosts only with ?cluster_id
  feed_.Append(ClusterChange(kMine));
  const std::string body = Body(Get("", Position(0)));
  EXPECT_THAT(body, HasSubstr(kMine));
  EXPECT_THAT(body, Not(HasSubstr(kTheirs)));
  EXPECT_THAT(body, Not(HasSubstr("a-host")));
  EXPECT_THAT(body, HasSubstr("\"change\":\"created\""));
}

TEST_F(ChangeStreamTest, RepeatedChangesOfOneResourceAreSentOnce) {
  feed_.Append(HostChange(kMine, "h1"));
  feed_.Append(HostChange(kMine, "h1"));
  const std::string body = Body(Get("?cluster_id=" + std::string(kMine), Position(0)));
  EXPECT_EQ(body.find("event: change"), body.rfind("event: change")) << body;
}

TEST_F(ChangeStreamTest, PositionsOfAnotherLifeOrBeyondTheRingGetResync) {
  for (int i = 0; i < 10; ++i) feed_.Append(HostChange(kMine, "h" + std::to_string(i)));
  const std::string scope = "?cluster_id=" + std::string(kMine);
  for (const std::string& position :
       {std::string("0ther-3"), Position(1) /* fell out of the 8 kept */, Position(99),
        std::string("garbage")}) {
    const std::string body = Body(Get(scope, position));
    EXPECT_THAT(body, HasSubstr("id: b00t-10\nevent: resync")) << position;
    EXPECT_THAT(body, Not(HasSubstr("event: change"))) << position;
  }
}

TEST_F(ChangeStreamTest, AResyncOfTheFeedReachesEveryWatcher) {
  feed_.Resync();
  EXPECT_THAT(Body(Get("", Position(0))), HasSubstr("event: resync"));
}

TEST_F(ChangeStreamTest, RefusesCallersWithoutTokenAndOtherTenantsClusters) {
  http::Response anonymous = Get("", "", /*with_token=*/false);
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.headers.Get("WWW-Authenticate"), "Bearer");
  EXPECT_EQ(Get("?cluster_id=" + std::string(kTheirs)).status, 404);
  EXPECT_EQ(Get("?cluster_id=not-a-uuid").status, 400);
  EXPECT_EQ(Get("?since=1").status, 400);
}

TEST_F(ChangeStreamTest, WithoutCredentialsAReadOnlyGatewayShowsItsOneClusterOnly) {
  auto authenticator =
      Authenticator::Create({.hs256_secret = kSecret, .read_only_cluster_id = kTheirs});
  ASSERT_TRUE(authenticator.ok()) << authenticator.status();
  authenticator_ = *std::move(authenticator);
  MakeStream({.max_wait = absl::Milliseconds(200), .max_watchers = 4});
  feed_.Append(HostChange(kTheirs, "h1"));
  feed_.Append(HostChange(kMine, "h2"));
  const http::Response watched =
      Get("?cluster_id=" + std::string(kTheirs), Position(0), /*with_token=*/false);
  EXPECT_EQ(watched.status, 200);
  EXPECT_THAT(Body(watched), HasSubstr("\"id\":\"h1\""));
  EXPECT_THAT(Body(watched), Not(HasSubstr("\"id\":\"h2\"")));
  // Any other cluster, or every cluster, still needs a token.
  EXPECT_EQ(Get("?cluster_id=" + std::string(kMine), "", /*with_token=*/false).status, 401);
  EXPECT_EQ(Get("", "", /*with_token=*/false).status, 401);
  // A token is used as before.
  EXPECT_EQ(Get("?cluster_id=" + std::string(kMine)).status, 200);
}

// Download tokens carry no tenant: a stream opened with one would be read as the gateway's own
// and show every tenant's changes. Only users (and viewers, of their one cluster) follow changes.
TEST_F(ChangeStreamTest, DownloadTokensOfEveryKindAreRefused) {
  const std::string key(32, 'u');
  auto authenticator = Authenticator::Create({.hs256_secret = kSecret, .url_signing_key = key});
  ASSERT_TRUE(authenticator.ok()) << authenticator.status();
  authenticator_ = *std::move(authenticator);
  MakeStream({.max_wait = absl::Milliseconds(200), .max_watchers = 4});
  absl::StatusOr<Authenticator::ClusterLink> link =
      authenticator_->SignClusterLink(kMine, absl::Now());
  ASSERT_TRUE(link.ok()) << link.status();
  absl::StatusOr<std::string> image = auth::SignToken(
      {.service = key}, auth::TokenPurpose::kDownload, kMine, absl::Now() + absl::Hours(1));
  ASSERT_TRUE(image.ok()) << image.status();
  for (const std::string& token : {link->token, *image}) {
    http::Request request;
    request.method = "GET";
    request.path = ChangeStream::kPath;
    request.headers.Add("Image-Token", token);
    const http::Response refused = stream_->Serve(request);
    EXPECT_EQ(refused.status, 403) << Body(refused);
  }
}

TEST_F(ChangeStreamTest, BeyondMaxWatchersAnswersAtOnceWithASlowRetry) {
  MakeStream({.max_wait = absl::Minutes(5), .max_watchers = 0});
  const std::string body = Body(Get("", Position(0)));
  EXPECT_THAT(body, HasSubstr("retry: 5000"));
}

TEST_F(ChangeStreamTest, CloseEndsHeldAnswers) {
  MakeStream({.max_wait = absl::Minutes(5), .max_watchers = 4});
  http::Response response;
  std::thread watcher([&] { response = Get("", Position(0)); });
  feed_.Close();
  watcher.join();
  EXPECT_EQ(response.status, 200);
  EXPECT_THAT(Body(response), HasSubstr("event: position"));
}

TEST(FeedAfterCacheTest, TheCacheHearsOfAChangeBeforeBrowsersDo) {
  ChangeFeed feed("b00t");
  std::vector<std::string> heard;
  inventory_client::WatchFollower::Callbacks cache{
      .on_change =
          [&](const inv::WatchEvent& event) {
            // When the cache drops its copy, no browser can have heard of the change yet.
            heard.push_back(absl::StrCat(event.id(), " at feed head ", feed.head()));
          },
      .on_resync = [&] { heard.push_back(absl::StrCat("resync at feed head ", feed.head())); }};
  auto both = FeedAfterCache(cache, {inv::RESOURCE_KIND_HOST}, feed);
  both.on_change(HostChange(kMine, "h1"));
  inv::WatchEvent event;
  event.set_kind(inv::RESOURCE_KIND_EVENT);  // not the cache's kind: the feed only
  event.set_id("42");
  both.on_change(event);
  both.on_resync();
  EXPECT_THAT(heard, ::testing::ElementsAre("h1 at feed head 0", "resync at feed head 2"));
  EXPECT_EQ(feed.head(), 3);
}

}  // namespace
}  // namespace assisted::gateway
