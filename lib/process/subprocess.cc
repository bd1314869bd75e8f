#include "lib/process/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"

extern char** environ;

namespace assisted::process {
namespace {

int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1;
}

// Everything the child needs, prepared before fork() so the child only calls
// async-signal-safe functions.
struct ExecPlan {
  std::vector<std::string> argv_storage;
  std::vector<std::string> env_storage;
  std::vector<char*> argv;
  std::vector<char*> envp;

  ExecPlan(const std::vector<std::string>& args, const std::map<std::string, std::string>& env)
      : argv_storage(args) {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      const char* eq = std::strchr(*entry, '=');
      if (eq != nullptr && env.count(std::string(*entry, eq - *entry)) > 0) continue;
      env_storage.emplace_back(*entry);
    }
    for (const auto& [key, value] : env) env_storage.push_back(absl::StrCat(key, "=", value));
    for (auto& arg : argv_storage) argv.push_back(arg.data());
    argv.push_back(nullptr);
    for (auto& var : env_storage) envp.push_back(var.data());
    envp.push_back(nullptr);
  }
};

// In the child: exec or report errno through `error_fd` and exit 127.
[[noreturn]] void ExecChild(const ExecPlan& plan, int error_fd) {
  // The child starts with no signals blocked, whatever the parent (which may sigwait) blocked.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execvpe(plan.argv[0], plan.argv.data(), plan.envp.data());
  int err = errno;
  (void)!write(error_fd, &err, sizeof(err));
  _exit(127);
}

// Reads the exec-error pipe: 0 when exec succeeded (the pipe closed on exec), else errno.
int ReadExecError(int fd) {
  int err = 0;
  ssize_t n;
  do {
    n = read(fd, &err, sizeof(err));
  } while (n < 0 && errno == EINTR);
  close(fd);
  return n == sizeof(err) ? err : 0;
}

absl::Status ExecFailure(const std::vector<std::string>& argv, int err) {
  std::string message =
      absl::StrCat("cannot run ", argv.empty() ? "" : argv[0], ": ", std::strerror(err));
  return err == ENOENT ? absl::NotFoundError(message) : absl::InternalError(message);
}

}  // namespace

absl::StatusOr<CommandResult> LocalProcessRunner::Run(const Command& command) {
  if (command.argv.empty()) return absl::InvalidArgumentError("empty command");
  ExecPlan plan(command.argv, command.env);
  int in[2], out[2], err[2], exec_error[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
      pipe2(exec_error, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    if (!command.working_dir.empty() && chdir(command.working_dir.c_str()) != 0) {
      int e = errno;
      (void)!write(exec_error[1], &e, sizeof(e));
      _exit(127);
    }
    ExecChild(plan, exec_error[1]);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  close(exec_error[1]);
  if (int e = ReadExecError(exec_error[0]); e != 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
    waitpid(pid, nullptr, 0);
    return ExecFailure(command.argv, e);
  }

  CommandResult result;
  const absl::Time deadline = absl::Now() + command.timeout;
  size_t written = 0;
  int stdin_fd = in[1];
  if (command.stdin_data.empty()) {
    close(stdin_fd);
    stdin_fd = -1;
  } else {
    fcntl(stdin_fd, F_SETFL, O_NONBLOCK);
  }
  int open_outputs = 2;
  pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {stdin_fd, POLLOUT, 0}};
  char buffer[16384];
  while (open_outputs > 0 || fds[2].fd >= 0) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    const int ready = poll(fds, 3, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        (i == 0 ? result.stdout_data : result.stderr_data).append(buffer, n);
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_outputs;
      }
    }
    if (fds[2].fd >= 0 && fds[2].revents != 0) {
      const ssize_t n = write(fds[2].fd, command.stdin_data.data() + written,
                              command.stdin_data.size() - written);
      if (n > 0) written += n;
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == command.stdin_data.size()) {
        close(fds[2].fd);
        fds[2].fd = -1;
      }
    }
  }
  for (const pollfd& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return result;
}

absl::StatusOr<std::unique_ptr<Subprocess>> Subprocess::Start(
    const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
    const std::string& log_path) {
  if (argv.empty()) return absl::InvalidArgumentError("empty command");
  const int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return absl::InternalError(absl::StrCat("cannot open ", log_path, ": ", std::strerror(errno)));
  }
  int exec_error[2];
  if (pipe2(exec_error, O_CLOEXEC) != 0) {
    close(log_fd);
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  ExecPlan plan(argv, env);
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  if (pid == 0) {
    const int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    ExecChild(plan, exec_error[1]);
  }
  close(log_fd);
  close(exec_error[1]);
  if (int e = ReadExecError(exec_error[0]); e != 0) {
    waitpid(pid, nullptr, 0);
    return ExecFailure(argv, e);
  }
  return std::unique_ptr<Subprocess>(new Subprocess(pid));
}

Subprocess::~Subprocess() {
  if (!exit_status_.has_value()) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

std::optional<int> Subprocess::Poll() {
  if (exit_status_.has_value()) return exit_status_;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) exit_status_ = DecodeWaitStatus(status);
  return exit_status_;
}

void Subprocess::Signal(int signal) {
  if (!Poll().has_value()) kill(pid_, signal);
}

absl::StatusOr<int> Subprocess::Wait(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!Poll().has_value()) {
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("process ", pid_, " still running after ", absl::FormatDuration(timeout)));
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  return *exit_status_;
}

int Subprocess::Stop(absl::Duration grace) {
  Signal(SIGTERM);
  if (absl::StatusOr<int> status = Wait(grace); status.ok()) return *status;
  Signal(SIGKILL);
  return Wait(absl::Seconds(10)).value_or(-SIGKILL);
}

}  // namespace assisted::process
