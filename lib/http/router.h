// File: lib/http/router.h
//
// The route table of an HTTP server: (method, path pattern) -> handler, built before the server
// starts and read-only afterwards (so lookups need no lock). Also the parsing of a request-target
// into decoded path segments and query parameters, which routing works on.
//
// Patterns are '/'-separated segments:
//   "/healthz"                        literal segments match themselves exactly
//   "/images/{image_id}/{file}"       {name} matches one non-empty segment; its decoded value is
//                                     Request::Param("image_id")
//   "/static/{path...}"               as the last segment, {name...} matches the rest of the path
//                                     (zero or more segments, joined by '/')
// When several patterns match a path, the most specific wins: comparing segment by segment
// from the left, a literal beats {name}, which beats {name...}. Each HEAD request goes to the
// GET route of its path unless a HEAD route is registered.
//
//   Router router;
//   RETURN_IF_ERROR(router.Handle("GET", "/images/{image_id}/{file}", ServeImage));
//   RETURN_IF_ERROR(router.Handle("GET", "/healthz", Healthz));

#ifndef ASSISTED_LIB_HTTP_ROUTER_H_
#define ASSISTED_LIB_HTTP_ROUTER_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/http/message.h"

namespace assisted::http {

// Answers one request. Runs on a server thread: it must return (it may block, but every blocked
// handler holds a thread; see HttpServerOptions::handler_threads) and must not throw.
using Handler = std::function<Response(const Request&)>;

// A request-target split for routing.
struct Target {
  std::vector<std::string> segments;  // decoded path segments; "/" is one empty segment
  std::string path;                   // decoded path, "/" + segments joined by "/"
  std::vector<std::pair<std::string, std::string>> query;  // decoded, '+' read as space
};

// Parses an origin-form ("/a/b?x=1") or absolute-form ("http://host/a/b?x=1") request-target.
// INVALID_ARGUMENT (the server answers 400) for other forms, bad or NUL percent-escapes, and "."
// or ".." segments, which no well-behaved client sends and which only serve path traversal.
absl::StatusOr<Target> ParseTarget(absl::string_view target);

// Decodes %XX escapes (and '+' as space when `plus_is_space`). INVALID_ARGUMENT for a truncated
// or non-hex escape.
absl::StatusOr<std::string> PercentDecode(absl::string_view text, bool plus_is_space);

class Router {
 public:
  // Adds a route. INVALID_ARGUMENT for a method that is not an upper-case token, a pattern that
  // does not start with '/', a segment mixing literal text and braces, a bad or repeated
  // parameter name, or {name...} anywhere but last. ALREADY_EXISTS when a route with the same
  // method and shape (parameter names aside) is already there.
  absl::Status Handle(absl::string_view method, absl::string_view pattern, Handler handler);

  struct Match {
    enum class Kind { kFound, kNotFound, kMethodNotAllowed };
    Kind kind = Kind::kNotFound;
    const Handler* handler = nullptr;                      // kFound: valid as long as the router
    std::string pattern;                                   // kFound: the route's pattern
    absl::flat_hash_map<std::string, std::string> params;  // kFound
    std::string allow;  // kMethodNotAllowed: the methods the path has, "GET, HEAD, POST"
  };

  // Finds the handler for `method` on a path given as decoded segments (Target::segments).
  Match Find(absl::string_view method, const std::vector<std::string>& segments) const;

  // Replaces each route's handler h with wrap(h): what every route does around its own work
  // (the gateway's request ids and access log). Call before the router goes to the server.
  // The answers the server gives requests no route takes (404, 405) go through `wrap` too
  // (Unrouted).
  void WrapHandlers(const std::function<Handler(Handler)>& wrap);

  // `answer` (the server's own 404 or 405 for `request`) as the wrapped handlers would give it:
  // through every WrapHandlers `wrap`, as if a route had answered it.
  Response Unrouted(const Request& request, Response answer) const;

  // The patterns of all routes, in the order they were added (each once).
  std::vector<std::string> Patterns() const;

 private:
  struct PatternSegment {
    enum class Kind { kLiteral = 0, kParam = 1, kRest = 2 };  // order = precedence
    Kind kind;
    std::string text;  // the literal, or the parameter name
  };
  struct Route {
    std::string method;
    std::string pattern;
    std::vector<PatternSegment> segments;
    Handler handler;
  };

  // Whether `route` matches `segments`; fills `params` when it does.
  static bool Matches(const Route& route, const std::vector<std::string>& segments,
                      absl::flat_hash_map<std::string, std::string>* params);
  // Whether `a` is more specific than `b` (both matching the same path).
  static bool MoreSpecific(const Route& a, const Route& b);

  std::vector<Route> routes_;
  std::vector<std::function<Handler(Handler)>> wraps_;  // in the order given
};

}  // namespace assisted::http

#endif  // ASSISTED_LIB_HTTP_ROUTER_H_
