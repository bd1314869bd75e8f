// File: lib/text/utf8.h
//
// UTF-8 checks for text that crosses a trust boundary (REST requests, token claims, names that
// become metadata or Ignition): strict RFC 3629, so stray or missing continuation bytes,
// overlong forms, surrogates and code points above U+10FFFF are all invalid. Pure functions,
// safe on any bytes.

#ifndef ASSISTED_LIB_TEXT_UTF8_H_
#define ASSISTED_LIB_TEXT_UTF8_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace assisted::text {

// Decodes the UTF-8 sequence at text[*pos] (which must be < text.size()) into *code_point and
// moves *pos past it; false on anything RFC 3629 forbids.
bool NextCodePoint(absl::string_view text, size_t* pos, uint32_t* code_point);

// Whether `text` is entirely valid UTF-8.
bool IsValidUtf8(absl::string_view text);

// C0 (U+0000-U+001F), DEL and C1 (U+0080-U+009F) control characters.
bool IsControlCharacter(uint32_t code_point);

// Valid UTF-8 without control characters: fit to show, log or forward as a name.
bool IsPrintableUtf8(absl::string_view text);

}  // namespace assisted::text

#endif  // ASSISTED_LIB_TEXT_UTF8_H_
