// File: services/agent/steps/unique_fd.h
//
// Owns a file descriptor and closes it when it goes out of scope (negative: owns nothing).

#ifndef ASSISTED_SERVICES_AGENT_STEPS_UNIQUE_FD_H_
#define ASSISTED_SERVICES_AGENT_STEPS_UNIQUE_FD_H_

#include <unistd.h>

namespace assisted::agent::steps {

class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd() {
    if (fd_ >= 0) close(fd_);
  }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      if (fd_ >= 0) close(fd_);
      fd_ = other.fd_;
      other.fd_ = -1;
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_UNIQUE_FD_H_
