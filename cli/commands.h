// The `talon` subcommands. Each adds itself to the CLI11 app; its callback stores the
// process exit status in `exit_code` (0 ok, 1 user error, 2 usage error).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "codegen/model_unit.h"
#include "common/expected.h"
#include "frontend/load.h"
#include "runtime/param_overrides.h"

namespace talon::cli {

// The options every command that reads a model shares.
struct ModelArgs {
  std::string path;
  bool floating_base = false;
  std::vector<std::string> package_paths;
  bool ground = false;
  std::optional<Vec3> base_pos;
  std::vector<JointServo> servos;
  std::string terrain;

  LoadOptions load_options() const {
    return {floating_base, package_paths, ground, base_pos, servos, terrain};
  }
};

void add_model_args(CLI::App& command, ModelArgs& args);

// Loads the model, printing diagnostics (errors, and notes unless `quiet_notes`) on stderr.
// Returns nullopt-like failure through Expected.
Expected<Model> load_for_cli(const ModelArgs& args, bool quiet_notes);

// --param NAME=VALUE (repeatable): parameters θ set by name (runtime/param_overrides.h); a
// malformed one is a usage error, an unknown name or invalid value an error when the model is
// compiled.
CLI::Option* add_param_args(CLI::App& command, std::vector<runtime::ParamOverride>& overrides);

// --templates / --no-templates (also spelled --pair-templates / --no-pair-templates):
// ir::LowerOptions::pair_templates and joint_templates (default on).
CLI::Option* add_templates_arg(CLI::App& command, bool& templates);

// --newton-iterations, --pcr-iterations, ... (group "Solver").
void add_solver_args(CLI::App& command, codegen::SolverOptions& solver);
// --adjoint-iterations, --adjoint-tolerance (group "Backward step"; their default for
// commands that differentiate: kDefaultAdjointIterations, runtime/simulator.h).
void add_adjoint_args(CLI::App& command, codegen::SolverOptions& solver);

// Prints diagnostics on stderr (errors always, warnings and notes unless quiet_notes).
void print_diagnostics(const Diagnostics& diagnostics, bool quiet_notes);

void add_inspect_command(CLI::App& app, int& exit_code);
void add_ir_command(CLI::App& app, int& exit_code);
void add_simulate_command(CLI::App& app, int& exit_code);
void add_compile_command(CLI::App& app, int& exit_code);
void add_gradcheck_command(CLI::App& app, int& exit_code);
void add_gradient_command(CLI::App& app, int& exit_code);
void add_cache_command(CLI::App& app, int& exit_code);

}  // namespace talon::cli
