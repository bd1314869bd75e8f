// guest_forward_relay PORT: joins one guest connection to 127.0.0.1:PORT.
//
// QEMU's user-mode networking forwards a guest's TCP connection to a command
// (guestfwd=tcp:ADDR:PORT-cmd:COMMAND), run once per connection with the connection on its
// standard input and output. A chardev target (…-tcp:127.0.0.1:PORT) would instead be dialled
// once when QEMU starts, refused when the service is not up yet and shared by every guest
// connection: gRPC reconnects and several streams need one host connection per guest connection.
//
// Copies bytes both ways (tests/harness/byte_relay.h: each side's end of stream passed on as a
// half close); exits when both directions ended or on any error (the guest then sees its
// connection reset). Writes nothing else: standard error is the guest's connection too.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>

#include "tests/harness/byte_relay.h"

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
  return assisted::testing::RelayBytes({0, 1}, {service, service}) ? 0 : 1;
}
