#include "tests/ui/oidc_provider.h"

#include <openssl/sha.h>

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/log/log.h"
#include "lib/random/random.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"
#include "services/gateway/jwt.h"
#include "services/gateway/rsa_test_key.h"

namespace assisted::testing {
namespace {

using Json = nlohmann::json;
using Params = std::vector<std::pair<std::string, std::string>>;

constexpr char kSessionCookie[] = "oidc_test_session";
constexpr absl::Duration kCodeLifetime = absl::Seconds(60);

std::string Get(const Params& params, absl::string_view name) {
  for (const auto& [key, value] : params) {
    if (key == name) return value;
  }
  return "";
}

// An application/x-www-form-urlencoded body: the grammar of a query string.
Params FormOf(const std::string& body) {
  absl::StatusOr<http::Target> target = http::ParseTarget(absl::StrCat("/?", body));
  return target.ok() ? target->query : Params();
}

std::string PercentEncode(absl::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppend(
          &out, "%",
          absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(&c), 1)));
    }
  }
  return out;
}

std::string HtmlEscape(absl::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string OriginOf(absl::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == absl::string_view::npos) return "";
  const size_t end = url.find_first_of("/?#", scheme + 3);
  return std::string(url.substr(0, end));
}

std::string Challenge(absl::string_view verifier) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size(), digest);
  return absl::WebSafeBase64Escape(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

// RFC 7636 4.1: 43 to 128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~".
bool WellFormedVerifier(absl::string_view verifier) {
  return verifier.size() >= 43 && verifier.size() <= 128 &&
         std::all_of(verifier.begin(), verifier.end(), [](char c) {
           return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ||
                  c == '_' || c == '~';
         });
}

http::Response Redirect(int status, const std::string& location) {
  http::Response response;
  response.status = status;
  response.headers.Set("Location", location);
  response.headers.Set("Cache-Control", "no-store");
  return response;
}

http::Response Html(int status, const std::string& body) {
  http::Response response = http::Response::Text(status, body);
  response.headers.Set("Content-Type", "text/html; charset=utf-8");
  response.headers.Set("Cache-Control", "no-store");
  return response;
}

std::string RandomToken() {
  absl::StatusOr<std::string> bytes = SecureRandomBytes(24);
  return bytes.ok() ? absl::WebSafeBase64Escape(*bytes) : "";
}

std::string CookieValue(const http::Request& request, absl::string_view name) {
  const absl::optional<absl::string_view> header = request.headers.Get("Cookie");
  if (!header.has_value()) return "";
  for (absl::string_view pair : absl::StrSplit(*header, ';')) {
    pair = absl::StripAsciiWhitespace(pair);
    if (absl::ConsumePrefix(&pair, name) && absl::ConsumePrefix(&pair, "=")) {
      return std::string(pair);
    }
  }
  return "";
}

}  // namespace

absl::StatusOr<std::unique_ptr<OidcProvider>> OidcProvider::Start(OidcProviderOptions options) {
  auto provider = std::unique_ptr<OidcProvider>(new OidcProvider());
  provider->options_ = std::move(options);
  provider->key_pem_ = gateway::NewRsaKeyPem();
  http::Router router;
  RETURN_IF_ERROR(provider->Register(router));
  ASSIGN_OR_RETURN(provider->server_,
                   http::HttpServer::Start({.listen = "127.0.0.1:0", .io_threads = 1},
                                           std::move(router), nullptr, log::Logger::Discard()));
  provider->issuer_ = absl::StrCat("http://127.0.0.1:", provider->server_->port());
  return provider;
}

OidcProvider::~OidcProvider() {
  if (server_ != nullptr) server_->Shutdown(absl::ZeroDuration());
}

std::string OidcProvider::issuer() const { return issuer_; }

std::string OidcProvider::DiscoveryDocument() const {
  return Json{{"issuer", issuer_},
              {"authorization_endpoint", issuer_ + "/authorize"},
              {"token_endpoint", issuer_ + "/token"},
              {"end_session_endpoint", issuer_ + "/logout"},
              {"jwks_uri", issuer_ + "/jwks"},
              {"response_types_supported", {"code"}},
              {"grant_types_supported", {"authorization_code"}},
              {"code_challenge_methods_supported", {"S256"}},
              {"subject_types_supported", {"public"}},
              {"id_token_signing_alg_values_supported", {"RS256"}},
              {"scopes_supported", {"openid"}},
              {"token_endpoint_auth_methods_supported", {"none"}}}
      .dump();
}

std::string OidcProvider::Jwks() const {
  absl::StatusOr<std::string> jwks = gateway::PublicJwks(key_pem_, kid_);
  return jwks.ok() ? *jwks : "";
}

void OidcProvider::RegisterRedirectUri(const std::string& uri) {
  absl::MutexLock lock(&mu_);
  redirect_uri_ = uri;
}

