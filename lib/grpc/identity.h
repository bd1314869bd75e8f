// File: lib/grpc/identity.h
//
// How a trusted front end (the gateway) tells backend services on whose behalf it calls: gRPC
// metadata with the authenticated user and organisation. A call without them comes from another
// service and is not tenant-scoped. Backends must therefore only be reachable by the project's
// own services (mutual TLS, see --tls-client-ca), never directly by users.

#ifndef ASSISTED_LIB_GRPC_IDENTITY_H_
#define ASSISTED_LIB_GRPC_IDENTITY_H_

#include <string>

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

// Adds `identity` to an outgoing call.
inline void SetIdentity(grpc::ClientContext& context, const Identity& identity) {
  if (!identity.user.empty()) context.AddMetadata(kUserMetadata, identity.user);
  if (!identity.org.empty()) context.AddMetadata(kOrgMetadata, identity.org);
}

// Reads the identity of an incoming call.
inline Identity GetIdentity(const grpc::ServerContextBase& context) {
  Identity identity;
  const auto& metadata = context.client_metadata();
  if (auto it = metadata.find(kUserMetadata); it != metadata.end()) {
    identity.user.assign(it->second.data(), it->second.size());
  }
  if (auto it = metadata.find(kOrgMetadata); it != metadata.end()) {
    identity.org.assign(it->second.data(), it->second.size());
  }
  return identity;
}

}  // namespace assisted::grpcutil

#endif  // ASSISTED_LIB_GRPC_IDENTITY_H_
