#include "services/gateway/cli/rest_client.h"

#include <curl/curl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace assisted::cli {
namespace {

absl::StatusCode CodeForHttp(long status) {
  switch (status) {
    case 400:
    case 415:
    case 422:
      return absl::StatusCode::kInvalidArgument;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 409:
      return absl::StatusCode::kFailedPrecondition;
    case 413:
    case 429:
      return absl::StatusCode::kResourceExhausted;
    default:
      return status >= 500 ? absl::StatusCode::kUnavailable : absl::StatusCode::kUnknown;
  }
}

size_t AppendToString(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// Where a download goes: the file, and what the server answered when it was not a success (an
// error body is kept in memory instead of being written to the file).
struct DownloadSink {
  CURL* curl = nullptr;
  std::FILE* file = nullptr;
  std::string error_body;
  int64_t written = 0;
  bool write_failed = false;
};

size_t WriteToFile(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<DownloadSink*>(user);
  long status = 0;
  curl_easy_getinfo(sink->curl, CURLINFO_RESPONSE_CODE, &status);
  const size_t bytes = size * count;
  if (status < 200 || status >= 300) {
    if (sink->error_body.size() < 64 * 1024) sink->error_body.append(data, bytes);
    return bytes;
  }
  if (std::fwrite(data, 1, bytes, sink->file) != bytes) {
    sink->write_failed = true;
    return 0;  // aborts the transfer
  }
  sink->written += static_cast<int64_t>(bytes);
  return bytes;
}

int ReportProgress(void* user, curl_off_t total, curl_off_t received, curl_off_t, curl_off_t) {
  const auto* progress = static_cast<const RestClient::Progress*>(user);
  if (*progress) (*progress)(received, total > 0 ? total : -1);
  return 0;
}

void CommonOptions(CURL* curl, const std::string& url) {
  curl_easy_reset(curl);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "aictl");
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
}

}  // namespace

absl::Status StatusFromHttp(long http_status, absl::string_view body) {
  if (http_status >= 200 && http_status < 300) return absl::OkStatus();
  std::string reason;
  const nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object() && parsed.contains("reason") && parsed["reason"].is_string()) {
    reason = parsed["reason"].get<std::string>();
  } else {
    std::vector<absl::string_view> lines = absl::StrSplit(body, '\n');
    reason = std::string(absl::StripAsciiWhitespace(lines.empty() ? body : lines[0]));
    if (reason.empty()) reason = "no details";
  }
  return absl::Status(CodeForHttp(http_status), absl::StrCat(http_status, ": ", reason));
}

RestClient::RestClient(Options options) : options_(std::move(options)), curl_(curl_easy_init()) {
  while (!options_.server.empty() && options_.server.back() == '/') options_.server.pop_back();
}

RestClient::~RestClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

absl::StatusOr<std::string> RestClient::Perform(absl::string_view method, absl::string_view path,
                                                const std::string* body) {
  CURL* curl = static_cast<CURL*>(curl_);
  if (curl == nullptr) return absl::InternalError("libcurl could not start");
  CommonOptions(curl, absl::StrCat(options_.server, kApiPrefix, path));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(options_.timeout)));
  const std::string verb(method);
  if (verb != "GET") curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, verb.c_str());
  std::string answer;
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendToString);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
  struct curl_slist* headers = nullptr;
  if (!options_.token.empty()) {
    headers = curl_slist_append(headers, ("Authorization: Bearer " + options_.token).c_str());
  }
  if (body != nullptr) {
    headers = curl_slist_append(headers, "Content-Type: application/json");
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body->data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
  } else if (verb == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, "");
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(0));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  const CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  if (code != CURLE_OK) {
    return absl::UnavailableError(
        absl::StrCat("cannot reach ", options_.server, ": ", curl_easy_strerror(code)));
  }
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (absl::Status failed = StatusFromHttp(status, answer); !failed.ok()) return failed;
  return answer;
}

absl::StatusOr<std::string> RestClient::GetText(absl::string_view path) {
  return Perform("GET", path, nullptr);
}

absl::StatusOr<nlohmann::json> RestClient::Call(absl::string_view method, absl::string_view path,
                                                const std::optional<nlohmann::json>& body) {
  const std::string payload = body.has_value() ? body->dump() : "";
  absl::StatusOr<std::string> answer = Perform(method, path, body.has_value() ? &payload : nullptr);
  if (!answer.ok()) return answer.status();
  if (answer->empty()) return nlohmann::json();
  nlohmann::json parsed = nlohmann::json::parse(*answer, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return absl::DataLossError(absl::StrCat(method, " ", path, ": the answer is not JSON"));
  }
  return parsed;
}

absl::StatusOr<int64_t> RestClient::Download(const std::string& url, const std::string& path,
                                             const Progress& progress) {
  CURL* curl = static_cast<CURL*>(curl_);
  if (curl == nullptr) return absl::InternalError("libcurl could not start");
  const std::string part = path + ".part";
  DownloadSink sink;
  sink.curl = curl;
  sink.file = std::fopen(part.c_str(), "wb");
  if (sink.file == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", part, ": ", std::strerror(errno)));
  }
  CommonOptions(curl, url);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteToFile);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, ReportProgress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &progress);
  // A stalled transfer fails instead of hanging: under 1 KiB/s for 60 s.
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
  const CURLcode code = curl_easy_perform(curl);
  const bool closed = std::fclose(sink.file) == 0;
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  absl::Status result;
  if (sink.write_failed || !closed) {
    result = absl::ResourceExhaustedError(absl::StrCat("cannot write ", part));
  } else if (code != CURLE_OK) {
    result = absl::UnavailableError(absl::StrCat("download failed: ", curl_easy_strerror(code)));
  } else {
    result = StatusFromHttp(status, sink.error_body);
  }
  std::error_code error;
  if (!result.ok()) {
    std::filesystem::remove(part, error);
    return result;
  }
  std::filesystem::rename(part, path, error);
  if (error)
    return absl::InternalError(absl::StrCat("cannot rename ", part, ": ", error.message()));
  return sink.written;
}

}  // namespace assisted::cli
