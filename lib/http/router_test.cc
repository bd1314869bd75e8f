#include "lib/http/router.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::http {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

struct TargetCase {
  std::string target;
  std::vector<std::string> segments;
  std::string path;
};

TEST(ParseTarget, SplitsAndDecodesOriginAndAbsoluteForms) {
  const std::vector<TargetCase> cases = {
      {"/", {""}, "/"},
      {"/healthz", {"healthz"}, "/healthz"},
      {"/a/b/", {"a", "b", ""}, "/a/b/"},
      {"/a//b", {"a", "", "b"}, "/a//b"},
      {"/images/abc%20def.iso", {"images", "abc def.iso"}, "/images/abc def.iso"},
      {"/a%2Fb/c", {"a/b", "c"}, "/a/b/c"},  // an escaped slash stays inside its segment
      {"/a+b", {"a+b"}, "/a+b"},             // '+' is only a space in queries
      {"/x?", {"x"}, "/x"},
      {"http://example.com/a/b?x=1", {"a", "b"}, "/a/b"},
      {"HTTP://example.com", {""}, "/"},
      {"https://example.com:8443/", {""}, "/"},
  };
  for (const TargetCase& c : cases) {
    absl::StatusOr<Target> target = ParseTarget(c.target);
    ASSERT_THAT(target, IsOk()) << c.target;
    EXPECT_EQ(target->segments, c.segments) << c.target;
    EXPECT_EQ(target->path, c.path) << c.target;
  }
}

TEST(ParseTarget, DecodesQueryParametersInOrder) {
  absl::StatusOr<Target> target = ParseTarget("/s?q=a+b%21&empty=&flag&q=2&&x%3Dy=%26");
  ASSERT_THAT(target, IsOk());
  EXPECT_THAT(target->query, ElementsAre(Pair("q", "a b!"), Pair("empty", ""), Pair("flag", ""),
                                         Pair("q", "2"), Pair("x=y", "&")));
}

TEST(ParseTarget, RejectsWhatNoHonestClientSends) {
  const std::vector<std::string> targets = {"",
                                            "*",
                                            "images/x",
                                            "/a/../etc/passwd",
                                            "/..",
                                            "/./a",
                                            "/%2e%2e/x",
                                            "/a/%2E",
                                            "/a%zz",
                                            "/a%4",
                                            "/a%",
                                            "/a%00b",
                                            "/a b",
                                            "/a#frag",
                                            "/q?x=%zz",
                                            "/q?%=1",
                                            "http://host?x=1",
                                            "/a\x7f",
                                            "/caf\xc3\xa9"};
  for (const std::string& target : targets) {
    EXPECT_THAT(ParseTarget(target), StatusIs(absl::StatusCode::kInvalidArgument)) << target;
  }
}

TEST(PercentDecode, PlusIsSpaceOnlyWhenAsked) {
  EXPECT_THAT(PercentDecode("a+b%2B", true), IsOkAndHolds(std::string("a b+")));
  EXPECT_THAT(PercentDecode("a+b%2b", false), IsOkAndHolds(std::string("a+b+")));
  EXPECT_THAT(PercentDecode("%41%7a", false), IsOkAndHolds(std::string("Az")));
  EXPECT_THAT(PercentDecode("%G1", false), StatusIs(absl::StatusCode::kInvalidArgument));
}

Handler Named(std::string name) {
  return [name](const Request&) { return Response::Text(200, name); };
}

// Which handler answers `method path`: its name, "404", or "405 <allow>".
std::string Route(const Router& router, const std::string& method, const std::string& path,
                  absl::flat_hash_map<std::string, std::string>* params = nullptr) {
  absl::StatusOr<Target> target = ParseTarget(path);
  if (!target.ok()) return "bad target";
  Router::Match match = router.Find(method, target->segments);
  switch (match.kind) {
    case Router::Match::Kind::kNotFound:
      return "404";
    case Router::Match::Kind::kMethodNotAllowed:
      return "405 " + match.allow;
    case Router::Match::Kind::kFound:
      if (params != nullptr) *params = match.params;
      Request request;
      absl::StatusOr<std::string> name = (*match.handler)(request).body.ReadAll();
      return name.ok() ? *name : "error";
  }
  return "?";
}

