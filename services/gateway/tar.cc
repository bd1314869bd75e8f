#include "services/gateway/tar.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace assisted::gateway {
namespace {

constexpr size_t kBlock = 512;
// The size field holds 11 octal digits.
constexpr uint64_t kMaxSize = (uint64_t{1} << 33) - 1;

// Writes `value` as zero-padded octal filling `width` - 1 digits plus a NUL; the caller keeps
// it below 8^(width - 1).
void Octal(char* field, size_t width, uint64_t value) {
  field[width - 1] = '\0';
  for (size_t digit = width - 1; digit > 0; --digit) {
    field[digit - 1] = static_cast<char>('0' + (value & 7));
    value >>= 3;
  }
}

}  // namespace

absl::StatusOr<std::string> TarHeader(const std::string& path, uint32_t mode, uint64_t size,
                                      int64_t mtime) {
  if (path.empty() || path.size() > 99 || path[0] == '/' || absl::StrContains(path, "..")) {
    return absl::InvalidArgumentError(absl::StrCat("tar: bad path \"", path, "\""));
  }
  if (size > kMaxSize) {
    return absl::InvalidArgumentError(absl::StrCat("tar: ", path, " is too large"));
  }
  char header[kBlock];
  std::memset(header, 0, sizeof(header));
  std::memcpy(header, path.data(), path.size());  // name
  Octal(header + 100, 8, mode & 07777);           // mode
  Octal(header + 108, 8, 0);                      // uid
  Octal(header + 116, 8, 0);                      // gid
  Octal(header + 124, 12, size);                  // size
  // A time past the field's range (the year 2242) is written as its largest value.
  Octal(header + 136, 12, mtime < 0 ? 0 : std::min<uint64_t>(mtime, kMaxSize));  // mtime
  std::memset(header + 148, ' ', 8);      // checksum, blank while summing
  header[156] = '0';                      // regular file
  std::memcpy(header + 257, "ustar", 6);  // magic + NUL
  std::memcpy(header + 263, "00", 2);     // version
  unsigned sum = 0;
  for (unsigned char c : header) sum += c;
  std::snprintf(header + 148, 8, "%06o", sum);
  header[155] = ' ';
  return std::string(header, kBlock);
}

std::string TarPadding(uint64_t size) {
  return std::string((kBlock - size % kBlock) % kBlock, '\0');
}

std::string TarEnd() { return std::string(2 * kBlock, '\0'); }

absl::StatusOr<std::string> Tar(const std::vector<TarEntry>& entries, int64_t mtime) {
  std::string archive;
  for (const TarEntry& entry : entries) {
    absl::StatusOr<std::string> header =
        TarHeader(entry.path, entry.mode, entry.content.size(), mtime);
    if (!header.ok()) return header.status();
    archive.append(*header);
    archive.append(entry.content);
    archive.append(TarPadding(entry.content.size()));
  }
  archive.append(TarEnd());
  return archive;
}

}  // namespace assisted::gateway
