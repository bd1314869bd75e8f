// File: lib/nmstate/nmcli_offline.h
//
// Test helper: NetworkManager's own reading of a keyfile. `nmcli --offline connection modify`
// (NetworkManager 1.42+, Debian package network-manager, no daemon needed) parses a keyfile from
// stdin and prints it back normalised, or fails with "Error: ...". Its parser drops unknown keys
// and fixes some bad values silently, so tests compare its output with what was written.
// Tests using it start a process and are tagged "external".

#ifndef ASSISTED_LIB_NMSTATE_NMCLI_OFFLINE_H_
#define ASSISTED_LIB_NMSTATE_NMCLI_OFFLINE_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::nmstate {

// "section.key" -> value of a keyfile's text (no escapes, no groups repeated).
using KeyfileValues = std::map<std::string, std::string>;
KeyfileValues ParseKeyfileValues(absl::string_view text);

// The keyfile as NetworkManager normalises it (after setting connection.autoconnect=yes).
// INVALID_ARGUMENT with nmcli's message when NetworkManager rejects it.
absl::StatusOr<KeyfileValues> NmcliNormalise(absl::string_view keyfile);

}  // namespace assisted::nmstate

#endif  // ASSISTED_LIB_NMSTATE_NMCLI_OFFLINE_H_
