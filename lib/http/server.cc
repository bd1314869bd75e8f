#include "lib/http/server.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/sendfile.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "boost/asio/dispatch.hpp"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "boost/asio/thread_pool.hpp"
#include "boost/asio/write.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/core/string.hpp"
#include "boost/beast/http/error.hpp"
#include "lib/http/beast_parser.h"
#include "lib/http/metrics.h"
#include "lib/http/ranges.h"

namespace assisted::http {
namespace {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

// How much a connection sends with sendfile before letting other connections on its thread run:
// a fast reader on loopback never makes the socket buffer fill up, and without a budget it would
// keep the thread to itself until its whole file is out.
constexpr uint64_t kSendTurnBytes = 1 << 20;
// Largest count one sendfile(2) call accepts.
constexpr uint64_t kMaxSendfileBytes = 0x7ffff000;
// Buffer for the read+write path (use_sendfile off, or a file system without sendfile).
constexpr size_t kCopyChunkBytes = 256 << 10;
// After the last response of a connection that is closing, how long to read and drop what the
// client still sends, so that closing does not reset the connection before the client has read
// our response (the lingering close of RFC 9112 §9.6).
constexpr absl::Duration kLingerTime = absl::Seconds(2);

std::string ToStd(boost::beast::string_view text) { return std::string(text.data(), text.size()); }

int ThreadCount(int wanted) {
  return wanted > 0 ? wanted : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::string PeerName(const tcp::socket& socket) {
  error_code ec;
  const tcp::endpoint endpoint = socket.remote_endpoint(ec);
  if (ec) return "unknown";
  const std::string address = endpoint.address().to_string(ec);
  return endpoint.address().is_v6() ? absl::StrCat("[", address, "]:", endpoint.port())
                                    : absl::StrCat(address, ":", endpoint.port());
}

bool IsTokenChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         absl::string_view("!#$%&'*+-.^_`|~").find(c) != absl::string_view::npos;
}

// Header names and values from handlers go on the wire as they are; a CR or LF in them would let
// whatever built them (a file name, a URL parameter) write headers of its own.
bool IsSafeHeader(absl::string_view name, absl::string_view value) {
  if (name.empty() || !std::all_of(name.begin(), name.end(), IsTokenChar)) return false;
  return value.find_first_of(absl::string_view("\r\n\0", 3)) == absl::string_view::npos;
}

// sendfile(2) takes no MSG_NOSIGNAL, so writing to a socket the client has closed raises SIGPIPE.
// The I/O threads block it (a per-thread mask: the process's disposition stays untouched), which
// makes sendfile fail with EPIPE; this consumes the signal left pending on the thread.
void ConsumePendingSigpipe() {
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  const struct timespec zero = {0, 0};
  while (sigtimedwait(&pipe, nullptr, &zero) == SIGPIPE) {
  }
}

// Splits "host:port" / "[v6]:port". False when malformed.
bool SplitHostPort(absl::string_view listen, std::string* host, uint16_t* port) {
  const size_t colon = listen.rfind(':');
  if (colon == absl::string_view::npos) return false;
  absl::string_view host_part = listen.substr(0, colon);
  if (absl::StartsWith(host_part, "[") && absl::EndsWith(host_part, "]")) {
    host_part = host_part.substr(1, host_part.size() - 2);
  }
  int value;
  if (!absl::SimpleAtoi(listen.substr(colon + 1), &value) || value < 0 || value > 65535) {
    return false;
  }
  *host = host_part.empty() ? "0.0.0.0" : std::string(host_part);
  *port = static_cast<uint16_t>(value);
  return true;
}

// An answer the server gives by itself: the options' error_response, else `reason` as text.
Response ServerAnswer(const HttpServerOptions& options, int status, absl::string_view reason) {
  if (options.error_response) return options.error_response(status, reason);
  return Response::Text(status, absl::StrCat(reason, "\n"));
}

Response CallHandler(const Handler& handler, const Request& request,
                     const HttpServerOptions& options, const log::Logger& log) {
  // Handlers must not throw; one that does costs its request a 500, not the process.
  try {
    return handler(request);
  } catch (const std::exception& e) {
    log.Error("handler threw", {{"route", request.route}, {"what", e.what()}});
  } catch (...) {
    log.Error("handler threw", {{"route", request.route}});
  }
  return ServerAnswer(options, 500, "internal error");
}

}  // namespace

class Connection;

class HttpServer::Impl {
 public:
  Impl(const HttpServerOptions& options, Router router, HttpMetrics* metrics, log::Logger log)
      : options_(options),
        router_(std::move(router)),
        metrics_(metrics),
        log_(std::move(log)),
        threads_wanted_(ThreadCount(options.io_threads)),
        ioc_(threads_wanted_),
        work_(ioc_.get_executor()),
        acceptor_(asio::make_strand(ioc_)),
        accept_retry_(acceptor_.get_executor()) {}

