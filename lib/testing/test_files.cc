#include "lib/testing/test_files.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <sys/stat.h>

#include "absl/strings/str_cat.h"

namespace assisted::testing {

absl::StatusOr<std::string> WriteTestFile(absl::string_view name, absl::string_view contents) {
  const char* root = std::getenv("TEST_TMPDIR");
  const std::string path = absl::StrCat(root != nullptr ? root : "/tmp", "/", name);
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string folder = path.substr(0, slash);
    if (mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::InternalError(absl::StrCat("mkdir ", folder, ": ", std::strerror(errno)));
    }
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return path;
}

}  // namespace assisted::testing
