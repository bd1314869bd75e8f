// File: services/agent/hardware/sanitize.h
//
// Makes a collected message safe to send. Text read from a machine is whatever firmware and
// drivers wrote: DMI strings in Latin-1, garbage from a broken EEPROM, a kilobyte-long model
// name. Proto3 string fields must be UTF-8 (a receiver rejects the whole message otherwise), and
// one runaway attribute must not make an inventory too large to send.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_SANITIZE_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_SANITIZE_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace assisted::agent::hardware {

// `text` with every byte that is not part of a well-formed UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF) replaced by U+FFFD.
std::string ValidUtf8(absl::string_view text);

// Makes every string field of `message` and of the messages inside it valid UTF-8, and cuts
// those longer than `max_bytes` (at a character boundary). Returns how many fields were cut.
int SanitizeStrings(google::protobuf::Message* message, size_t max_bytes);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_SANITIZE_H_