  ~Impl() { Shutdown(absl::ZeroDuration()); }

  absl::Status Bind();
  void Run();
  void Shutdown(absl::Duration grace);
  int port() const { return port_; }

  // For connections.
  const HttpServerOptions& options() const { return options_; }
  const Router& router() const { return router_; }
  HttpMetrics* metrics() const { return metrics_; }
  const log::Logger& log() const { return log_; }
  asio::thread_pool* handler_pool() const { return handler_pool_.get(); }
  bool draining() const { return draining_.load(std::memory_order_acquire); }
  // Whether a request could take an in-flight slot now (a cheap early check; the slot itself is
  // taken with TryAcquireSlot once the body is in).
  bool HasFreeSlot() const {
    return in_flight_.load(std::memory_order_relaxed) < options_.max_in_flight;
  }
  bool TryAcquireSlot();
  void ReleaseSlot();
  // Forgets a connection and gives its place back to its client address `address`.
  void Unregister(Connection* connection, const std::string& address);

 private:
  void Accept();
  // Starts serving an accepted socket, or closes it when max_connections are open.
  void Adopt(tcp::socket socket);
  std::vector<std::shared_ptr<Connection>> Snapshot();
  bool NoConnections() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return connections_.empty(); }

  const HttpServerOptions options_;
  const Router router_;
  HttpMetrics* const metrics_;
  const log::Logger log_;
  const int threads_wanted_;
  std::atomic<bool> draining_{false};
  std::atomic<int> in_flight_{0};

  // Declared before ioc_: destroying ioc_ destroys pending handlers, which may hold the last
  // reference to a connection, whose destructor unregisters it here.
  absl::Mutex mu_;
  absl::flat_hash_map<Connection*, std::weak_ptr<Connection>> connections_ ABSL_GUARDED_BY(mu_);
  // Open connections per client address, for max_connections_per_peer; no entry at zero.
  absl::flat_hash_map<std::string, int> per_peer_ ABSL_GUARDED_BY(mu_);
  absl::Mutex shutdown_mu_;
  bool shut_down_ ABSL_GUARDED_BY(shutdown_mu_) = false;

  asio::io_context ioc_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  tcp::acceptor acceptor_;
  asio::steady_timer accept_retry_;
  std::unique_ptr<asio::thread_pool> handler_pool_;  // joined before ioc_ goes away
  std::vector<std::thread> threads_;
  int port_ = 0;
};

// One client connection. Everything it does runs on its strand, so it needs no lock; the
// handlers of its asynchronous operations hold a shared_ptr to it, and it dies with the last.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `address` is the client's IP address, as counted against max_connections_per_peer.
  Connection(HttpServer::Impl& server, tcp::socket socket, std::string address)
      : server_(server),
        options_(server.options()),
        address_(std::move(address)),
        socket_(std::move(socket)),
        timer_(socket_.get_executor()) {
    if (server_.metrics() != nullptr) server_.metrics()->ConnectionOpened();
  }

  ~Connection() {
    ReleaseSlot();
    if (server_.metrics() != nullptr) server_.metrics()->ConnectionClosed();
    server_.Unregister(this, address_);
  }

  template <typename Fn>
  void Post(Fn&& fn) {
    asio::post(socket_.get_executor(), std::forward<Fn>(fn));
  }

  void Start();
  // Shutdown began: close now if no request is under way; otherwise the response in progress
  // finishes with Connection: close.
  void Drain();
  void Close();

 private:
  enum class State { kIdle, kReadingHead, kReadingBody, kHandling, kWriting, kLingering, kClosed };
  enum class Deadline { kNone, kIdle, kHead, kBody, kSend, kLinger };

  void WaitForRequest();
  void ReadHead();
  void OnHead(error_code ec);
  void ReadBody();
  void OnBody(error_code ec);
  // The whole request is in: takes an in-flight slot and dispatches, or answers 503.
  void AcquireSlotAndDispatch();
  // 503 with Retry-After: every in-flight slot is taken.
  void RespondBusy();
  // Reports a read that failed; answers with `status` when the client can still be told.
  void OnReadError(error_code ec, Deadline phase);
  void Dispatch();
  void RespondEarly(int status, absl::string_view reason, bool close);
  void StartResponse(Response response);
  void WriteNext();
  void SendFile();
  void CopyFile();
  void OnWritten(error_code ec, uint64_t body_bytes);
  void FinishResponse();
  void Linger();
  void DrainInput();
  void Arm(Deadline deadline, absl::Duration timeout);
  void Disarm();
  void OnDeadline();
  void ReleaseSlot();
  void Progress(uint64_t body_bytes);

  HttpServer::Impl& server_;
  const HttpServerOptions& options_;
  const std::string address_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  std::string peer_;
  boost::beast::flat_buffer buffer_;
  absl::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  State state_ = State::kIdle;
  bool first_request_ = true;

  Deadline armed_ = Deadline::kNone;
  Deadline expired_ = Deadline::kNone;  // the deadline that cancelled the pending read
  uint64_t deadline_generation_ = 0;
  std::chrono::steady_clock::time_point last_progress_;

  // The exchange in progress.
  bool holds_slot_ = false;
  bool keep_alive_ = false;
  bool head_only_ = false;
  unsigned version_ = 11;
  std::string method_;
  std::string route_;
  int status_ = 0;
  absl::Time started_;

  // The response being written: head_ then body_'s segments from segment_ on.
  std::string head_;
  bool head_pending_ = false;
  Body body_;
  size_t segment_ = 0;
  uint64_t segment_done_ = 0;  // bytes of the current file segment already sent
  std::unique_ptr<char[]> copy_buffer_;
};

