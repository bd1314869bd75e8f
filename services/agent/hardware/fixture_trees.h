// File: services/agent/hardware/fixture_trees.h
//
// Test helper: where the host fixture trees of //tests/fixtures (laptop, server, vm) are.
//
// Bazel's runfiles turn every file of a tree into a link to the source file and drop the
// tree's own links (/sys/block/sda -> ../devices/..., /dev/disk/by-id/...), which the
// collectors must see as the kernel shows them. So the tree is found through a runfile and
// used where it really lives; tests that change files work on a CopyFixture copy.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_FIXTURE_TREES_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_FIXTURE_TREES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::agent::hardware::testing {

// The directory of fixture host `name` ("laptop", "server", "vm"), links intact.
// NOT_FOUND when the fixtures are not among the test's data.
absl::StatusOr<std::string> FixtureRoot(absl::string_view name);

// Copies fixture host `name` (links kept as links) to a new directory under `parent` and
// returns it.
absl::StatusOr<std::string> CopyFixture(absl::string_view name, const std::string& parent);

// A new, empty directory `name` under the test's temporary directory (TEST_TMPDIR).
std::string FreshTempDir(absl::string_view name);

// Writes `content` to `path` under `root` (a copy), creating directories and replacing a link
// or file that is there.
absl::Status WriteFixtureFile(const std::string& root, const std::string& path,
                              absl::string_view content);

// Makes `path` under `root` a symbolic link to `target`, replacing what is there.
absl::Status LinkFixtureFile(const std::string& root, const std::string& path,
                             const std::string& target);

}  // namespace assisted::agent::hardware::testing

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_FIXTURE_TREES_H_
