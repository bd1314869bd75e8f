// File: tests/harness/byte_relay.h
//
// Copies bytes both ways between two ends of a connection until both directions ended, as a
// layer-4 proxy does: one side's end of stream is passed on to the other as a half close
// (shutdown(SHUT_WR); a pipe is closed instead), so a request followed by the client's close
// still gets its whole answer. A read or write error ends both directions at once.
//
//   RelayBytes({client, client}, {backend, backend});  // two sockets
//   RelayBytes({0, 1}, {service, service});              // a pipe pair and a socket
//
// Blocking (poll); returns when done and closes nothing it did not half-close: the caller owns
// the descriptors. To end a relay from another thread, shut its sockets down (SHUT_RDWR).
// Writes to a peer that is gone fail instead of raising SIGPIPE on sockets.

#ifndef ASSISTED_TESTS_HARNESS_BYTE_RELAY_H_
#define ASSISTED_TESTS_HARNESS_BYTE_RELAY_H_

namespace assisted::testing {

// One end of a relayed connection: where its bytes are read from and where the other end's
// bytes are written to (the same socket, or stdin and stdout).
struct RelayEnd {
  int read_fd;
  int write_fd;
};

// Relays until both directions ended (true) or one failed (false).
bool RelayBytes(RelayEnd a, RelayEnd b);

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_BYTE_RELAY_H_
