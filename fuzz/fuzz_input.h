// File: fuzz/fuzz_input.h
//
// Carving one fuzzer input into the arguments of the code under test. libFuzzer mutates bytes,
// so each target reads a few leading bytes as choices (which step type, which mode) and the
// rest as text; a choice byte taken from an exhausted input reads as 0, so every input is valid.
// Works with gcc too (clang's FuzzedDataProvider does not), which the replay tests need.
//
//   FuzzInput in(data, size);
//   const int mode = in.Byte() % 3;
//   absl::string_view header = in.Line();   // up to the next '\n'
//   absl::string_view rest = in.Rest();

#ifndef ASSISTED_FUZZ_FUZZ_INPUT_H_
#define ASSISTED_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace assisted::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : text_(reinterpret_cast<const char*>(data), size) {}

  // The next byte, or 0 when the input is exhausted.
  uint8_t Byte() {
    if (text_.empty()) return 0;
    const uint8_t byte = static_cast<uint8_t>(text_[0]);
    text_.remove_prefix(1);
    return byte;
  }

  // The text up to the next '\n' (which is consumed), or all that is left.
  absl::string_view Line() {
    const size_t end = text_.find('\n');
    absl::string_view line = text_.substr(0, end);
    text_.remove_prefix(end == absl::string_view::npos ? text_.size() : end + 1);
    return line;
  }

  // Everything not read yet.
  absl::string_view Rest() {
    absl::string_view rest = text_;
    text_ = {};
    return rest;
  }

 private:
  absl::string_view text_;
};

}  // namespace assisted::fuzz

#endif  // ASSISTED_FUZZ_FUZZ_INPUT_H_
