// File: services/agent/hardware/host_root.cc

#include "services/agent/hardware/host_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace assisted::agent::hardware {
namespace {

// As the kernel's limit on links followed in one lookup (MAXSYMLINKS).
constexpr int kMaxLinks = 40;

absl::Status ErrnoError(int error, absl::string_view what, absl::string_view path) {
  // A path through a file ("size/x") is as missing as a path to nothing.
  if (error == ENOTDIR) error = ENOENT;
  return absl::ErrnoToStatus(error, absl::StrCat(what, " ", path));
}

// Closes a descriptor on every path out of a function.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

void PushFront(absl::string_view path, std::deque<std::string>* pending) {
  std::vector<std::string> parts =
      absl::StrSplit(path, '/', [](absl::string_view part) { return !part.empty(); });
  pending->insert(pending->begin(), parts.begin(), parts.end());
}

}  // namespace

HostRoot::HostRoot(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_.empty()) root_ = "/";
}

std::string HostRoot::HostPath(const std::vector<std::string>& components) const {
  return absl::StrCat(root_ == "/" ? "" : root_, "/", absl::StrJoin(components, "/"));
}

absl::StatusOr<std::vector<std::string>> HostRoot::ResolveComponents(absl::string_view path,
                                                                     bool follow_last) const {
  std::deque<std::string> pending;
  PushFront(path, &pending);
  std::vector<std::string> resolved;
  int links = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part == ".") continue;
    if (part == "..") {
      if (resolved.empty()) {
        return absl::PermissionDeniedError(absl::StrCat(path, " leaves the root ", root_));
      }
      resolved.pop_back();
      continue;
    }
    resolved.push_back(std::move(part));
    if (pending.empty() && !follow_last) break;
    const std::string host_path = HostPath(resolved);
    struct stat info;
    if (lstat(host_path.c_str(), &info) != 0) return ErrnoError(errno, "cannot stat", host_path);
    if (!S_ISLNK(info.st_mode)) continue;
    if (++links > kMaxLinks) {
      return absl::FailedPreconditionError(absl::StrCat("too many links resolving ", path));
    }
    char target[4096];
    const ssize_t length = readlink(host_path.c_str(), target, sizeof(target) - 1);
    if (length < 0) return ErrnoError(errno, "cannot read link", host_path);
    const absl::string_view text(target, static_cast<size_t>(length));
    resolved.pop_back();
    // An absolute target means the host's "/", which is this root.
    if (absl::StartsWith(text, "/")) resolved.clear();
    PushFront(text, &pending);
  }
  return resolved;
}

absl::StatusOr<std::string> HostRoot::Resolve(absl::string_view path) const {
  absl::StatusOr<std::vector<std::string>> components = ResolveComponents(path, true);
  if (!components.ok()) return components.status();
  return absl::StrCat("/", absl::StrJoin(*components, "/"));
}

bool HostRoot::Exists(absl::string_view path) const {
  absl::StatusOr<std::vector<std::string>> components = ResolveComponents(path, true);
  if (!components.ok()) return false;
  struct stat info;
  return lstat(HostPath(*components).c_str(), &info) == 0;
}

absl::StatusOr<std::string> HostRoot::Read(absl::string_view path, size_t max_bytes,
                                           bool fail_when_longer) const {
  absl::StatusOr<std::vector<std::string>> components = ResolveComponents(path, true);
  if (!components.ok()) return components.status();
  const std::string host_path = HostPath(*components);
  // O_NONBLOCK: a FIFO planted in a tree must not hang the agent before fstat rejects it.
  Fd fd(open(host_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (fd.get() < 0) return ErrnoError(errno, "cannot open", host_path);
  struct stat info;
  if (fstat(fd.get(), &info) != 0) return ErrnoError(errno, "cannot stat", host_path);
  if (!S_ISREG(info.st_mode) && !S_ISBLK(info.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(host_path, " is not a regular file"));
  }
  std::string content;
  char buffer[8192];
  while (content.size() < max_bytes || fail_when_longer) {
    const size_t want = std::min(sizeof(buffer), max_bytes + 1 - content.size());
    const ssize_t got = read(fd.get(), buffer, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return ErrnoError(errno, "cannot read", host_path);
    if (got == 0) break;
    content.append(buffer, static_cast<size_t>(got));
    if (content.size() > max_bytes) {
      if (fail_when_longer) {
        return absl::OutOfRangeError(
            absl::StrCat(host_path, " is larger than ", max_bytes, " bytes"));
      }
      content.resize(max_bytes);
    }
  }
  return content;
}

absl::StatusOr<std::string> HostRoot::ReadFile(absl::string_view path, size_t max_bytes) const {
  return Read(path, max_bytes, true);
}

absl::StatusOr<std::string> HostRoot::ReadPrefix(absl::string_view path, size_t max_bytes) const {
  return Read(path, max_bytes, false);
}

absl::StatusOr<std::string> HostRoot::ReadTrimmed(absl::string_view path) const {
  absl::StatusOr<std::string> content = ReadFile(path);
  if (!content.ok()) return content.status();
  return std::string(absl::StripAsciiWhitespace(*content));
}

absl::StatusOr<std::vector<std::string>> HostRoot::ListDir(absl::string_view path) const {
  absl::StatusOr<std::vector<std::string>> components = ResolveComponents(path, true);
  if (!components.ok()) return components.status();
  const std::string host_path = HostPath(*components);
  Fd fd(open(host_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_DIRECTORY));
  if (fd.get() < 0) return ErrnoError(errno, "cannot open directory", host_path);
  DIR* dir = fdopendir(fd.get());
  if (dir == nullptr) return ErrnoError(errno, "cannot open directory", host_path);
  fd.release();  // now owned by `dir`
  std::vector<std::string> names;
  while (const dirent* entry = readdir(dir)) {
    const absl::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<std::string> HostRoot::ReadLink(absl::string_view path) const {
  absl::StatusOr<std::vector<std::string>> components = ResolveComponents(path, false);
  if (!components.ok()) return components.status();
  if (components->empty()) return absl::FailedPreconditionError("the root is not a link");
  const std::string host_path = HostPath(*components);
  char target[4096];
  const ssize_t length = readlink(host_path.c_str(), target, sizeof(target) - 1);
  if (length < 0 && errno == EINVAL) {
    return absl::FailedPreconditionError(absl::StrCat(host_path, " is not a symbolic link"));
  }
  if (length < 0) return ErrnoError(errno, "cannot read link", host_path);
  return std::string(target, static_cast<size_t>(length));
}

}  // namespace assisted::agent::hardware
