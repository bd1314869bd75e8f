#include "services/agent/simulation/profile_paths.h"

#include "absl/strings/str_cat.h"
#include "tests/harness/probes.h"

namespace assisted::agent::simulation::testing {

std::string ProfilePath(absl::string_view name) {
  return assisted::testing::RunfilePath(absl::StrCat("tests/fixtures/profiles/", name, ".json"));
}

}  // namespace assisted::agent::simulation::testing
