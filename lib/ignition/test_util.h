// File: lib/ignition/test_util.h
//
// Test helpers for generated configs: Ignition's own validator (`ignition-validate`, Debian
// package `ignition`; tests using it start a process and are tagged "external"). DecodeDataUrl,
// which tests use with it, lives in config_builder.h.

#ifndef ASSISTED_LIB_IGNITION_TEST_UTIL_H_
#define ASSISTED_LIB_IGNITION_TEST_UTIL_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/ignition/config_builder.h"

namespace assisted::ignition {

// Writes `config_json` to $TEST_TMPDIR/`name` and runs ignition-validate on it. OK only when it
// exits 0 and prints no warning either (a key the spec version lacks, which Ignition would
// silently ignore on the host, is only a warning). The one warning tolerated is the note that an
// https proxy is reached over plain HTTP, which is how most proxies are set up.
// INVALID_ARGUMENT carrying the validator's output otherwise.
absl::Status IgnitionValidate(absl::string_view config_json, absl::string_view name);

}  // namespace assisted::ignition

#endif  // ASSISTED_LIB_IGNITION_TEST_UTIL_H_