void Connection::Start() {
  error_code ec;
  socket_.native_non_blocking(true, ec);
  if (!ec) socket_.set_option(tcp::no_delay(true), ec);
  if (ec) {
    Close();
    return;
  }
  peer_ = PeerName(socket_);
  if (server_.draining()) {
    Close();
    return;
  }
  WaitForRequest();
}

void Connection::Drain() {
  if (state_ == State::kIdle) {
    Close();
  } else if (state_ == State::kReadingHead && buffer_.size() == 0 && parser_.has_value() &&
             !parser_->got_some()) {
    Close();
  }
}

void Connection::Close() {
  if (state_ == State::kClosed) return;
  state_ = State::kClosed;
  Disarm();
  error_code ec;
  socket_.close(ec);
  ReleaseSlot();
}

void Connection::ReleaseSlot() {
  if (!holds_slot_) return;
  holds_slot_ = false;
  server_.ReleaseSlot();
  if (server_.metrics() != nullptr) server_.metrics()->RequestEnded();
}

void Connection::Arm(Deadline deadline, absl::Duration timeout) {
  armed_ = deadline;
  expired_ = Deadline::kNone;
  const uint64_t generation = ++deadline_generation_;
  timer_.expires_after(absl::ToChronoNanoseconds(timeout));
  timer_.async_wait([self = shared_from_this(), generation](error_code ec) {
    if (ec || generation != self->deadline_generation_ || self->state_ == State::kClosed) return;
    self->OnDeadline();
  });
}

void Connection::Disarm() {
  if (armed_ == Deadline::kNone) return;
  armed_ = Deadline::kNone;
  ++deadline_generation_;
  timer_.cancel();
}

void Connection::OnDeadline() {
  const Deadline deadline = armed_;
  armed_ = Deadline::kNone;
  HttpMetrics* metrics = server_.metrics();
  error_code ec;
  switch (deadline) {
    case Deadline::kNone:
      return;
    case Deadline::kIdle:
    case Deadline::kLinger:
      Close();
      return;
    case Deadline::kHead:
    case Deadline::kBody:
      // Cancel the read; its handler sees expired_ and answers 408.
      if (metrics != nullptr) metrics->TimedOut(deadline == Deadline::kHead ? "header" : "body");
      expired_ = deadline;
      socket_.cancel(ec);
      return;
    case Deadline::kSend: {
      // Armed once per response; progress pushes it out instead of re-arming per write.
      const auto idle = std::chrono::steady_clock::now() - last_progress_;
      const auto stall = absl::ToChronoNanoseconds(options_.send_stall_timeout);
      if (idle < stall) {
        Arm(Deadline::kSend, absl::FromChrono(stall - idle));
        return;
      }
      if (metrics != nullptr) metrics->TimedOut("send");
      server_.log().Debug("client stopped reading", {{"peer", peer_}, {"route", route_}});
      Close();
      return;
    }
  }
}

void Connection::WaitForRequest() {
  state_ = State::kIdle;
  parser_.reset();
  if (first_request_ || buffer_.size() > 0) {
    ReadHead();
    return;
  }
  Arm(Deadline::kIdle, options_.idle_timeout);
  socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](error_code ec) {
    if (self->state_ == State::kClosed) return;
    if (ec) {
      self->Close();
      return;
    }
    self->ReadHead();
  });
}

void Connection::ReadHead() {
  state_ = State::kReadingHead;
  head_only_ = false;
  version_ = 11;
  parser_.emplace();
  parser_->header_limit(options_.max_header_bytes);
  parser_->body_limit(options_.max_body_bytes);
  Arm(Deadline::kHead, options_.header_timeout);
  bhttp::async_read_header(
      socket_, buffer_, *parser_,
      [self = shared_from_this()](error_code ec, size_t) { self->OnHead(ec); });
}

