#include "lib/http/message.h"

#include <algorithm>

#include "absl/strings/match.h"

namespace assisted::http {

void Headers::Add(std::string name, std::string value) {
  entries_.emplace_back(std::move(name), std::move(value));
}

void Headers::Set(std::string name, std::string value) {
  Remove(name);
  Add(std::move(name), std::move(value));
}

void Headers::Remove(absl::string_view name) {
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [name](const auto& entry) {
                                  return absl::EqualsIgnoreCase(entry.first, name);
                                }),
                 entries_.end());
}

absl::optional<absl::string_view> Headers::Get(absl::string_view name) const {
  for (const auto& [key, value] : entries_) {
    if (absl::EqualsIgnoreCase(key, name)) return absl::string_view(value);
  }
  return absl::nullopt;
}

absl::optional<absl::string_view> Request::Query(absl::string_view name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return absl::string_view(value);
  }
  return absl::nullopt;
}

absl::string_view Request::Param(absl::string_view name) const {
  const auto it = path_params.find(name);
  return it == path_params.end() ? absl::string_view() : absl::string_view(it->second);
}

Response Response::Text(int status, std::string text) {
  Response response;
  response.status = status;
  response.headers.Set("Content-Type", "text/plain; charset=utf-8");
  response.body = Body(std::move(text));
  return response;
}

Response Response::Json(int status, std::string json) {
  return Json(status, std::make_shared<const std::string>(std::move(json)));
}

Response Response::Json(int status, std::shared_ptr<const std::string> json) {
  Response response;
  response.status = status;
  response.headers.Set("Content-Type", "application/json");
  response.body.Append(Segment::Memory(std::move(json)));
  return response;
}

Response Response::FromStatus(const absl::Status& status) {
  std::string text(status.message());
  text.push_back('\n');
  return Text(HttpStatusFor(status.code()), std::move(text));
}

int HttpStatusFor(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kFailedPrecondition:
      return 412;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kCancelled:
      return 499;  // the client went away (nginx's convention)
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    default:  // UNKNOWN, INTERNAL, DATA_LOSS
      return 500;
  }
}

absl::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 206:
      return "Partial Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 303:
      return "See Other";
    case 304:
      return "Not Modified";
    case 307:
      return "Temporary Redirect";
    case 308:
      return "Permanent Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 411:
      return "Length Required";
    case 412:
      return "Precondition Failed";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 416:
      return "Range Not Satisfiable";
    case 417:
      return "Expectation Failed";
    case 422:
      return "Unprocessable Content";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 499:
      return "Client Closed Request";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

}  // namespace assisted::http
