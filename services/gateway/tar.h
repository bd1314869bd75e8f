// File: services/gateway/tar.h
//
// A minimal POSIX ustar writer for the downloads that bundle several files (the static network
// configuration of an infra-env, a cluster's log bundles). Tar() builds a small archive in
// memory; large ones (log bundles of up to 64 MiB per host) are written piece by piece with
// TarHeader, the content, TarPadding and finally TarEnd, so that each file's content can be
// streamed in chunks to wherever the archive goes.

#ifndef ASSISTED_SERVICES_GATEWAY_TAR_H_
#define ASSISTED_SERVICES_GATEWAY_TAR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace assisted::gateway {

struct TarEntry {
  std::string path;  // relative, at most 99 bytes
  uint32_t mode = 0644;
  std::string content;
};

// The archive of `entries` (regular files), modification time `mtime` (Unix seconds).
// INVALID_ARGUMENT for a path that is empty, absolute, contains "..", or is too long.
absl::StatusOr<std::string> Tar(const std::vector<TarEntry>& entries, int64_t mtime);

// The 512-byte header of a regular file `path` of `size` bytes; its content follows, then
// TarPadding(size). INVALID_ARGUMENT for a bad path (as Tar) or a size beyond the format's
// 8 GiB.
absl::StatusOr<std::string> TarHeader(const std::string& path, uint32_t mode, uint64_t size,
                                      int64_t mtime);
// The zero bytes that take a file of `size` bytes to the next block boundary.
std::string TarPadding(uint64_t size);
// The end-of-archive marker, after the last file.
std::string TarEnd();

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_TAR_H_