void Connection::OnReadError(error_code ec, Deadline phase) {
  if (expired_ == phase) {
    // Too slow. A client that never sent a byte gets no answer, one caught mid-request a 408.
    if (phase == Deadline::kHead && buffer_.size() == 0 && !parser_->got_some()) {
      Close();
    } else {
      RespondEarly(408, "request not received in time", true);
    }
    return;
  }
  if (ec == bhttp::error::end_of_stream) {  // closed between requests: the normal end
    Close();
    return;
  }
  if (ec == bhttp::error::header_limit) {
    RespondEarly(431, "request header too large", true);
    return;
  }
  if (ec == bhttp::error::body_limit) {
    RespondEarly(413, absl::StrCat("request body larger than ", options_.max_body_bytes, " bytes"),
                 true);
    return;
  }
  if (ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
      ec != bhttp::error::partial_message) {
    server_.log().Debug("malformed request", {{"peer", peer_}, {"error", ec.message()}});
    RespondEarly(400, "malformed request", true);
    return;
  }
  Close();  // reset, aborted by shutdown, or the client hung up mid-request
}

void Connection::OnHead(error_code ec) {
  if (state_ == State::kClosed) return;
  Disarm();
  if (ec) {
    OnReadError(ec, Deadline::kHead);
    return;
  }
  first_request_ = false;
  started_ = absl::Now();
  const auto& message = parser_->get();
  version_ = message.version();
  method_ = ToStd(message.method_string());
  head_only_ = method_ == "HEAD";
  keep_alive_ = message.keep_alive();
  if (version_ >= 11 && message.find(bhttp::field::host) == message.end()) {
    RespondEarly(400, "missing Host header", true);
    return;
  }
  // Framing: exactly one of Content-Length and Transfer-Encoding: chunked. Both at once is the
  // classic request-smuggling shape (RFC 9112 §6.3), and a coding other than chunked cannot be
  // framed or decoded here.
  const auto transfer_encoding = message.find(bhttp::field::transfer_encoding);
  if (transfer_encoding != message.end()) {
    if (message.find(bhttp::field::content_length) != message.end()) {
      RespondEarly(400, "both Content-Length and Transfer-Encoding", true);
      return;
    }
    if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(ToStd(transfer_encoding->value())),
                                "chunked")) {
      RespondEarly(501, "only the chunked transfer coding is supported", true);
      return;
    }
  }
  if (!server_.HasFreeSlot()) {
    // Shed before reading a body we would not use.
    RespondBusy();
    return;
  }
  if (parser_->is_done()) {
    AcquireSlotAndDispatch();
    return;
  }
  // The slot is taken only once the body is in (AcquireSlotAndDispatch): a client trickling its
  // body costs its connection and at most max_body_bytes of buffer until body_timeout, never
  // handler capacity.
  state_ = State::kReadingBody;
  Arm(Deadline::kBody, options_.body_timeout);
  const auto expect = message.find(bhttp::field::expect);
  if (expect != message.end() && absl::EqualsIgnoreCase(ToStd(expect->value()), "100-continue")) {
    static constexpr absl::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    asio::async_write(socket_, asio::buffer(kContinue.data(), kContinue.size()),
                      [self = shared_from_this()](error_code ec, size_t) {
                        if (self->state_ == State::kClosed) return;
                        if (ec) {
                          self->OnReadError(ec, Deadline::kBody);
                          return;
                        }
                        self->ReadBody();
                      });
    return;
  }
  ReadBody();
}

void Connection::ReadBody() {
  bhttp::async_read(socket_, buffer_, *parser_,
                    [self = shared_from_this()](error_code ec, size_t) { self->OnBody(ec); });
}

void Connection::OnBody(error_code ec) {
  if (state_ == State::kClosed) return;
  Disarm();
  if (ec) {
    OnReadError(ec, Deadline::kBody);
    return;
  }
  AcquireSlotAndDispatch();
}

void Connection::AcquireSlotAndDispatch() {
  if (!server_.TryAcquireSlot()) {
    RespondBusy();
    return;
  }
  holds_slot_ = true;
  if (server_.metrics() != nullptr) server_.metrics()->RequestStarted();
  Dispatch();
}

void Connection::RespondBusy() {
  Response busy = ServerAnswer(options_, 503, "server busy, retry later");
  const int64_t seconds = std::max<int64_t>(
      1, absl::ToInt64Seconds(absl::Ceil(options_.retry_after, absl::Seconds(1))));
  busy.headers.Set("Retry-After", absl::StrCat(seconds));
  // A body left unread would be taken for the next request: close instead.
  if (!parser_->is_done()) keep_alive_ = false;
  route_.clear();
  StartResponse(std::move(busy));
}

