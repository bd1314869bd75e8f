// File: lib/file/read_file.h
//
// Reading a whole (small) file: PEM bundles, keys, configuration documents.

#ifndef ASSISTED_LIB_FILE_READ_FILE_H_
#define ASSISTED_LIB_FILE_READ_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted {

// Returns the contents of `path`. INVALID_ARGUMENT naming `what` and the path when it can't be
// read, since a path almost always comes from a setting the user gave.
absl::StatusOr<std::string> ReadFile(const std::string& path, absl::string_view what);

}  // namespace assisted

#endif  // ASSISTED_LIB_FILE_READ_FILE_H_
