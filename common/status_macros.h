// Status propagation macros missing from Debian's Abseil 20220623.
#ifndef TOPORR_COMMON_STATUS_MACROS_H_
#define TOPORR_COMMON_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TOPORR_STATUS_CONCAT_INNER_(a, b) a##b
#define TOPORR_STATUS_CONCAT_(a, b) TOPORR_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` (an absl::Status) is not OK.
#define RETURN_IF_ERROR(expr)                        \
  do {                                               \
    ::absl::Status toporr_status_ = (expr);          \
    if (!toporr_status_.ok()) return toporr_status_; \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, F())` / `ASSIGN_OR_RETURN(x, F())`: unwraps a StatusOr or
// returns its error from the enclosing function.
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  TOPORR_ASSIGN_OR_RETURN_IMPL_(TOPORR_STATUS_CONCAT_(toporr_statusor_, __LINE__), lhs, rexpr)

#define TOPORR_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                  \
  if (!statusor.ok()) return std::move(statusor).status();  \
  lhs = std::move(statusor).value()

#endif  // TOPORR_COMMON_STATUS_MACROS_H_