void Connection::Dispatch() {
  state_ = State::kHandling;
  auto& message = parser_->get();
  Request request;
  request.method = method_;
  request.target = ToStd(message.target());
  request.peer = peer_;
  absl::StatusOr<Target> target = ParseTarget(request.target);
  if (!target.ok()) {
    RespondEarly(400, target.status().message(), true);
    return;
  }
  request.path = std::move(target->path);
  request.query = std::move(target->query);
  for (const auto& field : message) {
    request.headers.Add(ToStd(field.name_string()), ToStd(field.value()));
  }
  request.body = std::move(message.body());
  parser_.reset();

  Router::Match match = server_.router().Find(request.method, target->segments);
  route_.clear();
  if (match.kind == Router::Match::Kind::kNotFound) {
    StartResponse(server_.router().Unrouted(request, ServerAnswer(options_, 404, "not found")));
    return;
  }
  if (match.kind == Router::Match::Kind::kMethodNotAllowed) {
    Response response = ServerAnswer(options_, 405, "method not allowed");
    response.headers.Set("Allow", match.allow);
    StartResponse(server_.router().Unrouted(request, std::move(response)));
    return;
  }
  route_ = match.pattern;
  request.route = std::move(match.pattern);
  request.path_params = std::move(match.params);
  const Handler* handler = match.handler;
  // Handlers that block go to their own pool and their answers come back to the strand: two
  // hand-offs. Running them instead on extra event-loop threads, on the thread that read the
  // request, was tried (#22): asio's scheduler then wakes an idle thread for each completion it
  // queues, and with 34 threads there always is one: the gateway's context switches per call
  // (voluntary and not, on a loaded machine) went from 11.9 to 25.6.
  if (asio::thread_pool* pool = server_.handler_pool()) {
    asio::post(*pool, [self = shared_from_this(), handler, request = std::move(request)]() {
      Response response = CallHandler(*handler, request, self->options_, self->server_.log());
      self->Post([self, response = std::move(response)]() mutable {
        self->StartResponse(std::move(response));
      });
    });
    return;
  }
  StartResponse(CallHandler(*handler, request, options_, server_.log()));
}

void Connection::RespondEarly(int status, absl::string_view reason, bool close) {
  if (close) keep_alive_ = false;
  route_.clear();
  if (method_.empty() && parser_.has_value() && parser_->got_some()) {
    method_ = ToStd(parser_->get().method_string());
  }
  StartResponse(ServerAnswer(options_, status, reason));
}

void Connection::StartResponse(Response response) {
  if (state_ == State::kClosed) return;  // closed while the handler ran
  if (response.status < 200 || response.status > 599) {
    server_.log().Error("handler returned an invalid status",
                        {{"route", route_}, {"status", response.status}});
    response = ServerAnswer(options_, 500, "internal error");
  }
  status_ = response.status;
  if (server_.draining()) keep_alive_ = false;
  const bool bodiless_status = status_ == 204 || status_ == 304;

  head_ = absl::StrCat("HTTP/1.1 ", status_, " ", ReasonPhrase(status_), "\r\n");
  bool has_date = false;
  for (const auto& [name, value] : response.headers.entries()) {
    if (absl::EqualsIgnoreCase(name, "Content-Length") ||
        absl::EqualsIgnoreCase(name, "Transfer-Encoding") ||
        absl::EqualsIgnoreCase(name, "Connection")) {
      continue;
    }
    if (!IsSafeHeader(name, value)) {
      server_.log().Warning("dropped an unsafe response header",
                            {{"route", route_}, {"name", name}});
      continue;
    }
    has_date = has_date || absl::EqualsIgnoreCase(name, "Date");
    absl::StrAppend(&head_, name, ": ", value, "\r\n");
  }
  if (!has_date) absl::StrAppend(&head_, "Date: ", FormatHttpDate(absl::Now()), "\r\n");
  if (!bodiless_status) absl::StrAppend(&head_, "Content-Length: ", response.body.size(), "\r\n");
  if (!keep_alive_) {
    head_ += "Connection: close\r\n";
  } else if (version_ == 10) {
    head_ += "Connection: keep-alive\r\n";
  }
  head_ += "\r\n";
  head_pending_ = true;
  body_ = head_only_ || bodiless_status ? Body() : std::move(response.body);
  segment_ = 0;
  segment_done_ = 0;
  if (server_.metrics() != nullptr) {
    server_.metrics()->Responded(route_, method_, status_, absl::Now() - started_);
  }

  state_ = State::kWriting;
  last_progress_ = std::chrono::steady_clock::now();
  Arm(Deadline::kSend, options_.send_stall_timeout);
  WriteNext();
}