OidcProvider::Record OidcProvider::record() const {
  absl::MutexLock lock(&mu_);
  return record_;
}

absl::Status OidcProvider::Register(http::Router& router) {
  RETURN_IF_ERROR(router.Handle(
      "GET", "/.well-known/openid-configuration",
      [this](const http::Request&) { return http::Response::Json(200, DiscoveryDocument()); }));
  RETURN_IF_ERROR(router.Handle(
      "GET", "/jwks", [this](const http::Request&) { return http::Response::Json(200, Jwks()); }));
  RETURN_IF_ERROR(router.Handle("GET", "/authorize", [this](const http::Request& request) {
    return Authorize(request.query, request, /*answered=*/false);
  }));
  RETURN_IF_ERROR(router.Handle("POST", "/authorize", [this](const http::Request& request) {
    return Authorize(FormOf(request.body), request, /*answered=*/true);
  }));
  RETURN_IF_ERROR(router.Handle("POST", "/token",
                                [this](const http::Request& request) { return Token(request); }));
  return router.Handle("GET", "/logout",
                       [this](const http::Request& request) { return Logout(request); });
}

http::Response OidcProvider::Refuse(int status, const std::string& error,
                                    const std::string& reason) {
  {
    absl::MutexLock lock(&mu_);
    record_.refusals.push_back(absl::StrCat(error, ": ", reason));
  }
  return http::Response::Json(status, Json{{"error", error}, {"error_description", reason}}.dump());
}

// RFC 6749 4.1.1 / 4.1.2.1: an unknown client or redirect URI gets a page (never a redirect to
// an untrusted place); anything else wrong goes back to the client as error=... with its state.
http::Response OidcProvider::Authorize(const Params& params, const http::Request& request,
                                       bool answered) {
  const std::string redirect_uri = Get(params, "redirect_uri");
  const std::string state = Get(params, "state");
  std::string registered;
  {
    absl::MutexLock lock(&mu_);
    registered = redirect_uri_;
  }
  if (Get(params, "client_id") != options_.client_id || redirect_uri.empty() ||
      redirect_uri != registered) {
    Refuse(400, "invalid_request", "unknown client or redirect_uri");
    return Html(400,
                "<!doctype html><title>Refused</title><h1>Unknown client or redirect URI</h1>");
  }
  const auto back = [&](const std::string& query) {
    return Redirect(answered ? 303 : 302,
                    absl::StrCat(redirect_uri, "?", query, "&state=", PercentEncode(state)));
  };
  const auto refuse = [&](const std::string& error, const std::string& reason) {
    Refuse(400, error, reason);
    return back(absl::StrCat("error=", error, "&error_description=", PercentEncode(reason)));
  };
  const std::string challenge = Get(params, "code_challenge");
  if (Get(params, "response_type") != "code") {
    return refuse("unsupported_response_type", "only the code flow");
  }
  if (Get(params, "code_challenge_method") != "S256" || challenge.size() != 43) {
    return refuse("invalid_request", "PKCE with S256 is required");
  }
  const std::vector<std::string> scopes = absl::StrSplit(Get(params, "scope"), ' ');
  if (std::find(scopes.begin(), scopes.end(), "openid") == scopes.end()) {
    return refuse("invalid_scope", "openid is required");
  }
  if (answered && Get(params, "decision") == "deny") {
    return refuse("access_denied", "the user declined to sign in");
  }

  absl::MutexLock lock(&mu_);
  const bool in_session = !session_.empty() && CookieValue(request, kSessionCookie) == session_;
  if (!answered && !in_session) {
    ++record_.login_pages;
    std::string hidden;
    for (const char* name : {"response_type", "client_id", "redirect_uri", "scope", "state",
                             "code_challenge", "code_challenge_method"}) {
      absl::StrAppend(&hidden, "<input type=\"hidden\" name=\"", name, "\" value=\"",
                      HtmlEscape(Get(params, name)), "\">\n");
    }
    return Html(200, absl::StrCat("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                                  "<title>Test identity provider</title></head><body><main>"
                                  "<h1>Test identity provider</h1><form method=\"post\" "
                                  "action=\"/authorize\">\n",
                                  hidden, "<button name=\"decision\" value=\"allow\">Sign in as ",
                                  HtmlEscape(options_.user),
                                  "</button> <button name=\"decision\" value=\"deny\">Deny</button>"
                                  "</form></main></body></html>"));
  }
  const std::string code = RandomToken();
  codes_[code] = Code{
      .challenge = challenge, .redirect_uri = redirect_uri, .expires = absl::Now() + kCodeLifetime};
  ++record_.codes;
  http::Response response = back(absl::StrCat("code=", code));
  if (answered) {
    session_ = RandomToken();
    response.headers.Add("Set-Cookie", absl::StrCat(kSessionCookie, "=", session_,
                                                    "; Path=/; HttpOnly; SameSite=Lax"));
  }
  return response;
}

