// guest_forward_relay PORT: joins one guest connection to 127.0.0.1:PORT.
//
// QEMU's user-mode networking forwards a guest's TCP connection to a command
// (guestfwd=tcp:ADDR:PORT-cmd:COMMAND), run once per connection with the connection on its
// standard input and output. A chardev target (…-tcp:127.0.0.1:PORT) would instead be dialled
// once when QEMU starts, refused when the service is not up yet and shared by every guest
// connection: gRPC reconnects and several streams need one host connection per guest connection.
//
// Copies bytes both ways and passes each side's end of stream on as a half close; exits when
// both directions ended or on any error (the guest then sees its connection reset). Writes
// nothing else: standard error is the guest's connection too.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace {

// Copies what `from` has to `to`; false at end of stream or on an error.
bool Pump(int from, int to) {
  char buffer[65536];
  ssize_t got;
  do {
    got = read(from, buffer, sizeof(buffer));
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return false;
  for (ssize_t done = 0; done < got;) {
    const ssize_t n = write(to, buffer + done, static_cast<size_t>(got - done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::exit(1);
    done += n;
  }
  return true;
}

// Half-closes `fd` for writing; a pipe (not a socket) is closed instead.
void EndWriting(int fd) {
  if (shutdown(fd, SHUT_WR) != 0) close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const int port = std::atoi(argv[1]);
  if (port <= 0 || port > 65535) return 2;
  const int service = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (service < 0) return 1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(service, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) return 1;

  bool guest_open = true, service_open = true;
  while (guest_open || service_open) {
    pollfd fds[2] = {{guest_open ? 0 : -1, POLLIN, 0}, {service_open ? service : -1, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (guest_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !Pump(0, service)) {
      guest_open = false;
      EndWriting(service);
    }
    if (service_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !Pump(service, 1)) {
      service_open = false;
      EndWriting(1);
    }
  }
  return 0;
}