TEST(Router, RejectsBadPatternsAndClashes) {
  Router router;
  EXPECT_THAT(router.Handle("GET", "/images/{image_id}/{file}", Named("a")), IsOk());
  EXPECT_THAT(router.Handle("GET", "/images/{id}/{name}", Named("b")),
              StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(router.Handle("POST", "/images/{id}/{name}", Named("c")), IsOk());
  const std::vector<std::pair<std::string, std::string>> invalid = {
      {"get", "/x"},
      {"", "/x"},
      {"GET", "x"},
      {"GET", ""},
      {"GET", "/a{b}"},
      {"GET", "/{a}x"},
      {"GET", "/{}"},
      {"GET", "/{1a}"},
      {"GET", "/{a-b}"},
      {"GET", "/{a}/{a}"},
      {"GET", "/{rest...}/x"},
      {"GET", "/{...}"},
      {"GET", "/{a"},
  };
  for (const auto& [method, pattern] : invalid) {
    EXPECT_THAT(router.Handle(method, pattern, Named("x")),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << method << " " << pattern;
  }
  EXPECT_THAT(router.Handle("GET", "/x", nullptr), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(Router, MostSpecificPatternWins) {
  Router router;
  ASSERT_THAT(router.Handle("GET", "/", Named("root")), IsOk());
  ASSERT_THAT(router.Handle("GET", "/images/{image_id}", Named("image")), IsOk());
  ASSERT_THAT(router.Handle("GET", "/images/latest", Named("latest")), IsOk());
  ASSERT_THAT(router.Handle("GET", "/images/{image_id}/{file}", Named("file")), IsOk());
  ASSERT_THAT(router.Handle("GET", "/images/{image_id}/{rest...}", Named("rest")), IsOk());
  ASSERT_THAT(router.Handle("GET", "/{a}/b", Named("param-first")), IsOk());
  ASSERT_THAT(router.Handle("GET", "/a/{b}", Named("literal-first")), IsOk());
  ASSERT_THAT(router.Handle("GET", "/static/{path...}", Named("static")), IsOk());

  EXPECT_EQ(Route(router, "GET", "/"), "root");
  EXPECT_EQ(Route(router, "GET", "/images/latest"), "latest");
  EXPECT_EQ(Route(router, "GET", "/images/abc"), "image");
  EXPECT_EQ(Route(router, "GET", "/images/abc/x.iso"), "file");
  EXPECT_EQ(Route(router, "GET", "/images/abc/x/y"), "rest");
  EXPECT_EQ(Route(router, "GET", "/a/b"), "literal-first");
  EXPECT_EQ(Route(router, "GET", "/z/b"), "param-first");
  EXPECT_EQ(Route(router, "GET", "/images/"), "404");  // {image_id} needs a non-empty segment
  EXPECT_EQ(Route(router, "GET", "/images"), "404");
  EXPECT_EQ(Route(router, "GET", "/nothing/here"), "404");

  absl::flat_hash_map<std::string, std::string> params;
  EXPECT_EQ(Route(router, "GET", "/images/a%2Fb/c%20d.iso", &params), "file");
  EXPECT_THAT(params, UnorderedElementsAre(Pair("image_id", "a/b"), Pair("file", "c d.iso")));
  EXPECT_EQ(Route(router, "GET", "/static/css/site.css", &params), "static");
  EXPECT_THAT(params, UnorderedElementsAre(Pair("path", "css/site.css")));
  EXPECT_EQ(Route(router, "GET", "/static", &params), "static");
  EXPECT_THAT(params, UnorderedElementsAre(Pair("path", "")));
}

TEST(Router, HeadFallsBackToGetAnd405ListsTheMethods) {
  Router router;
  ASSERT_THAT(router.Handle("GET", "/iso", Named("get")), IsOk());
  ASSERT_THAT(router.Handle("PUT", "/iso", Named("put")), IsOk());
  ASSERT_THAT(router.Handle("POST", "/upload", Named("post")), IsOk());
  ASSERT_THAT(router.Handle("HEAD", "/special", Named("head")), IsOk());
  ASSERT_THAT(router.Handle("GET", "/special", Named("special-get")), IsOk());

  EXPECT_EQ(Route(router, "HEAD", "/iso"), "get");
  EXPECT_EQ(Route(router, "HEAD", "/special"), "head");
  EXPECT_EQ(Route(router, "DELETE", "/iso"), "405 GET, HEAD, PUT");
  EXPECT_EQ(Route(router, "HEAD", "/upload"), "405 POST");
  EXPECT_EQ(Route(router, "get", "/iso"), "405 GET, HEAD, PUT");  // methods are case-sensitive
  EXPECT_THAT(router.Patterns(), ElementsAre("/iso", "/upload", "/special"));
}

TEST(Router, WrapHandlersPutsTheWrapperAroundEveryRoute) {
  Router router;
  ASSERT_THAT(router.Handle("GET", "/a", Named("a")), IsOk());
  ASSERT_THAT(router.Handle("POST", "/b/{id}", Named("b")), IsOk());
  router.WrapHandlers([](Handler inner) -> Handler {
    return [inner = std::move(inner)](const Request& request) {
      Response response = inner(request);
      response.headers.Set("X-Wrapped", "yes");
      return response;
    };
  });
  for (const auto& [method, path] : {std::pair{"GET", "/a"}, std::pair{"POST", "/b/1"}}) {
    absl::StatusOr<Target> target = ParseTarget(path);
    ASSERT_THAT(target, IsOk());
    Router::Match match = router.Find(method, target->segments);
    ASSERT_EQ(match.kind, Router::Match::Kind::kFound) << path;
    EXPECT_EQ((*match.handler)(Request{}).headers.Get("X-Wrapped"), "yes") << path;
  }
}

}  // namespace
}  // namespace assisted::http
