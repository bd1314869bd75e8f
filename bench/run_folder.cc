#include "bench/run_folder.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"

namespace assisted::bench {

absl::StatusOr<RunFolder> RunFolder::Create(absl::string_view name) {
  std::string path = absl::StrCat("/tmp/assisted-", name, ".XXXXXX");
  if (mkdtemp(path.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
  }
  return RunFolder(std::move(path));
}

RunFolder::RunFolder(RunFolder&& other) noexcept : path_(std::exchange(other.path_, "")) {}

RunFolder::~RunFolder() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace assisted::bench
