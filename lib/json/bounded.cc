#include "lib/json/bounded.h"

#include "absl/strings/str_cat.h"

namespace assisted::untrusted {

absl::Status CheckJsonBounds(absl::string_view text, absl::string_view field, JsonBounds bounds) {
  if (text.size() > bounds.max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", text.size(), " bytes, more than the limit of ", bounds.max_bytes));
  }
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > bounds.max_depth) {
          return absl::InvalidArgumentError(absl::StrCat(
              field, ": nested deeper than the limit of ", bounds.max_depth, " levels"));
        }
        break;
      case ']':
      case '}':
        // Unbalanced closers are the parser's to refuse; they must not buy extra depth.
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return absl::OkStatus();
}

}  // namespace assisted::untrusted
