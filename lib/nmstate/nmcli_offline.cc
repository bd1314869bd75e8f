#include "lib/nmstate/nmcli_offline.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/process/subprocess.h"
#include "lib/status/status_macros.h"

namespace assisted::nmstate {

KeyfileValues ParseKeyfileValues(absl::string_view text) {
  KeyfileValues values;
  std::string section;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipWhitespace())) {
    if (absl::ConsumePrefix(&line, "[") && absl::ConsumeSuffix(&line, "]")) {
      section = std::string(line);
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == absl::string_view::npos) continue;
    values[absl::StrCat(section, ".", line.substr(0, eq))] = std::string(line.substr(eq + 1));
  }
  return values;
}

absl::StatusOr<KeyfileValues> NmcliNormalise(absl::string_view keyfile) {
  process::LocalProcessRunner runner;
  ASSIGN_OR_RETURN(process::CommandResult result,
                   runner.Run({.argv = {"nmcli", "--offline", "connection", "modify",
                                        "connection.autoconnect", "yes"},
                               .stdin_data = std::string(keyfile),
                               .timeout = absl::Seconds(30)}));
  if (!result.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("nmcli rejected the keyfile: ", result.stdout_data, result.stderr_data));
  }
  return ParseKeyfileValues(result.stdout_data);
}

}  // namespace assisted::nmstate