void Connection::Progress(uint64_t body_bytes) {
  last_progress_ = std::chrono::steady_clock::now();
  if (body_bytes > 0 && server_.metrics() != nullptr) {
    server_.metrics()->BodyBytesSent(route_, body_bytes);
  }
}

void Connection::WriteNext() {
  if (state_ == State::kClosed) return;
  // The head and every memory segment up to the next file segment go out in one gathered write.
  std::vector<asio::const_buffer> buffers;
  uint64_t body_bytes = 0;
  if (head_pending_) {
    buffers.push_back(asio::buffer(head_));
    head_pending_ = false;
  }
  const std::vector<Segment>& segments = body_.segments();
  while (segment_ < segments.size() && !segments[segment_].is_file()) {
    const absl::string_view bytes = segments[segment_].memory();
    buffers.push_back(asio::buffer(bytes.data(), bytes.size()));
    body_bytes += bytes.size();
    ++segment_;
  }
  if (!buffers.empty()) {
    asio::async_write(socket_, buffers,
                      [self = shared_from_this(), body_bytes](error_code ec, size_t) {
                        self->OnWritten(ec, body_bytes);
                      });
    return;
  }
  if (segment_ < segments.size()) {
    if (options_.use_sendfile) {
      SendFile();
    } else {
      CopyFile();
    }
    return;
  }
  FinishResponse();
}

void Connection::OnWritten(error_code ec, uint64_t body_bytes) {
  if (state_ == State::kClosed) return;
  if (ec) {
    Close();
    return;
  }
  Progress(body_bytes);
  WriteNext();
}

void Connection::SendFile() {
  const Segment& segment = body_.segments()[segment_];
  const int out = socket_.native_handle();
  uint64_t budget = kSendTurnBytes;
  uint64_t sent = 0;
  while (segment_done_ < segment.size()) {
    if (budget == 0) {
      // Let the other connections of this thread have a turn; continue afterwards.
      Progress(sent);
      Post([self = shared_from_this()]() { self->WriteNext(); });
      return;
    }
    off_t offset = static_cast<off_t>(segment.file_offset() + segment_done_);
    const size_t want = std::min({segment.size() - segment_done_, budget, kMaxSendfileBytes});
    const ssize_t n = ::sendfile(out, segment.file()->fd(), &offset, want);
    if (n > 0) {
      segment_done_ += static_cast<uint64_t>(n);
      budget -= static_cast<uint64_t>(n);
      sent += static_cast<uint64_t>(n);
      continue;
    }
    const int error = n == 0 ? 0 : errno;
    if (error == EINTR) continue;
    if (error == EAGAIN || error == EWOULDBLOCK) {
      // The socket buffer is full: wait until the client has read some of it.
      Progress(sent);
      socket_.async_wait(tcp::socket::wait_write, [self = shared_from_this()](error_code ec) {
        if (self->state_ == State::kClosed) return;
        if (ec) {
          self->Close();
          return;
        }
        self->WriteNext();
      });
      return;
    }
    if ((error == EINVAL || error == ENOSYS) && sent == 0) {
      // This file system does not do sendfile: copy through a buffer instead.
      server_.log().Warning("sendfile unsupported, copying",
                            {{"path", segment.file()->path()}, {"error", std::strerror(error)}});
      CopyFile();
      return;
    }
    Progress(sent);
    if (error == EPIPE) ConsumePendingSigpipe();
    if (error == 0) {
      // The file is shorter than when it was opened: the promised Content-Length cannot be met.
      server_.log().Error("file shrank while being served", {{"path", segment.file()->path()}});
    }
    Close();
    return;
  }
  Progress(sent);
  ++segment_;
  segment_done_ = 0;
  WriteNext();
}

void Connection::CopyFile() {
  const Segment& segment = body_.segments()[segment_];
  if (copy_buffer_ == nullptr) copy_buffer_ = std::make_unique<char[]>(kCopyChunkBytes);
  const size_t want = std::min<uint64_t>(kCopyChunkBytes, segment.size() - segment_done_);
  ssize_t n;
  do {
    n = ::pread(segment.file()->fd(), copy_buffer_.get(), want,
                static_cast<off_t>(segment.file_offset() + segment_done_));
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    server_.log().Error("reading a file being served failed",
                        {{"path", segment.file()->path()},
                         {"error", n == 0 ? "unexpected end of file" : std::strerror(errno)}});
    Close();
    return;
  }
  asio::async_write(socket_, asio::buffer(copy_buffer_.get(), static_cast<size_t>(n)),
                    [self = shared_from_this()](error_code ec, size_t written) {
                      if (self->state_ == State::kClosed) return;
                      if (ec) {
                        self->Close();
                        return;
                      }
                      self->Progress(written);
                      self->segment_done_ += written;
                      if (self->segment_done_ == self->body_.segments()[self->segment_].size()) {
                        ++self->segment_;
                        self->segment_done_ = 0;
                      }
                      self->WriteNext();
                    });
}

