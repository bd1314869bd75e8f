// File: services/agent/steps/test_util.cc

#include "services/agent/steps/test_util.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace assisted::agent::steps::testing {

absl::StatusOr<process::CommandResult> ScriptedProcessRunner::Run(const process::Command& command) {
  {
    absl::MutexLock lock(&mu_);
    commands_.push_back(command.argv);
  }
  return handler_(command);
}

std::vector<std::vector<std::string>> ScriptedProcessRunner::commands() const {
  absl::MutexLock lock(&mu_);
  return commands_;
}

process::CommandResult Exited(int exit_code, std::string stdout_data, std::string stderr_data) {
  process::CommandResult result;
  result.exit_code = exit_code;
  result.stdout_data = std::move(stdout_data);
  result.stderr_data = std::move(stderr_data);
  return result;
}

absl::Status CollectingSink::Send(const agent::v1::LogChunk& chunk) {
  absl::MutexLock lock(&mu_);
  chunks_.push_back(chunk);
  return absl::OkStatus();
}

std::vector<agent::v1::LogChunk> CollectingSink::chunks() const {
  absl::MutexLock lock(&mu_);
  return chunks_;
}

absl::StatusOr<LoopbackSocket> BindLoopback(int type) {
  LoopbackSocket out{UniqueFd(socket(AF_INET, type | SOCK_CLOEXEC, 0))};
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(at);
  if (!out.fd.valid() || bind(out.fd.get(), reinterpret_cast<sockaddr*>(&at), sizeof(at)) != 0 ||
      (type == SOCK_STREAM && listen(out.fd.get(), 16) != 0) ||
      getsockname(out.fd.get(), reinterpret_cast<sockaddr*>(&at), &length) != 0) {
    return absl::InternalError(absl::StrCat("cannot bind 127.0.0.1: ", std::strerror(errno)));
  }
  out.port = ntohs(at.sin_port);
  return out;
}

LoopbackServer::LoopbackServer(int type, Handler handle) : handle_(std::move(handle)) {
  absl::StatusOr<LoopbackSocket> bound = BindLoopback(type);
  if (!bound.ok()) {
    ADD_FAILURE() << bound.status();
    return;
  }
  fd_ = std::move(bound->fd);
  port_ = bound->port;
  thread_ = std::thread([this] {
    while (!stopping_.HasBeenNotified()) {
      pollfd p{fd_.get(), POLLIN, 0};
      if (poll(&p, 1, 20) > 0) handle_(fd_.get(), stopping_);
    }
  });
}

LoopbackServer::~LoopbackServer() {
  stopping_.Notify();
  if (thread_.joinable()) thread_.join();
}

Step MakeStep(StepType type, std::vector<std::string> args, uint32_t serial) {
  Step step;
  step.set_step_type(type);
  step.set_step_id(absl::StrFormat("%s-%08x", StepTypeName(type), serial));
  for (std::string& arg : args) step.add_args(std::move(arg));
  return step;
}

absl::Status MakeOsDiskImage(const std::string& path, const std::string& kargs) {
  const std::string tree = path + ".boot";
  std::filesystem::create_directories(tree);
  std::ofstream(tree + "/kargs.cfg") << "set kargs=\"" << kargs << "\"\n";
  const std::string script = absl::StrCat(
      "set -e; truncate -s 48M '", path, "'; sfdisk -q --label gpt '", path, "' <<EOF\n",
      "start=1MiB, size=1MiB, type=21686148-6449-6E6F-744E-656564454649, name=BIOS-BOOT\n",
      "start=2MiB, size=4MiB, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=EFI-SYSTEM\n",
      "start=6MiB, size=16MiB, name=boot\n", "start=22MiB, size=25MiB, name=root\n", "EOF\n",
      "mkfs.ext4 -q -F -L boot -d '", tree, "' -E offset=", kOsDiskImageBootOffset, " '", path,
      "' 16M\n");
  process::LocalProcessRunner runner;
  absl::StatusOr<process::CommandResult> made = runner.Run({.argv = {"sh", "-c", script}});
  if (!made.ok()) return made.status();
  if (made->exit_code != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot make an OS disk image (needs sfdisk, mkfs.ext4): ", made->stderr_data));
  }
  return absl::OkStatus();
}

}  // namespace assisted::agent::steps::testing
