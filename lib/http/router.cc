#include "lib/http/router.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace assisted::http {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsParamName(absl::string_view name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// RFC 9110 token characters, upper case only: methods are case-sensitive and every standard
// one is upper case, so a lower-case registration is almost certainly a mistake.
bool IsMethod(absl::string_view method) {
  if (method.empty()) return false;
  for (char c : method) {
    if (!absl::ascii_isupper(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> PercentDecode(absl::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      const int high = i + 2 < text.size() ? HexValue(text[i + 1]) : -1;
      const int low = high >= 0 ? HexValue(text[i + 2]) : -1;
      if (low < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("bad percent-escape in \"", absl::CHexEscape(text), "\""));
      }
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

absl::StatusOr<Target> ParseTarget(absl::string_view target) {
  absl::string_view rest = target;
  for (absl::string_view scheme : {"http://", "https://"}) {
    if (rest.size() >= scheme.size() &&
        absl::EqualsIgnoreCase(rest.substr(0, scheme.size()), scheme)) {
      rest.remove_prefix(scheme.size());
      const size_t slash = rest.find_first_of("/?");
      rest = slash == absl::string_view::npos ? "/" : rest.substr(slash);
      if (absl::StartsWith(rest, "?"))
        return absl::InvalidArgumentError("absolute target without a path");
      break;
    }
  }
  if (!absl::StartsWith(rest, "/")) {
    return absl::InvalidArgumentError("the request target must be a path starting with /");
  }
  for (char c : rest) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte >= 0x7f || c == '#') {
      return absl::InvalidArgumentError("the request target holds a character it may not");
    }
  }
  const size_t question = rest.find('?');
  const absl::string_view raw_path = rest.substr(0, question);
  const absl::string_view raw_query =
      question == absl::string_view::npos ? absl::string_view() : rest.substr(question + 1);

  Target out;
  for (absl::string_view raw : absl::StrSplit(raw_path.substr(1), '/')) {
    absl::StatusOr<std::string> segment = PercentDecode(raw, /*plus_is_space=*/false);
    if (!segment.ok()) return segment.status();
    if (*segment == "." || *segment == "..") {
      return absl::InvalidArgumentError("dot segments are not allowed in the path");
    }
    if (segment->find('\0') != std::string::npos) {
      return absl::InvalidArgumentError("NUL in the path");
    }
    out.segments.push_back(*std::move(segment));
  }
  out.path = absl::StrCat("/", absl::StrJoin(out.segments, "/"));

  for (absl::string_view pair : absl::StrSplit(raw_query, '&', absl::SkipEmpty())) {
    const size_t equals = pair.find('=');
    absl::StatusOr<std::string> key = PercentDecode(pair.substr(0, equals), true);
    absl::StatusOr<std::string> value = PercentDecode(
        equals == absl::string_view::npos ? absl::string_view() : pair.substr(equals + 1), true);
    if (!key.ok()) return key.status();
    if (!value.ok()) return value.status();
    out.query.emplace_back(*std::move(key), *std::move(value));
  }
  return out;
}

absl::Status Router::Handle(absl::string_view method, absl::string_view pattern, Handler handler) {
  const auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("route ", method, " ", pattern, ": ", why));
  };
  if (!IsMethod(method)) return invalid("the method must be an upper-case token");
  if (!absl::StartsWith(pattern, "/")) return invalid("the pattern must start with /");
  if (!handler) return invalid("no handler");

  Route route{std::string(method), std::string(pattern), {}, std::move(handler)};
  std::set<std::string> names;
  const std::vector<absl::string_view> parts = absl::StrSplit(pattern.substr(1), '/');
  for (size_t i = 0; i < parts.size(); ++i) {
    absl::string_view part = parts[i];
    const bool braces =
        absl::StartsWith(part, "{") && absl::EndsWith(part, "}") && part.size() >= 2;
    if (!braces) {
      if (part.find_first_of("{}") != absl::string_view::npos) {
        return invalid(absl::StrCat("segment \"", part, "\" mixes text and a parameter"));
      }
      route.segments.push_back({PatternSegment::Kind::kLiteral, std::string(part)});
      continue;
    }
    absl::string_view name = part.substr(1, part.size() - 2);
    PatternSegment::Kind kind = PatternSegment::Kind::kParam;
    if (absl::EndsWith(name, "...")) {
      name.remove_suffix(3);
      kind = PatternSegment::Kind::kRest;
      if (i + 1 != parts.size()) return invalid("{name...} must be the last segment");
    }
    if (!IsParamName(name)) return invalid(absl::StrCat("bad parameter name \"", name, "\""));
    if (!names.insert(std::string(name)).second) {
      return invalid(absl::StrCat("parameter \"", name, "\" appears twice"));
    }
    route.segments.push_back({kind, std::string(name)});
  }

  for (const Route& existing : routes_) {
    if (existing.method != route.method || existing.segments.size() != route.segments.size()) {
      continue;
    }
    bool same = true;
    for (size_t i = 0; i < route.segments.size() && same; ++i) {
      const PatternSegment& a = existing.segments[i];
      const PatternSegment& b = route.segments[i];
      same = a.kind == b.kind && (a.kind != PatternSegment::Kind::kLiteral || a.text == b.text);
    }
    if (same) {
      return absl::AlreadyExistsError(
          absl::StrCat("route ", method, " ", pattern, " clashes with ", existing.pattern));
    }
  }
  routes_.push_back(std::move(route));
  return absl::OkStatus();
}

