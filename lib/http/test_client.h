// File: lib/http/test_client.h
//
// Clients for tests and benches of lib/http over real loopback sockets: a libcurl wrapper for
// well-formed traffic (it is what users run) and a raw socket for what no library would send
// (malformed requests, slow headers, pipelining).

#ifndef ASSISTED_LIB_HTTP_TEST_CLIENT_H_
#define ASSISTED_LIB_HTTP_TEST_CLIENT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "absl/types/optional.h"
#include "lib/http/router.h"

namespace assisted::http::test {

struct CurlResponse {
  long status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased, in order
  std::string body;
  long new_connections = 0;  // connections this transfer had to open (0: one was reused)

  // The first value of header `name` (lower case), or nullopt.
  absl::optional<std::string> Header(absl::string_view name) const;
};

struct CurlRequest {
  std::string method = "GET";        // "HEAD" sends no body request and expects none back
  std::vector<std::string> headers;  // "Name: value"
  absl::optional<std::string> body;  // sent with Content-Length
  absl::Duration timeout = absl::Seconds(10);
};

// One libcurl easy handle: successive requests reuse its connection when the server keeps it.
class CurlClient {
 public:
  CurlClient();
  ~CurlClient();
  CurlClient(const CurlClient&) = delete;
  CurlClient& operator=(const CurlClient&) = delete;

  // Performs the request; UNAVAILABLE with curl's message when the transfer fails.
  absl::StatusOr<CurlResponse> Fetch(const std::string& url, const CurlRequest& request = {});

 private:
  void* curl_;
};

// A handler that answers `body` only once Release() is called, so a test can hold a request in
// flight (for caps, metrics and shutdown). Must outlive the server it is registered with.
class HeldHandler {
 public:
  explicit HeldHandler(std::string body) : body_(std::move(body)) {}
  Handler handler();
  // Blocks until a request has reached the handler.
  void WaitUntilEntered() { entered_.WaitForNotification(); }
  void Release() { release_.Notify(); }

 private:
  std::string body_;
  absl::Notification entered_;
  absl::Notification release_;
};

// A blocking TCP connection to 127.0.0.1:port for hand-written HTTP.
class RawConnection {
 public:
  // Connects; UNAVAILABLE when refused.
  static absl::StatusOr<RawConnection> Connect(int port);
  RawConnection(RawConnection&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), pending_(std::move(other.pending_)) {}
  RawConnection& operator=(RawConnection&&) = delete;
  ~RawConnection();

  // Writes all of `bytes`.
  absl::Status Send(absl::string_view bytes);
  // Reads until the server closes the connection or `timeout` passes (DEADLINE_EXCEEDED then,
  // with what arrived in the message).
  absl::StatusOr<std::string> ReadUntilClosed(absl::Duration timeout);
  // Reads one whole response (head plus Content-Length bytes of body, none when `head_only`,
  // for an answer to HEAD) and returns it; bytes after it stay buffered for the next call.
  // DEADLINE_EXCEEDED or UNAVAILABLE (closed) when it does not arrive in time.
  absl::StatusOr<std::string> ReadResponse(absl::Duration timeout, bool head_only = false);

 private:
  explicit RawConnection(int fd) : fd_(fd) {}
  // Appends what arrives before `deadline` to pending_; sets *eof when the server closed.
  absl::Status ReadMore(absl::Time deadline, bool* eof);

  int fd_;
  std::string pending_;
};

}  // namespace assisted::http::test

#endif  // ASSISTED_LIB_HTTP_TEST_CLIENT_H_
