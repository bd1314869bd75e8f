// File: lib/grpc/identity.h
//
// How a trusted front end (the gateway) tells backend services on whose behalf it calls: gRPC
// metadata with the authenticated user and organisation. A call without them comes from another
// service and is not tenant-scoped. Backends must therefore only be reachable by the project's
// own services, never directly by users: their listeners are internal (lib/grpc/server.h), on
// loopback or requiring a client certificate of the internal CA (--tls-client-ca), so no peer
// without one ever gets to send this metadata (docs/security.md, "Trust rule").
//
// Names come from user tokens and may hold any characters ("José"), but gRPC metadata values
// must be printable ASCII (the C++ API aborts the process on anything else). So values travel
// percent-encoded: every byte outside 0x20-0x7e, and '%' itself, as %XX (upper-case hex). Plain
// ASCII names without '%' look on the wire exactly as they are.

#ifndef ASSISTED_LIB_GRPC_IDENTITY_H_
#define ASSISTED_LIB_GRPC_IDENTITY_H_

#include <string>

#include "absl/strings/string_view.h"
#include "grpcpp/client_context.h"
#include "grpcpp/server_context.h"

namespace assisted::grpcutil {

inline constexpr char kUserMetadata[] = "x-assisted-user";
inline constexpr char kOrgMetadata[] = "x-assisted-org";

struct Identity {
  std::string user;
  std::string org;
  // True when neither user nor org was sent: a service-to-service call.
  bool system() const { return user.empty() && org.empty(); }
};

// Adds `identity` to an outgoing call, encoded (any bytes are safe).
void SetIdentity(grpc::ClientContext& context, const Identity& identity);

// Reads the identity of an incoming call, decoded.
Identity GetIdentity(const grpc::ServerContextBase& context);

// `value` as a legal metadata value: printable ASCII, '%' and every other byte as %XX.
std::string EncodeIdentityValue(absl::string_view value);

// The inverse of EncodeIdentityValue. A '%' not followed by two hex digits is kept as it is:
// only the project's own services send identities, and guessing at a malformed one could
// only turn it into a different name.
std::string DecodeIdentityValue(absl::string_view value);

}  // namespace assisted::grpcutil

#endif  // ASSISTED_LIB_GRPC_IDENTITY_H_
