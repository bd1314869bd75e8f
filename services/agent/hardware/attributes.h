// File: services/agent/hardware/attributes.h
//
// Reading the one-value files of sysfs and procfs leniently: a collector wants "the value, or
// nothing", since on real machines attributes come and go with drivers and firmware. Numbers
// that do not parse (or do not fit) count as missing, so corrupted trees never overflow.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_ATTRIBUTES_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_ATTRIBUTES_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

// The trimmed content of `path`, or "" when it cannot be read.
std::string ReadAttribute(const HostRoot& root, absl::string_view path);

// A decimal integer ("512", "-1"), surrounding whitespace allowed.
std::optional<int64_t> ParseDecimal(absl::string_view text);

// A hexadecimal integer with or without "0x" ("0x030000", "80000000").
std::optional<uint64_t> ParseHex(absl::string_view text);

// ParseDecimal of the attribute at `path`.
std::optional<int64_t> ReadDecimal(const HostRoot& root, absl::string_view path);

// Whether the attribute at `path` reads "1" (removable, rotational, ro, carrier...).
bool ReadFlag(const HostRoot& root, absl::string_view path);

// `a` × `b`, or nullopt when either is negative or the product does not fit in int64.
std::optional<int64_t> CheckedMultiply(int64_t a, int64_t b);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_ATTRIBUTES_H_
