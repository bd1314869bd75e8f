// File: services/gateway/tar.h
//
// A minimal POSIX ustar writer for the few downloads that bundle several small files (the
// static network configuration of an infra-env, a cluster's log bundles). Built in memory:
// the files are small and already in memory.

#ifndef ASSISTED_SERVICES_GATEWAY_TAR_H_
#define ASSISTED_SERVICES_GATEWAY_TAR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace assisted::gateway {

struct TarEntry {
  std::string path;  // relative, at most 100 bytes
  uint32_t mode = 0644;
  std::string content;
};

// The archive of `entries` (regular files), modification time `mtime` (Unix seconds).
// INVALID_ARGUMENT for a path that is empty, absolute, contains "..", or is too long.
absl::StatusOr<std::string> Tar(const std::vector<TarEntry>& entries, int64_t mtime);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_TAR_H_
