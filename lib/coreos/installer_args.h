// File: lib/coreos/installer_args.h
//
// A host's installer_args: the coreos-installer arguments this product applies when it writes
// the installation disk (services/agent/steps/install.h), a subset of the reference's allow-list
// (--append-karg, --delete-karg, -n/--copy-network, --network-dir; not --save-partlabel,
// --save-partindex, --image-url, --image-file). The orchestrator checks a user's arguments with
// the same parser the agent applies them with, so what is accepted is what gets applied.
//
//   ASSIGN_OR_RETURN(InstallerArgs args, ParseInstallerArgs({"--append-karg", "nosmt"}));

#ifndef ASSISTED_LIB_COREOS_INSTALLER_ARGS_H_
#define ASSISTED_LIB_COREOS_INSTALLER_ARGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace assisted::coreos {

// The installer_args the install step applies, as coreos-installer would.
struct InstallerArgs {
  std::vector<std::string> append_kargs;                               // --append-karg ARG
  std::vector<std::string> delete_kargs;                               // --delete-karg ARG
  bool copy_network = false;                                           // --copy-network, -n
  std::string network_dir = "/etc/NetworkManager/system-connections";  // --network-dir DIR
};

// Values come as "--flag value" or "--flag=value"; a kernel argument is one word (no blanks,
// quotes, backslashes, '$' or ';'). INVALID_ARGUMENT "installer_args: ..." naming an
// unsupported, incomplete or malformed argument.
absl::StatusOr<InstallerArgs> ParseInstallerArgs(const std::vector<std::string>& args);

}  // namespace assisted::coreos

#endif  // ASSISTED_LIB_COREOS_INSTALLER_ARGS_H_
