// File: services/agent/hardware/host_root.h
//
// The file system the hardware inventory is read from: "/" on a real host, a fixture tree in
// tests and in simulated hosts. Every read of /sys, /proc, /dev and /run goes through one
// HostRoot, so a collector never names an absolute path.
//
//   HostRoot root("/work/tests/fixtures/hosts/server");
//   absl::StatusOr<std::string> size = root.ReadTrimmed("sys/block/sda/size");
//
// Paths are relative to the root (a leading "/" is ignored). Symbolic links are resolved inside
// the root, like a chroot: an absolute target starts again at the root, and a relative target
// that climbs above the root is refused (PERMISSION_DENIED), so a tree can never make the agent
// read a file outside it. Missing files are normal on real hardware: they yield NOT_FOUND and
// callers leave the field empty.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_HOST_ROOT_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_HOST_ROOT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::agent::hardware {

class HostRoot {
 public:
  // Files larger than this are refused by ReadFile unless the caller allows more: sysfs and
  // procfs attributes are a page at most.
  static constexpr size_t kDefaultMaxFileBytes = 1 << 20;

  // `root` is a directory; "" and "/" both mean the real root.
  explicit HostRoot(std::string root = "/");

  // The root directory as given (without a trailing "/", except for "/").
  const std::string& root() const { return root_; }

  // The whole content of a regular file (or block device) at `path`. NOT_FOUND when it is
  // missing, OUT_OF_RANGE when it holds more than `max_bytes`, FAILED_PRECONDITION for a
  // directory, FIFO or socket, other codes from errno (sysfs answers EINVAL for attributes that
  // have no value right now, e.g. the speed of a link that is down).
  absl::StatusOr<std::string> ReadFile(absl::string_view path,
                                       size_t max_bytes = kDefaultMaxFileBytes) const;

  // ReadFile with leading and trailing ASCII whitespace removed: what most attributes need.
  absl::StatusOr<std::string> ReadTrimmed(absl::string_view path) const;

  // At most the first `max_bytes` of the file (e.g. a disk's first sector); fewer when it is
  // shorter. Errors as ReadFile.
  absl::StatusOr<std::string> ReadPrefix(absl::string_view path, size_t max_bytes) const;

  // Names in the directory at `path`, sorted, without "." and "..". NOT_FOUND when missing.
  absl::StatusOr<std::vector<std::string>> ListDir(absl::string_view path) const;

  // The target text of the symbolic link at `path` (not resolved). FAILED_PRECONDITION when
  // `path` is not a link.
  absl::StatusOr<std::string> ReadLink(absl::string_view path) const;

  // Where `path` leads once every link is followed, as an absolute path inside the root, e.g.
  // "sys/class/net/bond0" -> "/sys/devices/virtual/net/bond0". NOT_FOUND when it does not exist.
  absl::StatusOr<std::string> Resolve(absl::string_view path) const;

  // Whether `path` exists (links followed inside the root).
  bool Exists(absl::string_view path) const;

 private:
  // `path` relative to the root with every link resolved, as components.
  absl::StatusOr<std::vector<std::string>> ResolveComponents(absl::string_view path,
                                                             bool follow_last) const;
  std::string HostPath(const std::vector<std::string>& components) const;
  absl::StatusOr<std::string> Read(absl::string_view path, size_t max_bytes,
                                   bool fail_when_longer) const;

  std::string root_;
};

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_HOST_ROOT_H_
