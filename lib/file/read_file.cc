#include "lib/file/read_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace assisted {

absl::StatusOr<std::string> ReadFile(const std::string& path, absl::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read ", what, " ", path, ": ", std::strerror(errno)));
  }
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace assisted
