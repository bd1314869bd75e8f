// File: lib/status/status_macros.h
//
// Early-return helpers for absl::Status and absl::StatusOr, which Abseil 20220623 lacks.
//
//   RETURN_IF_ERROR(store.Put(key, value));
//   ASSIGN_OR_RETURN(Cluster cluster, store.GetCluster(id));
//
// Both evaluate their argument exactly once and return the error unchanged.

#ifndef ASSISTED_LIB_STATUS_STATUS_MACROS_H_
#define ASSISTED_LIB_STATUS_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define ASSISTED_STATUS_CONCAT_INNER_(a, b) a##b
#define ASSISTED_STATUS_CONCAT_(a, b) ASSISTED_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function with the status of `expr` when it is not OK.
// `expr` yields an absl::Status.
#define RETURN_IF_ERROR(expr)                                               \
  do {                                                                      \
    if (::absl::Status assisted_status_ = (expr); !assisted_status_.ok()) { \
      return assisted_status_;                                              \
    }                                                                       \
  } while (false)

// Evaluates `rexpr` (an absl::StatusOr<T>); on error returns its status, otherwise declares or
// assigns `lhs` from the moved value. `lhs` may be a declaration such as `auto x` or `T x`.
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  ASSIGN_OR_RETURN_IMPL_(ASSISTED_STATUS_CONCAT_(assisted_statusor_, __LINE__), lhs, rexpr)

#define ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                           \
  if (!statusor.ok()) {                              \
    return std::move(statusor).status();             \
  }                                                  \
  lhs = *std::move(statusor)

#endif  // ASSISTED_LIB_STATUS_STATUS_MACROS_H_
