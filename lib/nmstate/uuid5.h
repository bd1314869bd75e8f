// File: lib/nmstate/uuid5.h
//
// Name-based UUIDs (RFC 4122 version 5, SHA-1): the same name always gives the same UUID, so a
// generated NetworkManager profile keeps its connection.uuid from one image to the next.

#ifndef ASSISTED_LIB_NMSTATE_UUID5_H_
#define ASSISTED_LIB_NMSTATE_UUID5_H_

#include <string>

#include "absl/strings/string_view.h"

namespace assisted::nmstate {

// The version-5 UUID of `name` in `name_space` (a UUID in canonical text form, e.g. RFC 4122's
// DNS namespace "6ba7b810-9dad-11d1-80b4-00c04fd430c8"), as lower-case canonical text. An
// unparsable `name_space` is a programming error: it is treated as the nil UUID.
std::string Uuid5(absl::string_view name_space, absl::string_view name);

}  // namespace assisted::nmstate

#endif  // ASSISTED_LIB_NMSTATE_UUID5_H_
