// File: lib/ignition/ignition_validate.h
//
// Test helper: checks a generated config with Ignition's own validator (`ignition-validate`,
// Debian package `ignition`). Tests using it start a process and are tagged "external".

#ifndef ASSISTED_LIB_IGNITION_IGNITION_VALIDATE_H_
#define ASSISTED_LIB_IGNITION_IGNITION_VALIDATE_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace assisted::ignition {

// Writes `config_json` to $TEST_TMPDIR/`name` and runs ignition-validate on it. OK only when it
// exits 0 and prints no warning either (a key the spec version lacks, which Ignition would
// silently ignore on the host, is only a warning). The one warning tolerated is the note that an
// https proxy is reached over plain HTTP, which is how most proxies are set up.
// INVALID_ARGUMENT carrying the validator's output otherwise.
absl::Status IgnitionValidate(absl::string_view config_json, absl::string_view name);

}  // namespace assisted::ignition

#endif  // ASSISTED_LIB_IGNITION_IGNITION_VALIDATE_H_
