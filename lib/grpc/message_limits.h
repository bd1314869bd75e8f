// File: lib/grpc/message_limits.h
//
// The one source of gRPC message size limits, so that whatever one service accepts every other
// can read back: the inventory stores artifacts (Ignition files, kubeconfigs, log bundles) of up
// to kMaxArtifactBytes, and every internal server and every channel (orchestrator, image,
// gateway reading them) allows messages of kMaxMessageBytes, an artifact plus its envelope.
// The agent-facing port takes less: agents are not trusted with 80 MiB buffers.

#ifndef ASSISTED_LIB_GRPC_MESSAGE_LIMITS_H_
#define ASSISTED_LIB_GRPC_MESSAGE_LIMITS_H_

#include <cstdint>

namespace assisted::grpcutil {

// Largest artifact the inventory stores (the upper bound of its --max-artifact-bytes).
inline constexpr int64_t kMaxArtifactBytes = int64_t{64} << 20;

// Largest message any internal server accepts or sends and any channel receives: one artifact
// with room for the resource around it.
inline constexpr int kMaxMessageBytes = static_cast<int>(kMaxArtifactBytes + (int64_t{16} << 20));

// Largest message the orchestrator's agent port accepts (agents send 1 MiB inventories and
// step outputs at most, see lib/json/bounded.h).
inline constexpr int kMaxAgentMessageBytes = 16 << 20;

}  // namespace assisted::grpcutil

#endif  // ASSISTED_LIB_GRPC_MESSAGE_LIMITS_H_
