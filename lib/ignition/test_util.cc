#include "lib/ignition/test_util.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/process/subprocess.h"
#include "lib/status/status_macros.h"
#include "lib/testing/test_files.h"

namespace assisted::ignition {
namespace {

constexpr absl::string_view kToleratedWarning =
    "insecure plaintext HTTP proxy specified for HTTPS resources";

}  // namespace

absl::Status IgnitionValidate(absl::string_view config_json, absl::string_view name) {
  ASSIGN_OR_RETURN(std::string path, testing::WriteTestFile(name, config_json));
  process::LocalProcessRunner runner;
  ASSIGN_OR_RETURN(process::CommandResult result,
                   runner.Run({.argv = {"ignition-validate", path}}));
  const std::string output = absl::StrCat(result.stdout_data, result.stderr_data);
  bool clean = result.ok();
  for (absl::string_view line : absl::StrSplit(output, '\n', absl::SkipWhitespace())) {
    clean = clean && absl::EndsWith(line, kToleratedWarning);
  }
  if (clean) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("ignition-validate ", path, " exited ", result.exit_code, ": ", output));
}

}  // namespace assisted::ignition
