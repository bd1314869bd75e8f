// File: services/agent/hardware/fixture_trees.cc

#include "services/agent/hardware/fixture_trees.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "tests/harness/probes.h"

namespace assisted::agent::hardware::testing {

absl::StatusOr<std::string> FixtureRoot(absl::string_view name) {
  // README.md sits beside the trees and is a plain file, so its runfile leads to the source.
  const std::string readme = assisted::testing::RunfilePath("tests/fixtures/hosts/README.md");
  std::error_code error;
  const std::filesystem::path real = std::filesystem::canonical(readme, error);
  if (error) return absl::NotFoundError(absl::StrCat("no fixture trees at ", readme));
  const std::filesystem::path root = real.parent_path() / std::string(name);
  if (!std::filesystem::is_directory(root, error)) {
    return absl::NotFoundError(absl::StrCat("no fixture host ", root.string()));
  }
  return root.string();
}

absl::StatusOr<std::string> CopyFixture(absl::string_view name, const std::string& parent) {
  absl::StatusOr<std::string> source = FixtureRoot(name);
  if (!source.ok()) return source.status();
  const std::filesystem::path target = std::filesystem::path(parent) / std::string(name);
  std::error_code error;
  std::filesystem::remove_all(target, error);
  std::filesystem::copy(
      *source, target,
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks,
      error);
  if (error) {
    return absl::InternalError(absl::StrCat("cannot copy ", *source, ": ", error.message()));
  }
  return target.string();
}

namespace {

// Makes room for a new entry at `full`: its directory exists and nothing is in the way.
absl::Status Prepare(const std::filesystem::path& full) {
  std::error_code error;
  std::filesystem::create_directories(full.parent_path(), error);
  if (!error) std::filesystem::remove(full, error);
  if (error)
    return absl::InternalError(
        absl::StrCat("cannot prepare ", full.string(), ": ", error.message()));
  return absl::OkStatus();
}

}  // namespace

std::string FreshTempDir(absl::string_view name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::filesystem::path dir =
      std::filesystem::path(tmp != nullptr ? tmp : "/tmp") / std::string(name);
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  std::filesystem::create_directories(dir, error);
  return dir.string();
}

absl::Status WriteFixtureFile(const std::string& root, const std::string& path,
                              absl::string_view content) {
  const std::filesystem::path full = std::filesystem::path(root) / path;
  if (absl::Status prepared = Prepare(full); !prepared.ok()) return prepared;
  std::ofstream out(full, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", full.string()));
  return absl::OkStatus();
}

absl::Status LinkFixtureFile(const std::string& root, const std::string& path,
                             const std::string& target) {
  const std::filesystem::path full = std::filesystem::path(root) / path;
  if (absl::Status prepared = Prepare(full); !prepared.ok()) return prepared;
  std::error_code error;
  std::filesystem::create_symlink(target, full, error);
  if (error)
    return absl::InternalError(absl::StrCat("cannot link ", full.string(), ": ", error.message()));
  return absl::OkStatus();
}

}  // namespace assisted::agent::hardware::testing