void Connection::FinishResponse() {
  Disarm();
  ReleaseSlot();
  server_.log().Debug("request", {{"peer", peer_},
                                  {"method", method_},
                                  {"route", route_},
                                  {"status", status_},
                                  {"bytes", body_.size()}});
  head_.clear();
  body_ = Body();
  method_.clear();
  if (keep_alive_ && !server_.draining()) {
    WaitForRequest();
  } else {
    Linger();
  }
}

void Connection::Linger() {
  state_ = State::kLingering;
  error_code ec;
  socket_.shutdown(tcp::socket::shutdown_send, ec);
  if (ec) {
    Close();
    return;
  }
  Arm(Deadline::kLinger, kLingerTime);
  buffer_.clear();
  DrainInput();
}

void Connection::DrainInput() {
  socket_.async_read_some(buffer_.prepare(4096),
                          [self = shared_from_this()](error_code ec, size_t) {
                            if (self->state_ == State::kClosed) return;
                            if (ec) {  // EOF: the client has read everything and closed
                              self->Close();
                              return;
                            }
                            self->DrainInput();
                          });
}

absl::Status HttpServer::Impl::Bind() {
  std::string host;
  uint16_t port;
  if (!SplitHostPort(options_.listen, &host, &port)) {
    return absl::InvalidArgumentError(
        absl::StrCat("HTTP listen address \"", options_.listen, "\" is not host:port"));
  }
  error_code ec;
  tcp::endpoint endpoint;
  const asio::ip::address address = asio::ip::make_address(host, ec);
  if (!ec) {
    endpoint = tcp::endpoint(address, port);
  } else {
    tcp::resolver resolver(ioc_);
    const auto results = resolver.resolve(host, absl::StrCat(port), ec);
    if (ec || results.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot resolve HTTP listen host \"", host, "\": ", ec.message()));
    }
    endpoint = results.begin()->endpoint();
  }
  const auto fail = [&](absl::string_view what) {
    return absl::UnavailableError(
        absl::StrCat("cannot ", what, " HTTP address ", options_.listen, ": ", ec.message()));
  };
  acceptor_.open(endpoint.protocol(), ec);
  if (ec) return fail("open");
  // SO_REUSEADDR only lets a restarted server bind while old connections sit in TIME_WAIT;
  // on Linux it never lets two servers share a port.
  acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (ec) return fail("configure");
  acceptor_.bind(endpoint, ec);
  if (ec) return fail("bind");
  acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen on");
  acceptor_.non_blocking(true, ec);
  if (ec) return fail("configure");
  port_ = acceptor_.local_endpoint(ec).port();
  if (ec) return fail("read the port of");
  return absl::OkStatus();
}

void HttpServer::Impl::Run() {
  if (options_.handler_threads > 0) {
    handler_pool_ = std::make_unique<asio::thread_pool>(options_.handler_threads);
  }
  Accept();
  for (int i = 0; i < threads_wanted_; ++i) {
    threads_.emplace_back([this]() {
      sigset_t pipe;
      sigemptyset(&pipe);
      sigaddset(&pipe, SIGPIPE);
      pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
      ioc_.run();
    });
  }
}

void HttpServer::Impl::Accept() {
  acceptor_.async_accept(asio::make_strand(ioc_), [this](error_code ec, tcp::socket socket) {
    if (!acceptor_.is_open()) return;  // closed by Shutdown
    if (ec) {
      // Out of descriptors or memory: back off instead of spinning on the error.
      log_.Warning("accept failed", {{"error", ec.message()}});
      accept_retry_.expires_after(std::chrono::milliseconds(100));
      accept_retry_.async_wait([this](error_code ec) {
        if (!ec && acceptor_.is_open()) Accept();
      });
      return;
    }
    Adopt(std::move(socket));
    // Take the whole backlog now (the acceptor is non-blocking): under load every completion
    // waits its turn behind the busy connections, and one accept per turn would make a burst of
    // new clients wait for many turns before their first byte.
    for (int i = 0; i < 256; ++i) {
      tcp::socket next(asio::make_strand(ioc_));
      acceptor_.accept(next, ec);
      if (ec) break;
      Adopt(std::move(next));
    }
    Accept();
  });
}

