// File: lib/json/bounded.h
//
// The gate in front of every parse of untrusted JSON. nlohmann::json (and most JSON code) walks
// nested arrays and objects recursively when it serialises, compares or reads them, so one
// document of a few hundred kilobytes of "[[[[..." overflows the stack of whoever touches it.
// CheckJsonBounds scans the text once, without recursion and without building anything, and
// refuses it when it is longer or nests deeper than the caller allows. It checks no grammar:
// the parser that runs afterwards still decides whether the text is JSON.
//
//   RETURN_IF_ERROR(untrusted::CheckJsonBounds(result.output(), "step_result.output",
//                                         {.max_bytes = 1 << 20, .max_depth = 64}));
//   nlohmann::json document = nlohmann::json::parse(result.output(), nullptr, false);

#ifndef ASSISTED_LIB_JSON_BOUNDED_H_
#define ASSISTED_LIB_JSON_BOUNDED_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace assisted::untrusted {

struct JsonBounds {
  size_t max_bytes = 1 << 20;  // length of the text
  int max_depth = 64;          // arrays and objects open at once
};

// OK when `text` is at most `bounds.max_bytes` long and never has more than `bounds.max_depth`
// arrays/objects open at once (brackets inside strings do not count). INVALID_ARGUMENT
// otherwise, the message starting with `field` (the caller's name for the text, e.g.
// "step_result.output") and saying which limit it broke. O(size), no allocation.
absl::Status CheckJsonBounds(absl::string_view text, absl::string_view field,
                             JsonBounds bounds = {});

}  // namespace assisted::untrusted

#endif  // ASSISTED_LIB_JSON_BOUNDED_H_