bool Router::Matches(const Route& route, const std::vector<std::string>& segments,
                     absl::flat_hash_map<std::string, std::string>* params) {
  size_t i = 0;
  for (const PatternSegment& pattern : route.segments) {
    switch (pattern.kind) {
      case PatternSegment::Kind::kLiteral:
        if (i >= segments.size() || segments[i] != pattern.text) return false;
        ++i;
        break;
      case PatternSegment::Kind::kParam:
        if (i >= segments.size() || segments[i].empty()) return false;
        if (params != nullptr) (*params)[pattern.text] = segments[i];
        ++i;
        break;
      case PatternSegment::Kind::kRest:
        if (params != nullptr) {
          (*params)[pattern.text] =
              absl::StrJoin(segments.begin() + std::min(i, segments.size()), segments.end(), "/");
        }
        return true;
    }
  }
  return i == segments.size();
}

bool Router::MoreSpecific(const Route& a, const Route& b) {
  const size_t n = std::min(a.segments.size(), b.segments.size());
  for (size_t i = 0; i < n; ++i) {
    if (a.segments[i].kind != b.segments[i].kind) return a.segments[i].kind < b.segments[i].kind;
  }
  // Same kinds as far as both go: the longer one ends in {name...} matching nothing here.
  return a.segments.size() < b.segments.size();
}

Router::Match Router::Find(absl::string_view method,
                           const std::vector<std::string>& segments) const {
  std::set<std::string> allowed;
  const Route* best = nullptr;
  const Route* best_get = nullptr;  // for HEAD without a HEAD route
  for (const Route& route : routes_) {
    if (!Matches(route, segments, nullptr)) continue;
    allowed.insert(route.method);
    if (route.method == method) {
      if (best == nullptr || MoreSpecific(route, *best)) best = &route;
    } else if (method == "HEAD" && route.method == "GET") {
      if (best_get == nullptr || MoreSpecific(route, *best_get)) best_get = &route;
    }
  }
  if (best == nullptr) best = best_get;

  Match match;
  if (best != nullptr) {
    match.kind = Match::Kind::kFound;
    match.handler = &best->handler;
    match.pattern = best->pattern;
    Matches(*best, segments, &match.params);
    return match;
  }
  if (allowed.empty()) return match;  // kNotFound
  if (allowed.count("GET") != 0) allowed.insert("HEAD");
  match.kind = Match::Kind::kMethodNotAllowed;
  match.allow = absl::StrJoin(allowed, ", ");
  return match;
}

void Router::WrapHandlers(const std::function<Handler(Handler)>& wrap) {
  for (Route& route : routes_) route.handler = wrap(std::move(route.handler));
  wraps_.push_back(wrap);
}

Response Router::Unrouted(const Request& request, Response answer) const {
  if (wraps_.empty()) return answer;
  Handler handler = [answer = std::move(answer)](const Request&) { return answer; };
  for (const auto& wrap : wraps_) handler = wrap(std::move(handler));
  return handler(request);
}

std::vector<std::string> Router::Patterns() const {
  std::vector<std::string> patterns;
  std::set<absl::string_view> seen;
  for (const Route& route : routes_) {
    if (seen.insert(route.pattern).second) patterns.push_back(route.pattern);
  }
  return patterns;
}

}  // namespace assisted::http
