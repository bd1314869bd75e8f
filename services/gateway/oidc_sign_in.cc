#include "services/gateway/oidc_sign_in.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/status/status_macros.h"

namespace assisted::gateway {
namespace {

using Json = nlohmann::json;

constexpr char kDiscoveryFlag[] = "--oidc-discovery-file";

absl::Status BadField(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(kDiscoveryFlag, ": ", field, " ", problem));
}

struct UrlParts {
  absl::string_view scheme;     // "https" or "http"
  absl::string_view authority;  // "host[:port]"
  absl::string_view host;       // "host", "[v6]"
};

// Splits an absolute http(s) URL; nullopt when it is not one.
absl::optional<UrlParts> SplitUrl(absl::string_view url) {
  UrlParts parts;
  absl::string_view rest = url;
  if (absl::ConsumePrefix(&rest, "https://")) {
    parts.scheme = "https";
  } else if (absl::ConsumePrefix(&rest, "http://")) {
    parts.scheme = "http";
  } else {
    return absl::nullopt;
  }
  parts.authority = rest.substr(0, rest.find_first_of("/?#"));
  if (absl::StartsWith(parts.authority, "[")) {
    const size_t close = parts.authority.find(']');
    if (close == absl::string_view::npos) return absl::nullopt;
    parts.host = parts.authority.substr(0, close + 1);
  } else {
    parts.host = parts.authority.substr(0, parts.authority.find(':'));
  }
  if (parts.host.empty()) return absl::nullopt;
  return parts;
}

// Characters that may stand in an authority here: the origin goes into a response header (the
// Content-Security-Policy), so nothing that could end or extend a directive.
bool PlainAuthority(absl::string_view authority) {
  return std::all_of(authority.begin(), authority.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' ||
           c == '[' || c == ']';
  });
}

bool Loopback(absl::string_view host) {
  return host == "127.0.0.1" || host == "localhost" || host == "[::1]";
}

// An endpoint the browser is sent to or posts to: absolute https (http on loopback only), no
// user information, no fragment, no white space or control characters anywhere.
absl::StatusOr<std::string> EndpointUrl(const Json& document, absl::string_view field,
                                        bool required) {
  const auto it = document.find(std::string(field));
  if (it == document.end() || it->is_null()) {
    if (required) return BadField(field, "is missing");
    return std::string();
  }
  if (!it->is_string()) return BadField(field, "is not a string");
  const std::string url = it->get<std::string>();
  const absl::optional<UrlParts> parts = SplitUrl(url);
  if (!parts.has_value()) return BadField(field, absl::StrCat("is not an absolute URL: ", url));
  if (!PlainAuthority(parts->authority)) {
    return BadField(field, "has user information or odd characters in its host");
  }
  if (parts->scheme == "http" && !Loopback(parts->host)) {
    return BadField(field, "must be https (http only on a loopback host)");
  }
  const bool clean = std::none_of(url.begin(), url.end(), [](char c) {
    return absl::ascii_iscntrl(static_cast<unsigned char>(c)) || c == ' ' || c == '#' || c == '"' ||
           c == '\'' || c == '<' || c == '>' || c == '\\';
  });
  if (!clean) return BadField(field, "has a fragment, white space or quotes");
  return url;
}

// Whether `field` (a list of strings) names `wanted`; true when the document does not list it.
absl::StatusOr<bool> ListsOrOmits(const Json& document, absl::string_view field,
                                  absl::string_view wanted) {
  const auto it = document.find(std::string(field));
  if (it == document.end() || it->is_null()) return true;
  if (!it->is_array()) return BadField(field, "is not a list");
  return std::any_of(it->begin(), it->end(), [&](const Json& item) {
    return item.is_string() && item.get<std::string>() == wanted;
  });
}

absl::Status CheckScopes(absl::string_view scopes) {
  const std::vector<absl::string_view> each = absl::StrSplit(scopes, ' ', absl::SkipEmpty());
  // RFC 6749 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
  const bool printable = std::all_of(scopes.begin(), scopes.end(), [](char c) {
    return c == ' ' || (c >= 0x21 && c <= 0x7e && c != '"' && c != '\\');
  });
  if (!printable || std::find(each.begin(), each.end(), "openid") == each.end()) {
    return absl::InvalidArgumentError(
        "--oidc-scopes: space-separated scopes, \"openid\" among them");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<OidcSignIn> ParseOidcDiscovery(absl::string_view document, std::string client_id,
                                              std::string scopes,
                                              absl::string_view expected_issuer) {
  if (client_id.empty() || !std::all_of(client_id.begin(), client_id.end(),
                                        [](char c) { return c >= 0x21 && c <= 0x7e; })) {
    return absl::InvalidArgumentError(
        "--oidc-client-id: the UI's client id at the identity provider (printable, no spaces)");
  }
  RETURN_IF_ERROR(CheckScopes(scopes));
  const Json parsed = Json::parse(document.begin(), document.end(), nullptr,
                                  /*allow_exceptions=*/false);
  if (!parsed.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(kDiscoveryFlag,
                                                   ": not a JSON object (the provider's "
                                                   "/.well-known/openid-configuration document)"));
  }
  OidcSignIn sign_in{.client_id = std::move(client_id), .scopes = std::move(scopes)};
  ASSIGN_OR_RETURN(sign_in.issuer, EndpointUrl(parsed, "issuer", /*required=*/true));
  ASSIGN_OR_RETURN(sign_in.authorization_endpoint,
                   EndpointUrl(parsed, "authorization_endpoint", /*required=*/true));
  ASSIGN_OR_RETURN(sign_in.token_endpoint,
                   EndpointUrl(parsed, "token_endpoint", /*required=*/true));
  ASSIGN_OR_RETURN(sign_in.end_session_endpoint,
                   EndpointUrl(parsed, "end_session_endpoint", /*required=*/false));
  ASSIGN_OR_RETURN(bool code, ListsOrOmits(parsed, "response_types_supported", "code"));
  if (!code) return BadField("response_types_supported", "does not list \"code\"");
  ASSIGN_OR_RETURN(bool s256, ListsOrOmits(parsed, "code_challenge_methods_supported", "S256"));
  if (!s256) {
    return BadField("code_challenge_methods_supported",
                    "does not list S256: the UI signs in with PKCE only");
  }
  if (!expected_issuer.empty() && sign_in.issuer != expected_issuer) {
    return BadField("issuer", absl::StrCat("is ", sign_in.issuer, ", not --jwt-issuer ",
                                           expected_issuer, ": tokens it issues would be refused"));
  }
  return sign_in;
}

nlohmann::json OidcSignInJson(const OidcSignIn& sign_in) {
  Json json = {{"issuer", sign_in.issuer},
               {"client_id", sign_in.client_id},
               {"authorization_endpoint", sign_in.authorization_endpoint},
               {"token_endpoint", sign_in.token_endpoint},
               {"scopes", sign_in.scopes},
               {"redirect_path", OidcSignIn::kCallbackPath}};
  if (!sign_in.end_session_endpoint.empty()) {
    json["end_session_endpoint"] = sign_in.end_session_endpoint;
  }
  return json;
}

std::string OriginOf(absl::string_view url) {
  const absl::optional<UrlParts> parts = SplitUrl(url);
  if (!parts.has_value()) return "";
  return absl::StrCat(parts->scheme, "://", parts->authority);
}

}  // namespace assisted::gateway
