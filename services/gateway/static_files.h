// File: services/gateway/static_files.h
//
// The web UI's files (--ui-dir, the output of `ui/`'s build), served same-origin at "/" so the
// browser calls the REST API without CORS and with the strictest Content-Security-Policy.
//
// The directory is read once at start-up into memory (a few MiB): a request can then never
// reach outside it (no path is ever joined with what a client sent, symlinks included), and a
// build replacing files under a running gateway never serves half a file. A restart picks up a
// new build.
//
// What is served:
//   - every regular file under the directory at its relative path, with a Content-Type from its
//     extension; names under "assets/" carry a content hash (the build's choice) and are cached
//     for a year, everything else is revalidated (no-cache);
//   - index.html for any other path without a file extension: the UI's own routes
//     (/clusters/ID) work on reload and as bookmarks;
//   - 404 (an Error document) for other missing files and for anything under /api/, so an API
//     typo never answers with HTML.
// Every answer carries the UI's security headers (UiSecurityHeaders).
//
//   ASSIGN_OR_RETURN(std::unique_ptr<StaticFiles> ui, StaticFiles::Load("/srv/ui"));
//   RETURN_IF_ERROR(ui->Register(router));

#ifndef ASSISTED_SERVICES_GATEWAY_STATIC_FILES_H_
#define ASSISTED_SERVICES_GATEWAY_STATIC_FILES_H_

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/http/message.h"
#include "lib/http/router.h"

namespace assisted::gateway {

// The Content-Security-Policy of the UI: its own scripts, styles, fonts and API only; no inline
// script or style element, no eval, no framing, no plugins, no foreign form targets. With
// `token_endpoint_origin` (an origin OriginOf in oidc_sign_in.h gave, "https://sso.example.com"),
// the page may also connect to the identity provider's token endpoint there, to exchange its
// sign-in code; nothing else of the provider's.
std::string UiContentSecurityPolicy(absl::string_view token_endpoint_origin = "");

// Sets the security headers of every UI answer on `response`, with `policy` as its
// Content-Security-Policy.
void UiSecurityHeaders(http::Response& response, const std::string& policy);

// The Content-Type for a file name, by extension; application/octet-stream when unknown.
std::string ContentTypeFor(const std::string& name);

class StaticFiles {
 public:
  // Bound on what is loaded, so a wrong --ui-dir (say, "/") fails fast instead of reading a
  // disk into memory.
  static constexpr int64_t kMaxTotalBytes = 64 << 20;
  static constexpr int kMaxFiles = 2000;

  // Loads every regular file under `dir`, to serve under `policy` (UiContentSecurityPolicy).
  // INVALID_ARGUMENT naming --ui-dir when it is not a readable directory, has no index.html,
  // or exceeds the bounds above.
  static absl::StatusOr<std::unique_ptr<StaticFiles>> Load(
      const std::string& dir, std::string policy = UiContentSecurityPolicy());

  // Adds GET "/" and GET "/{path...}" (the least specific routes: every API route wins).
  absl::Status Register(http::Router& router) const;

  // The answer for a decoded request path ("/", "/assets/app-1234.js", "/clusters/x").
  http::Response Serve(const std::string& path) const;

 private:
  struct File {
    std::shared_ptr<const std::string> content;
    std::string content_type;
    bool immutable = false;
  };
  StaticFiles() = default;
  http::Response Answer(const File& file) const;

  absl::flat_hash_map<std::string, File> files_;  // by path relative to the directory
  std::string policy_;                            // the Content-Security-Policy
};

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_STATIC_FILES_H_
