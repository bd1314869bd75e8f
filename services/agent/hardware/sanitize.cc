// File: services/agent/hardware/sanitize.cc

#include "services/agent/hardware/sanitize.h"

#include <cstdint>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/reflection.h"

namespace assisted::agent::hardware {
namespace {

constexpr absl::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool Continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the well-formed sequence starting at text[i], or 0.
size_t SequenceLength(absl::string_view text, size_t i) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const size_t left = text.size() - i;
  const unsigned char c = at(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return left >= 2 && Continuation(at(1)) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (left < 3 || !Continuation(at(1)) || !Continuation(at(2))) return 0;
    if (c == 0xE0 && at(1) < 0xA0) return 0;   // overlong
    if (c == 0xED && at(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (left < 4 || !Continuation(at(1)) || !Continuation(at(2)) || !Continuation(at(3))) return 0;
    if (c == 0xF0 && at(1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && at(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

// Cuts `text` to at most `max_bytes` without splitting a character (text is valid UTF-8).
bool Cut(std::string* text, size_t max_bytes) {
  if (text->size() <= max_bytes) return false;
  size_t end = max_bytes;
  while (end > 0 && Continuation(static_cast<unsigned char>((*text)[end]))) --end;
  text->resize(end);
  return true;
}

}  // namespace

std::string ValidUtf8(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t length = SequenceLength(text, i);
    if (length == 0) {
      out.append(kReplacement.data(), kReplacement.size());
      ++i;
    } else {
      out.append(text.data() + i, length);
      i += length;
    }
  }
  return out;
}

int SanitizeStrings(google::protobuf::Message* message, size_t max_bytes) {
  int cut = 0;
  const google::protobuf::Reflection* reflection = message->GetReflection();
  const google::protobuf::Descriptor* descriptor = message->GetDescriptor();
  const auto fix = [&](std::string text) {
    text = ValidUtf8(text);
    if (Cut(&text, max_bytes)) ++cut;
    return text;
  };
  for (int f = 0; f < descriptor->field_count(); ++f) {
    const google::protobuf::FieldDescriptor* field = descriptor->field(f);
    if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_STRING) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(*message, field); ++i) {
          reflection->SetRepeatedString(message, field, i,
                                        fix(reflection->GetRepeatedString(*message, field, i)));
        }
      } else if (reflection->HasField(*message, field) || !field->has_presence()) {
        reflection->SetString(message, field, fix(reflection->GetString(*message, field)));
      }
    } else if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(*message, field); ++i) {
          cut += SanitizeStrings(reflection->MutableRepeatedMessage(message, field, i), max_bytes);
        }
      } else if (reflection->HasField(*message, field)) {
        cut += SanitizeStrings(reflection->MutableMessage(message, field), max_bytes);
      }
    }
  }
  return cut;
}

}  // namespace assisted::agent::hardware
