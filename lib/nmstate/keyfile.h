// File: lib/nmstate/keyfile.h
//
// NMState → NetworkManager keyfiles, the job `nmstatectl gc` does for assisted-service, for the
// subset in network_state.h. One profile per configured interface (plus a plain ethernet profile
// for each bond/bridge port the document names without describing), readable by NetworkManager
// 1.42 and later (controller and port are written as connection.master / slave-type).
//
//   ASSIGN_OR_RETURN(std::vector<Keyfile> keyfiles, NmStateToKeyfiles(host.network_yaml()));
//   for (const Keyfile& k : keyfiles) write(dir + "/" + k.file_name, k.contents, 0600);
//
// NMState's resolver and routes are global while NetworkManager keeps them per profile:
// - a route goes to the profile of its next-hop-interface; a default route of the main table
//   without metric becomes the gateway of that profile's first static address;
// - DNS servers of a family go to the interface holding that family's default route, else to the
//   first interface with that family enabled; search domains go with the IPv4 servers (else the
//   IPv6 ones, else the first interface with IP); a dynamic profile given static servers ignores
//   the DHCP/RA ones unless auto-dns says otherwise.
// Every profile has autoconnect=true (false for state: down) and autoconnect-priority=1, as the
// reference's discovery images do, and a connection.uuid derived from the interface name.

#ifndef ASSISTED_LIB_NMSTATE_KEYFILE_H_
#define ASSISTED_LIB_NMSTATE_KEYFILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/nmstate/network_state.h"

namespace assisted::nmstate {

struct Keyfile {
  std::string interface_name;
  std::string file_name;  // "<interface_name>.nmconnection"
  std::string contents;   // keyfile text; install it with mode 0600
};

// The connection.uuid of the profile for `interface_name`: UUIDv5 in a namespace of our own.
std::string ConnectionUuid(absl::string_view interface_name);

// Keyfiles for a state from ParseNetworkState, sorted by file name.
std::vector<Keyfile> ToKeyfiles(const NetworkState& state);

// ParseNetworkState + ToKeyfiles: INVALID_ARGUMENT naming the YAML path for bad input.
absl::StatusOr<std::vector<Keyfile>> NmStateToKeyfiles(absl::string_view yaml);

}  // namespace assisted::nmstate

#endif  // ASSISTED_LIB_NMSTATE_KEYFILE_H_
