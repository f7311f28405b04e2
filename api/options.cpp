#include "api/options.h"

#include <cmath>

#include "api/impl.h"
#include "frontend/scene_options.h"

namespace talon::api {
namespace {

// Copies each setting that is set into `target` and notes those out of range in `problems`.
class SettingCopier {
 public:
  // The ranges are the command's (cli/solver_args.cpp); the generated code sizes its Krylov
  // bases and substep stack by these.
  void count(const std::optional<int>& value, int minimum, int maximum, const char* name,
             int& target) {
    if (!value) return;
    if (*value < minimum || *value > maximum)
      problems_ += std::string("error: solver.") + name + " must be in [" +
                   std::to_string(minimum) + ", " + std::to_string(maximum) + "], not " +
                   std::to_string(*value) + "\n";
    target = *value;
  }
  void positive(const std::optional<double>& value, const char* name, double& target) {
    if (!value) return;
    if (!(*value > 0 && std::isfinite(*value)))
      problems_ += std::string("error: solver.") + name + " must be a positive number\n";
    target = *value;
  }
  const std::string& problems() const { return problems_; }

 private:
  std::string problems_;
};

}  // namespace

Result<SimulatorOptions> simulator_options(const Options& options) {
  SimulatorOptions out;
  if (options.gradients) out.solver = gradient_solver_options();
  const SolverSettings& s = options.solver;
  codegen::SolverOptions& solver = out.solver;
  SettingCopier copy;
  copy.count(s.newton_iterations, 1, 10000, "newton_iterations", solver.newton_iterations);
  copy.count(s.pcr_iterations, 1, 100000, "pcr_iterations", solver.pcr_iterations);
  copy.count(s.krylov_iterations, 1, 1000, "krylov_iterations", solver.krylov_iterations);
  copy.count(s.dense_rows, 0, 4096, "dense_rows", solver.dense_rows);
  copy.positive(s.krylov_tolerance, "krylov_tolerance", solver.krylov_tolerance);
  copy.count(s.line_search_steps, 0, 60, "line_search_steps", solver.line_search_steps);
  copy.count(s.max_substep_depth, 0, 8, "max_substep_depth", solver.max_substep_depth);
  copy.positive(s.convergence_tolerance, "convergence_tolerance", solver.convergence_tolerance);
  if (s.resolve_split_steps) solver.resolve_split_steps = *s.resolve_split_steps;
  if (s.broadphase) solver.broadphase = *s.broadphase;
  if (options.gradients) {
    copy.count(s.adjoint_iterations, 1, 1000, "adjoint_iterations", solver.adjoint_iterations);
    copy.positive(s.adjoint_tolerance, "adjoint_tolerance", solver.adjoint_tolerance);
  } else if (s.adjoint_iterations || s.adjoint_tolerance) {
    return Error{"error: solver.adjoint_* set without Options::gradients\n"};
  }
  if (options.threads < 0) return Error{"error: threads must be 0 (automatic) or more\n"};
  if (!copy.problems().empty()) return Error{copy.problems()};
  out.threads = options.threads;
  if (!options.cache_directory.empty()) out.cache.directory = options.cache_directory;
  return out;
}

Result<LoadOptions> load_options(const Options& options) {
  LoadOptions out;
  out.floating_base = options.floating_base;
  out.package_paths = options.package_paths;
  out.ground = options.ground;
  out.terrain = options.terrain;
  if (options.base_pos)
    out.base_pos = Vec3((*options.base_pos)[0], (*options.base_pos)[1], (*options.base_pos)[2]);
  for (const std::string& text : options.actuate) {
    Expected<JointServo> servo = parse_joint_servo(text);
    if (!servo) return error_from(servo.diagnostics());
    out.servos.push_back(*servo);
  }
  return out;
}

}  // namespace talon::api
