// File: lib/enums/spelling.h
//
// The one place where proto enum values get their text. Every service and tool that shows or
// reads an enum as a string (the REST API and its change stream, aictl, the orchestrator's
// status messages, step ids, events and generated docs) spells it here, so the same value never
// reads two ways.
//
// The spelling is the reference API's (assisted-service v2): derived by rule from the proto value
// name, minus the enum's prefix ("HOST_STATUS_PENDING_FOR_INPUT" -> "pending-for-input";
// stages read as sentences: "HOST_STAGE_WRITING_IMAGE_TO_DISK" -> "Writing image to disk"),
// except for the values the reference spells otherwise ("OVNKubernetes", "AddHostsCluster"),
// which are listed in spelling.cc. The UNSPECIFIED value (number 0) spells as "".
//
// Databases and logs that store proto value names (EventSeverity_Name, ...) are a different,
// deliberate spelling and do not use this file.
//
// Thread-safe. The returned references stay valid for the life of the process.

#ifndef ASSISTED_LIB_ENUMS_SPELLING_H_
#define ASSISTED_LIB_ENUMS_SPELLING_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/generated_enum_reflection.h"

namespace assisted::enums {

// The text of `value` ("pending-for-input"); "" for the UNSPECIFIED value.
const std::string& EnumText(const google::protobuf::EnumValueDescriptor& value);

// The text of a generated enum's value; "" for UNSPECIFIED and for a number the enum does not
// name (proto3 enums are open: a newer peer may send one).
template <typename E>
const std::string& EnumText(E value);

// As EnumText, but a number the enum does not name reads "unknown": for messages and docs, where
// an empty word would hide that something unexpected arrived.
template <typename E>
absl::string_view EnumTextOrUnknown(E value);

// The value of `type` whose text is `text` (UNSPECIFIED is never matched); INVALID_ARGUMENT
// "<field>: must be one of "a", "b", ..." otherwise.
absl::StatusOr<int> EnumFromText(const google::protobuf::EnumDescriptor& type,
                                 absl::string_view text, absl::string_view field);

// ---- implementation ----

namespace internal {
const std::string& Empty();
}  // namespace internal

template <typename E>
const std::string& EnumText(E value) {
  const google::protobuf::EnumValueDescriptor* v =
      google::protobuf::GetEnumDescriptor<E>()->FindValueByNumber(static_cast<int>(value));
  return v == nullptr ? internal::Empty() : EnumText(*v);
}

template <typename E>
absl::string_view EnumTextOrUnknown(E value) {
  const google::protobuf::EnumValueDescriptor* v =
      google::protobuf::GetEnumDescriptor<E>()->FindValueByNumber(static_cast<int>(value));
  if (v == nullptr) return "unknown";
  return EnumText(*v);
}

}  // namespace assisted::enums

#endif  // ASSISTED_LIB_ENUMS_SPELLING_H_
