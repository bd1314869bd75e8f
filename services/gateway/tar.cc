#include "services/gateway/tar.h"

#include <cstdio>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace assisted::gateway {
namespace {

constexpr size_t kBlock = 512;

// Writes `value` as zero-padded octal filling `width` - 1 digits plus a NUL.
void Octal(char* field, size_t width, uint64_t value) {
  std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1),
                static_cast<unsigned long long>(value));
}

}  // namespace

absl::StatusOr<std::string> Tar(const std::vector<TarEntry>& entries, int64_t mtime) {
  std::string archive;
  for (const TarEntry& entry : entries) {
    if (entry.path.empty() || entry.path.size() > 99 || entry.path[0] == '/' ||
        absl::StrContains(entry.path, "..")) {
      return absl::InvalidArgumentError(absl::StrCat("tar: bad path \"", entry.path, "\""));
    }
    char header[kBlock];
    std::memset(header, 0, sizeof(header));
    std::memcpy(header, entry.path.data(), entry.path.size());  // name
    Octal(header + 100, 8, entry.mode & 07777);                 // mode
    Octal(header + 108, 8, 0);                                  // uid
    Octal(header + 116, 8, 0);                                  // gid
    Octal(header + 124, 12, entry.content.size());              // size
    Octal(header + 136, 12, mtime < 0 ? 0 : mtime);             // mtime
    std::memset(header + 148, ' ', 8);                          // checksum, blank while summing
    header[156] = '0';                                          // regular file
    std::memcpy(header + 257, "ustar", 6);                      // magic + NUL
    std::memcpy(header + 263, "00", 2);                         // version
    unsigned sum = 0;
    for (unsigned char c : header) sum += c;
    std::snprintf(header + 148, 8, "%06o", sum);
    header[155] = ' ';
    archive.append(header, kBlock);
    archive.append(entry.content);
    archive.append((kBlock - entry.content.size() % kBlock) % kBlock, '\0');
  }
  archive.append(2 * kBlock, '\0');
  return archive;
}

}  // namespace assisted::gateway