void HttpServer::Impl::Adopt(tcp::socket socket) {
  error_code ec;
  const tcp::endpoint remote = socket.remote_endpoint(ec);
  // A socket whose peer is already gone has no address; it is closed below or at its first read.
  std::string address = ec ? std::string() : remote.address().to_string(ec);
  std::shared_ptr<Connection> connection;
  {
    absl::MutexLock lock(&mu_);
    int& from_peer = per_peer_[address];
    if (connections_.size() < static_cast<size_t>(options_.max_connections) &&
        from_peer < options_.max_connections_per_peer) {
      ++from_peer;
      connection = std::make_shared<Connection>(*this, std::move(socket), std::move(address));
      connections_.emplace(connection.get(), connection);
    } else if (from_peer == 0) {
      per_peer_.erase(address);
    }
  }
  if (connection == nullptr) {
    if (metrics_ != nullptr) metrics_->ConnectionRefused();
    error_code ignored;
    socket.close(ignored);
    return;
  }
  connection->Post([connection]() { connection->Start(); });
}

bool HttpServer::Impl::TryAcquireSlot() {
  int current = in_flight_.load(std::memory_order_relaxed);
  while (current < options_.max_in_flight) {
    if (in_flight_.compare_exchange_weak(current, current + 1, std::memory_order_acq_rel)) {
      return true;
    }
  }
  return false;
}

void HttpServer::Impl::ReleaseSlot() { in_flight_.fetch_sub(1, std::memory_order_acq_rel); }

void HttpServer::Impl::Unregister(Connection* connection, const std::string& address) {
  absl::MutexLock lock(&mu_);
  connections_.erase(connection);
  auto from_peer = per_peer_.find(address);
  if (from_peer != per_peer_.end() && --from_peer->second <= 0) per_peer_.erase(from_peer);
}

std::vector<std::shared_ptr<Connection>> HttpServer::Impl::Snapshot() {
  std::vector<std::shared_ptr<Connection>> live;
  absl::MutexLock lock(&mu_);
  for (const auto& [raw, weak] : connections_) {
    if (std::shared_ptr<Connection> connection = weak.lock()) live.push_back(std::move(connection));
  }
  return live;
}

void HttpServer::Impl::Shutdown(absl::Duration grace) {
  {
    absl::MutexLock lock(&shutdown_mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  draining_.store(true, std::memory_order_release);
  asio::post(acceptor_.get_executor(), [this]() {
    error_code ec;
    acceptor_.close(ec);
    accept_retry_.cancel();
  });
  for (const auto& connection : Snapshot()) {
    connection->Post([connection]() { connection->Drain(); });
  }
  {
    absl::MutexLock lock(&mu_);
    if (!mu_.AwaitWithTimeout(absl::Condition(this, &Impl::NoConnections), grace)) {
      log_.Warning("shutdown grace over, closing connections",
                   {{"connections", connections_.size()}});
    }
  }
  for (const auto& connection : Snapshot()) {
    connection->Post([connection]() { connection->Close(); });
  }
  {
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(this, &Impl::NoConnections), absl::Seconds(1));
  }
  work_.reset();
  // Whatever is still queued now is a handler that has not returned; stop without it.
  {
    absl::MutexLock lock(&mu_);
    if (!connections_.empty()) ioc_.stop();
  }
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
  if (handler_pool_ != nullptr) handler_pool_->join();
}

void HttpServerOptions::Register(config::Parser& parser, absl::string_view prefix) {
  parser.String(absl::StrCat(prefix, "-listen"), &listen, "HTTP listen address host:port")
      .Check(config::HostPort);
  parser.Int(absl::StrCat(prefix, "-threads"), &io_threads, "HTTP I/O threads (0: one per core)")
      .Range(0, 1024);
  parser
      .Int(absl::StrCat(prefix, "-max-in-flight"), &max_in_flight,
           "HTTP requests served at once; more get 503 with Retry-After")
      .Range(1, 1 << 20);
  parser
      .Int(absl::StrCat(prefix, "-max-connections-per-peer"), &max_connections_per_peer,
           "open HTTP connections one client address may hold; more are closed at once")
      .Range(1, 1 << 20);
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                              Router router, HttpMetrics* metrics,
                                                              const log::Logger& log) {
  if (options.max_in_flight < 1 || options.max_connections < 1 ||
      options.max_connections_per_peer < 1 || options.max_header_bytes < 1 ||
      options.handler_threads < 0 || options.header_timeout <= absl::ZeroDuration() ||
      options.body_timeout <= absl::ZeroDuration() ||
      options.idle_timeout <= absl::ZeroDuration() ||
      options.send_stall_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "HTTP server options: limits and timeouts must be positive, thread counts not negative");
  }
  auto impl = std::make_unique<Impl>(options, std::move(router), metrics, log);
  if (absl::Status bound = impl->Bind(); !bound.ok()) return bound;
  impl->Run();
  log.Info("HTTP server listening", {{"listen", options.listen}, {"port", impl->port()}});
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { impl_->Shutdown(absl::ZeroDuration()); }

int HttpServer::port() const { return impl_->port(); }

void HttpServer::Shutdown(absl::Duration grace) { impl_->Shutdown(grace); }

}  // namespace assisted::http
