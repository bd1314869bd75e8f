#include "tests/harness/byte_relay.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace assisted::testing {
namespace {

// Writes all of `data`; false when the peer is gone. send() on a socket (no SIGPIPE), write()
// on anything else.
bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t written = send(fd, data, size, MSG_NOSIGNAL);
    if (written < 0 && errno == ENOTSOCK) written = write(fd, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

// Half-closes `fd` for writing; a pipe (not a socket) is closed instead.
void EndWriting(int fd) {
  if (shutdown(fd, SHUT_WR) != 0) close(fd);
}

}  // namespace

bool RelayBytes(RelayEnd a, RelayEnd b) {
  const RelayEnd ends[2] = {a, b};
  bool reading[2] = {true, true};
  char buffer[64 * 1024];
  while (reading[0] || reading[1]) {
    pollfd fds[2];
    for (int i = 0; i < 2; ++i) fds[i] = {reading[i] ? ends[i].read_fd : -1, POLLIN, 0};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    for (int from = 0; from < 2; ++from) {
      if (!reading[from] || fds[from].revents == 0) continue;
      const ssize_t got = read(ends[from].read_fd, buffer, sizeof(buffer));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return false;
      if (got == 0) {
        reading[from] = false;
        EndWriting(ends[1 - from].write_fd);
      } else if (!WriteAll(ends[1 - from].write_fd, buffer, static_cast<size_t>(got))) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace assisted::testing
