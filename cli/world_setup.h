// Setting up worlds from command-line arguments (`talon simulate`, `talon gradient`).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/expected.h"
#include "runtime/control_table.h"
#include "runtime/simulator.h"

namespace talon::cli {

// Every world starts from keyframe `name` (its qpos/qvel mapped to maximal coordinates, its
// ctrl); an empty name leaves the reference pose at rest. Errors for an unknown keyframe.
Expected<int> apply_keyframe(const Simulator& sim, const std::string& name,
                             runtime::WorldBatch& worlds);

// A command's Simulator and its --ctrl table (null when no file was given).
struct CliSimulation {
  Simulator sim;
  std::unique_ptr<runtime::ControlTable> controls;
};

// Reads `ctrl_file` (if not empty) against the model, then compiles the model into a
// Simulator with `solver` stepping its worlds on `threads` threads (0: one per hardware
// thread); prints the diagnostics of both (notes only when !quiet_notes). nullopt after an
// error (already printed).
std::optional<CliSimulation> create_simulation(Model model, const std::string& ctrl_file,
                                               const codegen::SolverOptions& solver,
                                               bool quiet_notes, int threads = 0);

}  // namespace talon::cli