http::Response OidcProvider::Token(const http::Request& request) {
  const Params form = FormOf(request.body);
  std::string registered;
  Code code;
  bool known = false;
  {
    absl::MutexLock lock(&mu_);
    registered = redirect_uri_;
    auto it = codes_.find(Get(form, "code"));
    if (it != codes_.end()) {
      code = it->second;
      known = true;
      codes_.erase(it);  // single use, whatever comes of this exchange
    }
  }
  const auto answer = [&](http::Response response) {
    const absl::optional<absl::string_view> origin = request.headers.Get("Origin");
    if (origin.has_value() && *origin == OriginOf(registered)) {
      response.headers.Set("Access-Control-Allow-Origin", std::string(*origin));
      response.headers.Set("Vary", "Origin");
    }
    response.headers.Set("Cache-Control", "no-store");
    return response;
  };
  const std::string grant = Get(form, "grant_type");
  if (grant != "authorization_code" && grant != "refresh_token") {
    return answer(
        Refuse(400, "unsupported_grant_type", "only authorization_code and refresh_token"));
  }
  if (Get(form, "client_id") != options_.client_id) {
    return answer(Refuse(401, "invalid_client", "unknown client"));
  }
  if (grant == "refresh_token") {
    // Rotated: each refresh token is good for one refresh, and only while the session lasts.
    bool live = false;
    {
      absl::MutexLock lock(&mu_);
      live = refresh_tokens_.erase(Get(form, "refresh_token")) > 0;
    }
    if (!live) return answer(Refuse(400, "invalid_grant", "unknown or used refresh token"));
    return answer(Tokens(/*refreshed=*/true));
  }
  if (!known || code.expires < absl::Now()) {
    return answer(Refuse(400, "invalid_grant", "unknown, used or expired code"));
  }
  if (Get(form, "redirect_uri") != code.redirect_uri) {
    return answer(Refuse(400, "invalid_grant", "redirect_uri differs from the authorization's"));
  }
  const std::string verifier = Get(form, "code_verifier");
  if (!WellFormedVerifier(verifier) || Challenge(verifier) != code.challenge) {
    return answer(Refuse(400, "invalid_grant", "code_verifier does not match the challenge"));
  }
  return answer(Tokens(/*refreshed=*/false));
}

http::Response OidcProvider::Tokens(bool refreshed) {
  const std::string access = Sign("access");
  const std::string id = Sign("id");
  const std::string refresh = RandomToken();
  if (access.empty() || id.empty() || refresh.empty()) {
    return Refuse(500, "server_error", "cannot sign");
  }
  {
    absl::MutexLock lock(&mu_);
    ++(refreshed ? record_.refreshes : record_.tokens);
    refresh_tokens_.insert(refresh);
  }
  return http::Response::Json(200,
                              Json{{"access_token", access},
                                   {"id_token", id},
                                   {"refresh_token", refresh},
                                   {"token_type", "Bearer"},
                                   {"expires_in", absl::ToInt64Seconds(options_.token_lifetime)}}
                                  .dump());
}

std::string OidcProvider::Sign(const std::string& kind) const {
  const absl::Time now = absl::Now();
  Json claims = {{"iss", issuer_},
                 {"aud", options_.client_id},
                 {"sub", options_.user},
                 {"username", options_.user},
                 {"org_id", options_.org},
                 {"iat", absl::ToUnixSeconds(now)},
                 {"exp", absl::ToUnixSeconds(now + options_.token_lifetime)},
                 {"typ", kind == "id" ? "ID" : "Bearer"},
                 // Two tokens signed within one second differ all the same.
                 {"jti", RandomToken()}};
  if (kind == "id") claims["azp"] = options_.client_id;
  absl::StatusOr<std::string> token = gateway::SignRs256(key_pem_, kid_, claims);
  return token.ok() ? *token : "";
}

// OpenID Connect RP-Initiated Logout: the session ends; back to the client when it asks to go
// to its own origin.
http::Response OidcProvider::Logout(const http::Request& request) {
  std::string registered;
  {
    absl::MutexLock lock(&mu_);
    session_.clear();
    refresh_tokens_.clear();
    ++record_.sessions_ended;
    registered = redirect_uri_;
  }
  const std::string back(request.Query("post_logout_redirect_uri").value_or(""));
  http::Response response =
      !back.empty() && OriginOf(back) == OriginOf(registered)
          ? Redirect(302, back)
          : Html(200,
                 "<!doctype html><html lang=\"en\"><title>Signed out</title><h1>Signed "
                 "out</h1></html>");
  response.headers.Add("Set-Cookie", absl::StrCat(kSessionCookie, "=; Path=/; Max-Age=0"));
  return response;
}

}  // namespace assisted::testing
