// File: lib/testing/test_files.h
//
// Files for tests that hand generated output to an external tool (ignition-validate, nmcli):
// written under Bazel's per-test TEST_TMPDIR, so they are kept with the test's outputs and never
// collide with another test.

#ifndef ASSISTED_LIB_TESTING_TEST_FILES_H_
#define ASSISTED_LIB_TESTING_TEST_FILES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::testing {

// Writes `contents` to $TEST_TMPDIR/`name` (or /tmp when unset) and returns the path.
// `name` may contain '/'; missing folders are created.
absl::StatusOr<std::string> WriteTestFile(absl::string_view name, absl::string_view contents);

}  // namespace assisted::testing

#endif  // ASSISTED_LIB_TESTING_TEST_FILES_H_
