#include "lib/coreos/installer_args.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"

namespace assisted::coreos {
namespace {

absl::Status CheckKernelArgument(const std::string& karg) {
  if (karg.empty() || karg.find_first_of(" \t\n\"'\\$;") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("installer_args: kernel argument \"", karg, "\" is not a single word"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<InstallerArgs> ParseInstallerArgs(const std::vector<std::string>& args) {
  InstallerArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    // "--flag value" or "--flag=value".
    auto value = [&](absl::string_view flag) -> absl::StatusOr<std::string> {
      if (absl::StartsWith(arg, absl::StrCat(flag, "="))) return arg.substr(flag.size() + 1);
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(absl::StrCat("installer_args: ", flag, " needs a value"));
      }
      return args[++i];
    };
    if (arg == "--append-karg" || absl::StartsWith(arg, "--append-karg=")) {
      ASSIGN_OR_RETURN(std::string karg, value("--append-karg"));
      RETURN_IF_ERROR(CheckKernelArgument(karg));
      parsed.append_kargs.push_back(std::move(karg));
    } else if (arg == "--delete-karg" || absl::StartsWith(arg, "--delete-karg=")) {
      ASSIGN_OR_RETURN(std::string karg, value("--delete-karg"));
      RETURN_IF_ERROR(CheckKernelArgument(karg));
      parsed.delete_kargs.push_back(std::move(karg));
    } else if (arg == "--copy-network" || arg == "-n") {
      parsed.copy_network = true;
    } else if (arg == "--network-dir" || absl::StartsWith(arg, "--network-dir=")) {
      ASSIGN_OR_RETURN(parsed.network_dir, value("--network-dir"));
      if (!absl::StartsWith(parsed.network_dir, "/")) {
        return absl::InvalidArgumentError(absl::StrCat(
            "installer_args: --network-dir \"", parsed.network_dir, "\" is not an absolute path"));
      }
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("installer_args: \"", arg,
                       "\" is not supported (--append-karg, --delete-karg, --copy-network, "
                       "--network-dir)"));
    }
  }
  return parsed;
}

}  // namespace assisted::coreos
