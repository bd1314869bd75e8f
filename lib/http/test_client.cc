#include "lib/http/test_client.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace assisted::http::test {
namespace {

size_t AppendBody(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

size_t AppendHeader(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<CurlResponse*>(user);
  const absl::string_view line = absl::StripAsciiWhitespace(absl::string_view(data, size * count));
  if (absl::StartsWith(line, "HTTP/")) {
    response->headers.clear();  // a new response head (after 100 Continue)
  } else if (const size_t colon = line.find(':'); colon != absl::string_view::npos) {
    response->headers.emplace_back(absl::AsciiStrToLower(line.substr(0, colon)),
                                   std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
  }
  return size * count;
}

}  // namespace

absl::optional<std::string> CurlResponse::Header(absl::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return absl::nullopt;
}

CurlClient::CurlClient() : curl_(curl_easy_init()) {}

CurlClient::~CurlClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

absl::StatusOr<CurlResponse> CurlClient::Fetch(const std::string& url, const CurlRequest& request) {
  CURL* curl = static_cast<CURL*>(curl_);
  curl_easy_reset(curl);
  CurlResponse response;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(request.timeout)));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, AppendHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response);
  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  if (request.body.has_value()) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body->data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body->size()));
  }
  struct curl_slist* headers = nullptr;
  for (const std::string& header : request.headers) {
    headers = curl_slist_append(headers, header.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  const CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  if (code != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat(url, ": ", curl_easy_strerror(code)));
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &response.new_connections);
  return response;
}

Handler HeldHandler::handler() {
  return [this](const Request&) {
    entered_.Notify();
    release_.WaitForNotification();
    return Response::Text(200, body_);
  };
}

absl::StatusOr<RawConnection> RawConnection::Connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    const int error = errno;
    ::close(fd);
    return absl::UnavailableError(absl::StrCat("connect: ", std::strerror(error)));
  }
  return RawConnection(fd);
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status RawConnection::Send(absl::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::UnavailableError(absl::StrCat("send: ", std::strerror(errno)));
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::Status RawConnection::ReadMore(absl::Time deadline, bool* eof) {
  *eof = false;
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return absl::DeadlineExceededError("timed out");
  pollfd poll_fd{fd_, POLLIN, 0};
  const int ready = ::poll(&poll_fd, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
  if (ready == 0) return absl::DeadlineExceededError("timed out");
  if (ready < 0) return absl::InternalError(std::strerror(errno));
  char buffer[65536];
  const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
  if (n < 0 && errno == EINTR) return absl::OkStatus();
  if (n < 0 && errno == ECONNRESET) {
    *eof = true;
    return absl::OkStatus();
  }
  if (n < 0) return absl::InternalError(std::strerror(errno));
  if (n == 0) {
    *eof = true;
    return absl::OkStatus();
  }
  pending_.append(buffer, static_cast<size_t>(n));
  return absl::OkStatus();
}

absl::StatusOr<std::string> RawConnection::ReadUntilClosed(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    bool eof;
    const absl::Status status = ReadMore(deadline, &eof);
    if (!status.ok()) {
      return absl::DeadlineExceededError(absl::StrCat("not closed in time; got: ", pending_));
    }
    if (eof) return std::exchange(pending_, "");
  }
}

absl::StatusOr<std::string> RawConnection::ReadResponse(absl::Duration timeout, bool head_only) {
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    const size_t end = pending_.find("\r\n\r\n");
    if (end != std::string::npos) {
      uint64_t length = 0;
      for (absl::string_view line :
           absl::StrSplit(absl::string_view(pending_).substr(0, end), "\r\n")) {
        if (absl::StartsWithIgnoreCase(line, "content-length:")) {
          (void)absl::SimpleAtoi(absl::StripAsciiWhitespace(line.substr(15)), &length);
        }
      }
      const size_t total = end + 4 + (head_only ? 0 : length);
      if (pending_.size() >= total) {
        std::string response = pending_.substr(0, total);
        pending_.erase(0, total);
        return response;
      }
    }
    bool eof;
    if (absl::Status status = ReadMore(deadline, &eof); !status.ok()) return status;
    if (eof) return absl::UnavailableError(absl::StrCat("closed mid-response; got: ", pending_));
  }
}

}  // namespace assisted::http::test
