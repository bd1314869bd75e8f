#include "tests/harness/tcp_front.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tests/harness/byte_relay.h"

namespace assisted::testing {
namespace {

sockaddr_in Loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

}  // namespace

absl::StatusOr<std::unique_ptr<TcpFront>> TcpFront::Start(Policy policy) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) return absl::InternalError(absl::StrCat("socket: ", strerror(errno)));
  sockaddr_in address = Loopback(0);
  socklen_t size = sizeof(address);
  if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(listener, 128) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    const int error = errno;
    close(listener);
    return absl::InternalError(absl::StrCat("cannot listen on loopback: ", strerror(error)));
  }
  return std::unique_ptr<TcpFront>(new TcpFront(listener, ntohs(address.sin_port), policy));
}

TcpFront::TcpFront(int listener, int port, Policy policy)
    : listener_(listener), port_(port), policy_(policy), acceptor_([this] { AcceptLoop(); }) {}

std::string TcpFront::address() const { return absl::StrCat("127.0.0.1:", port_); }

TcpFront::~TcpFront() {
  std::vector<std::thread> relays;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    for (int fd : open_) shutdown(fd, SHUT_RDWR);
  }
  shutdown(listener_, SHUT_RDWR);  // wakes accept()
  acceptor_.join();
  close(listener_);
  {
    absl::MutexLock lock(&mu_);
    relays.swap(relays_);
  }
  for (std::thread& relay : relays) relay.join();
}

void TcpFront::AddBackend(int port) {
  absl::MutexLock lock(&mu_);
  backends_.push_back(port);
  relayed_.push_back(0);
}

std::vector<int> TcpFront::RelayedPerBackend() const {
  absl::MutexLock lock(&mu_);
  return relayed_;
}

void TcpFront::AcceptLoop() {
  while (true) {
    const int client = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down
    }
    const int backend = ConnectToNextBackend();
    absl::MutexLock lock(&mu_);
    if (backend < 0 || stopping_) {
      close(client);
      if (backend >= 0) close(backend);
      if (stopping_) return;
      continue;
    }
    open_.push_back(client);
    open_.push_back(backend);
    relays_.emplace_back([this, client, backend] { Relay(client, backend); });
  }
}

int TcpFront::ConnectToNextBackend() {
  std::vector<int> backends;
  size_t first = 0;
  {
    absl::MutexLock lock(&mu_);
    backends = backends_;
    if (policy_ == Policy::kRoundRobin) first = next_++;
  }
  for (size_t i = 0; i < backends.size(); ++i) {
    const size_t index = (first + i) % backends.size();
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    const sockaddr_in address = Loopback(backends[index]);
    if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0) {
      absl::MutexLock lock(&mu_);
      ++relayed_[index];
      return fd;
    }
    close(fd);  // that replica is down: the next one
  }
  return -1;
}

void TcpFront::Relay(int client, int backend) {
  RelayBytes({client, client}, {backend, backend});
  absl::MutexLock lock(&mu_);
  open_.erase(std::remove_if(open_.begin(), open_.end(),
                             [&](int fd) { return fd == client || fd == backend; }),
              open_.end());
  close(client);
  close(backend);
}

}  // namespace assisted::testing
