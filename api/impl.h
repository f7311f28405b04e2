// What the public classes of include/talon/talon.h hold: the runtime's Simulator and world
// batch. Only api/*.cpp see this header (and through it the internal layers).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "runtime/simulator.h"
#include "talon/talon.h"

namespace talon::api {

struct Simulator::Impl {
  // The names and notes a host reads, taken from the simulator and what loading it said.
  Impl(talon::Simulator simulator, const Diagnostics& diagnostics);

  // Shared with every Worlds made from it, so worlds never outlive the loaded library.
  std::shared_ptr<const talon::Simulator> sim;
  std::vector<std::string> body_names, control_names, param_names, notes;
};

struct Worlds::Impl {
  std::shared_ptr<const talon::Simulator> sim;
  runtime::WorldBatch batch;
};

struct Rollout::Impl {
  std::shared_ptr<const talon::Simulator> sim;
  RolloutTape tape;
};

// The errors of `diagnostics`, one formatted line each (notes are left out).
inline Error error_from(const Diagnostics& diagnostics) {
  Error error;
  for (const Diagnostic& d : diagnostics.items())
    if (d.severity == Severity::Error) error.message += d.format() + "\n";
  return error;
}

}  // namespace talon::api
