// File: fuzz/nmstate_fuzzer.cc
//
// NMState YAML (lib/nmstate), which users give per host for static networking and which ends up
// as NetworkManager keyfiles in the discovery image: ParseNetworkState then ToKeyfiles.
// Input: the YAML document.
//
// Besides "no crash", it checks what the keyfiles' consumers rely on: every file name is
// "<interface name>.nmconnection" for a name IsInterfaceName accepts (no path separators), and
// every line is empty, a [section] or key=value with a plain key: a value holding a newline
// cannot smuggle in a line of its own.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "lib/nmstate/keyfile.h"
#include "lib/nmstate/network_state.h"

namespace {

bool IsKeyfileLine(absl::string_view line) {
  if (line.empty()) return true;
  if (line.front() == '[') return line.back() == ']';
  const size_t equals = line.find('=');
  if (equals == 0 || equals == absl::string_view::npos) return false;
  for (const char c : line.substr(0, equals)) {
    if (!absl::ascii_isalnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view yaml(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<assisted::nmstate::Keyfile>> keyfiles =
      assisted::nmstate::NmStateToKeyfiles(yaml);
  if (!keyfiles.ok()) return 0;
  for (const assisted::nmstate::Keyfile& keyfile : *keyfiles) {
    if (!assisted::nmstate::IsInterfaceName(keyfile.interface_name) ||
        keyfile.file_name != keyfile.interface_name + ".nmconnection" ||
        absl::StrContains(keyfile.contents, '\0') || absl::StrContains(keyfile.contents, '\r')) {
      std::abort();
    }
    for (absl::string_view line : absl::StrSplit(keyfile.contents, '\n')) {
      if (!IsKeyfileLine(line)) std::abort();
    }
  }
  return 0;
}
