// Expected<T>: a value, or the diagnostics that explain why there is none.
// The return type of every function at a user-input boundary (readers, compile, JIT).
#pragma once

#include <optional>
#include <utility>

#include "common/diagnostics.h"

namespace talon {

template <class T>
class Expected {
 public:
  Expected(T value, Diagnostics diagnostics = {})  // NOLINT(google-explicit-constructor)
      : value_(std::move(value)), diagnostics_(std::move(diagnostics)) {}
  Expected(Diagnostics diagnostics)  // NOLINT(google-explicit-constructor)
      : diagnostics_(std::move(diagnostics)) {
    TALON_INTERNAL_ASSERT(diagnostics_.has_errors(), "an Expected without a value needs an error");
  }

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }

  T& value() {
    TALON_INTERNAL_ASSERT(ok(), "value() of a failed Expected");
    return *value_;
  }
  const T& value() const {
    TALON_INTERNAL_ASSERT(ok(), "value() of a failed Expected");
    return *value_;
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }

  // Errors when !ok(); notes in either case.
  const Diagnostics& diagnostics() const { return diagnostics_; }

 private:
  std::optional<T> value_;
  Diagnostics diagnostics_;
};

}  // namespace talon
