#include "services/gateway/static_files.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/file/read_file.h"
#include "lib/status/status_macros.h"
#include "services/gateway/api_error.h"

namespace assisted::gateway {
namespace {

namespace fs = std::filesystem;

constexpr char kIndex[] = "index.html";

absl::Status BadDir(const std::string& dir, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("--ui-dir ", dir, ": ", problem));
}

// Whether the last segment of `path` has an extension: "/assets/app.js" names a file, while
// "/clusters/1f0e…" is one of the UI's own routes.
bool NamesAFile(absl::string_view path) {
  const size_t slash = path.rfind('/');
  const absl::string_view last = slash == absl::string_view::npos ? path : path.substr(slash + 1);
  return last.find('.') != absl::string_view::npos;
}

}  // namespace

std::string UiContentSecurityPolicy(absl::string_view token_endpoint_origin) {
  return absl::StrCat(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
      "font-src 'self'; connect-src 'self'",
      token_endpoint_origin.empty() ? "" : " ", token_endpoint_origin,
      "; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; "
      "object-src 'none'");
}

void UiSecurityHeaders(http::Response& response, const std::string& policy) {
  response.headers.Set("Content-Security-Policy", policy);
  response.headers.Set("X-Content-Type-Options", "nosniff");
  response.headers.Set("X-Frame-Options", "DENY");
  response.headers.Set("Referrer-Policy", "no-referrer");
  response.headers.Set("Cross-Origin-Opener-Policy", "same-origin");
}

std::string ContentTypeFor(const std::string& name) {
  static const auto* types = new absl::flat_hash_map<std::string, std::string>{
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".map", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".jpg", "image/jpeg"},
      {".ico", "image/x-icon"},
      {".woff", "font/woff"},
      {".woff2", "font/woff2"},
      {".ttf", "font/ttf"},
      {".txt", "text/plain; charset=utf-8"},
  };
  const std::string extension = absl::AsciiStrToLower(fs::path(name).extension().string());
  auto found = types->find(extension);
  return found == types->end() ? "application/octet-stream" : found->second;
}

absl::StatusOr<std::unique_ptr<StaticFiles>> StaticFiles::Load(const std::string& dir,
                                                               std::string policy) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) return BadDir(dir, "not a directory");
  auto files = std::unique_ptr<StaticFiles>(new StaticFiles());
  files->policy_ = std::move(policy);
  int64_t total = 0;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, error);
  if (error) return BadDir(dir, error.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (error) return BadDir(dir, error.message());
    // Symlinks are left out: what is served is what the build wrote, nothing it points at.
    const fs::file_status status = it->symlink_status(error);
    if (error || !fs::is_regular_file(status)) continue;
    const std::string relative = fs::relative(it->path(), dir, error).generic_string();
    if (error) return BadDir(dir, error.message());
    ASSIGN_OR_RETURN(std::string content, ReadFile(it->path().string(), "--ui-dir file"));
    total += static_cast<int64_t>(content.size());
    if (total > kMaxTotalBytes || static_cast<int>(files->files_.size()) >= kMaxFiles) {
      return BadDir(dir, absl::StrCat("more than ", kMaxFiles, " files or ", kMaxTotalBytes >> 20,
                                      " MiB; is it the UI's build output?"));
    }
    files->files_[relative] =
        File{.content = std::make_shared<const std::string>(std::move(content)),
             .content_type = ContentTypeFor(relative),
             .immutable = absl::StartsWith(relative, "assets/")};
  }
  if (!files->files_.contains(kIndex)) return BadDir(dir, "no index.html (build the UI first)");
  return files;
}

absl::Status StaticFiles::Register(http::Router& router) const {
  auto serve = [this](const http::Request& request) { return Serve(request.path); };
  RETURN_IF_ERROR(router.Handle("GET", "/", serve));
  return router.Handle("GET", "/{path...}", serve);
}

http::Response StaticFiles::Serve(const std::string& path) const {
  absl::string_view relative = path;
  absl::ConsumePrefix(&relative, "/");
  if (absl::StartsWith(relative, "api/") || relative == "api") {
    return ErrorResponse(absl::NotFoundError(absl::StrCat("no route ", path)));
  }
  if (relative.empty()) relative = kIndex;
  auto found = files_.find(relative);
  if (found != files_.end()) return Answer(found->second);
  if (!NamesAFile(relative)) return Answer(files_.at(kIndex));
  http::Response missing = ErrorResponse(absl::NotFoundError(absl::StrCat("no file ", path)));
  UiSecurityHeaders(missing, policy_);
  return missing;
}

http::Response StaticFiles::Answer(const File& file) const {
  http::Response response;
  response.status = 200;
  response.headers.Set("Content-Type", file.content_type);
  // Hashed names never change content; everything else (index.html first) must be revalidated
  // so a new build reaches browsers at once.
  response.headers.Set("Cache-Control",
                       file.immutable ? "public, max-age=31536000, immutable" : "no-cache");
  UiSecurityHeaders(response, policy_);
  response.body.Append(http::Segment::Memory(file.content));
  return response;
}

}  // namespace assisted::gateway
