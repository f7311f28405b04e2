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

// What the commands that step a model share: --ctrl, the solver, --param, --threads.
struct SimulationArgs {
  std::string ctrl_file;
  codegen::SolverOptions solver;
  std::vector<runtime::ParamOverride> params;
  int threads = 0;        // 0: one per hardware thread
  bool templates = true;  // ir::LowerOptions::pair_templates and joint_templates
};

// Reads `args.ctrl_file` (if not empty) against the model, then compiles the model into a
// Simulator with `args.solver` and `args.params` stepping its worlds on `args.threads`
// threads; prints the diagnostics of both (notes only when !quiet_notes). nullopt after an
// error (already printed).
std::optional<CliSimulation> create_simulation(Model model, const SimulationArgs& args,
                                               bool quiet_notes);

}  // namespace talon::cli
