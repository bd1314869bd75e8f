#include "tests/harness/byte_relay.h"

#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace assisted::testing {
namespace {

// A connected pair of stream sockets: [0] the near end a test holds, [1] the relay's end.
struct Pair {
  Pair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0); }
  ~Pair() {
    close(fds[0]);
    close(fds[1]);
  }
  int fds[2] = {-1, -1};
};

std::string ReadToEnd(int fd) {
  std::string all;
  char buffer[4096];
  ssize_t got;
  while ((got = read(fd, buffer, sizeof(buffer))) > 0) all.append(buffer, static_cast<size_t>(got));
  return all;
}

void Write(int fd, const std::string& text) {
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

TEST(RelayBytesTest, ARequestFollowedByItsSendersCloseStillGetsTheWholeAnswer) {
  Pair client, backend;
  bool finished = false;
  std::thread relay([&] {
    finished = RelayBytes({client.fds[1], client.fds[1]}, {backend.fds[1], backend.fds[1]});
  });
  Write(client.fds[0], "request");
  shutdown(client.fds[0], SHUT_WR);
  // The backend sees the request, then the client's end of stream, and only then answers.
  EXPECT_EQ(ReadToEnd(backend.fds[0]), "request");
  Write(backend.fds[0], "answer");
  shutdown(backend.fds[0], SHUT_WR);
  EXPECT_EQ(ReadToEnd(client.fds[0]), "answer");
  relay.join();
  EXPECT_TRUE(finished);
}

TEST(RelayBytesTest, SeparateReadAndWriteDescriptorsAreRelayedAndAPipeIsClosedAtTheEnd) {
  int in[2], out[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(pipe(out), 0);
  Pair service;
  std::thread relay([&] { RelayBytes({in[0], out[1]}, {service.fds[1], service.fds[1]}); });
  Write(in[1], "from the guest");
  close(in[1]);
  EXPECT_EQ(ReadToEnd(service.fds[0]), "from the guest");
  Write(service.fds[0], "from the service");
  shutdown(service.fds[0], SHUT_WR);
  // The pipe toward the guest is closed once the service ended: its reader sees the end.
  EXPECT_EQ(ReadToEnd(out[0]), "from the service");
  relay.join();
  close(in[0]);
  close(out[0]);
}

TEST(RelayBytesTest, ShuttingTheSocketsDownFromAnotherThreadEndsTheRelay) {
  Pair client, backend;
  std::thread relay([&] {
    RelayBytes({client.fds[1], client.fds[1]}, {backend.fds[1], backend.fds[1]});
  });
  shutdown(client.fds[1], SHUT_RDWR);
  shutdown(backend.fds[1], SHUT_RDWR);
  relay.join();  // returns: a hang fails the test by its timeout
}

}  // namespace
}  // namespace assisted::testing
