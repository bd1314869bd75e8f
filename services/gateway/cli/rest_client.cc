#include "services/gateway/cli/rest_client.h"

#include <curl/curl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
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
  // Bytes of an earlier, interrupted transfer the file already holds (0: a fresh download);
  // zeroed when the server sends the whole content instead of the rest (its ETag changed).
  int64_t resumed_from = 0;
  std::string etag;  // the answer's ETag header, if any
  const RestClient::Progress* progress = nullptr;
};

size_t KeepETag(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<DownloadSink*>(user);
  const absl::string_view line(data, size * count);
  constexpr absl::string_view kName = "etag:";
  if (line.size() > kName.size() && absl::EqualsIgnoreCase(line.substr(0, kName.size()), kName)) {
    sink->etag = std::string(absl::StripAsciiWhitespace(line.substr(kName.size())));
  }
  return size * count;
}

size_t WriteToFile(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<DownloadSink*>(user);
  long status = 0;
  curl_easy_getinfo(sink->curl, CURLINFO_RESPONSE_CODE, &status);
  const size_t bytes = size * count;
  if (status < 200 || status >= 300) {
    if (sink->error_body.size() < 64 * 1024) sink->error_body.append(data, bytes);
    return bytes;
  }
  if (status == 200 && sink->resumed_from > 0 && sink->written == 0) {
    // Asked for the rest, given the whole (If-Range did not match): start the file over.
    if (std::fflush(sink->file) != 0 || ftruncate(fileno(sink->file), 0) != 0 ||
        std::fseek(sink->file, 0, SEEK_SET) != 0) {
      sink->write_failed = true;
      return 0;
    }
    sink->resumed_from = 0;
  }
  if (std::fwrite(data, 1, bytes, sink->file) != bytes) {
    sink->write_failed = true;
    return 0;  // aborts the transfer
  }
  sink->written += static_cast<int64_t>(bytes);
  return bytes;
}

// Progress of the whole file: what an earlier transfer left counts as received.
int ReportProgress(void* user, curl_off_t total, curl_off_t received, curl_off_t, curl_off_t) {
  const auto* sink = static_cast<const DownloadSink*>(user);
  if (*sink->progress) {
    (*sink->progress)(sink->resumed_from + received, total > 0 ? sink->resumed_from + total : -1);
  }
  return 0;
}

void CommonOptions(CURL* curl, const std::string& url, const std::string& ca_file) {
  curl_easy_reset(curl);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "aictl");
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  if (!ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file.c_str());
}

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return std::string(absl::StripAsciiWhitespace(text.str()));
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
  CommonOptions(curl, absl::StrCat(options_.server, kApiPrefix, path), options_.ca_file);
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
  // The ETag of the content a kept .part began; without one a .part cannot be resumed safely.
  const std::string part_etag = part + ".etag";
  std::error_code error;
  const std::string resumable_etag =
      std::filesystem::exists(part_etag, error) ? ReadSmallFile(part_etag) : "";
  const auto part_size = std::filesystem::file_size(part, error);
  const bool resume = !error && part_size > 0 && !resumable_etag.empty();
  DownloadSink sink;
  sink.curl = curl;
  sink.progress = &progress;
  sink.resumed_from = resume ? static_cast<int64_t>(part_size) : 0;
  sink.file = std::fopen(part.c_str(), resume ? "ab" : "wb");
  if (sink.file == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", part, ": ", std::strerror(errno)));
  }
  std::filesystem::remove(part_etag, error);
  CommonOptions(curl, url, options_.ca_file);
  struct curl_slist* headers = nullptr;
  if (resume) {
    headers = curl_slist_append(headers, absl::StrCat("Range: bytes=", part_size, "-").c_str());
    headers = curl_slist_append(headers, ("If-Range: " + resumable_etag).c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  }
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, KeepETag);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteToFile);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, ReportProgress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &sink);
  // A stalled transfer fails instead of hanging: under 1 KiB/s for 60 s.
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
  const CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  const bool closed = std::fclose(sink.file) == 0;
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  const int64_t have = sink.resumed_from + sink.written;
  if (code != CURLE_OK && !sink.write_failed && closed && (status == 200 || status == 206) &&
      !sink.etag.empty() && have > 0) {
    // Interrupted mid-content: kept, with its ETag, for the next run to resume.
    std::ofstream(part_etag) << sink.etag << "\n";
    return absl::UnavailableError(absl::StrCat("download interrupted after ", have, " bytes (",
                                               curl_easy_strerror(code),
                                               "); the same command resumes it"));
  }
  absl::Status result;
  if (sink.write_failed || !closed) {
    result = absl::ResourceExhaustedError(absl::StrCat("cannot write ", part));
  } else if (code != CURLE_OK) {
    result = absl::UnavailableError(absl::StrCat("download failed: ", curl_easy_strerror(code)));
  } else {
    result = StatusFromHttp(status, sink.error_body);
  }
  if (!result.ok()) {
    std::filesystem::remove(part, error);
    return result;
  }
  std::filesystem::rename(part, path, error);
  if (error)
    return absl::InternalError(absl::StrCat("cannot rename ", part, ": ", error.message()));
  return have;
}

}  // namespace assisted::cli
