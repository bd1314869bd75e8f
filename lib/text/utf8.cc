#include "lib/text/utf8.h"

namespace assisted::text {

bool NextCodePoint(absl::string_view text, size_t* pos, uint32_t* code_point) {
  const auto lead = static_cast<uint8_t>(text[*pos]);
  size_t extra = 0;
  uint32_t min = 0;
  if (lead < 0x80) {
    *code_point = lead;
  } else if ((lead & 0xe0) == 0xc0) {
    extra = 1, min = 0x80, *code_point = lead & 0x1f;
  } else if ((lead & 0xf0) == 0xe0) {
    extra = 2, min = 0x800, *code_point = lead & 0x0f;
  } else if ((lead & 0xf8) == 0xf0) {
    extra = 3, min = 0x10000, *code_point = lead & 0x07;
  } else {
    return false;
  }
  if (*pos + extra >= text.size() && extra > 0) return false;
  for (size_t i = 1; i <= extra; ++i) {
    const auto next = static_cast<uint8_t>(text[*pos + i]);
    if ((next & 0xc0) != 0x80) return false;
    *code_point = (*code_point << 6) | (next & 0x3f);
  }
  *pos += 1 + extra;
  return *code_point >= min && *code_point <= 0x10ffff &&
         !(*code_point >= 0xd800 && *code_point <= 0xdfff);
}

bool IsValidUtf8(absl::string_view text) {
  size_t pos = 0;
  uint32_t code_point = 0;
  while (pos < text.size()) {
    if (!NextCodePoint(text, &pos, &code_point)) return false;
  }
  return true;
}

bool IsControlCharacter(uint32_t code_point) {
  return code_point < 0x20 || (code_point >= 0x7f && code_point <= 0x9f);
}

bool IsPrintableUtf8(absl::string_view text) {
  size_t pos = 0;
  uint32_t code_point = 0;
  while (pos < text.size()) {
    if (!NextCodePoint(text, &pos, &code_point) || IsControlCharacter(code_point)) return false;
  }
  return true;
}

}  // namespace assisted::text
