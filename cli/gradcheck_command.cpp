// `talon gradcheck MODEL --kernels`: every derivative kernel of the lowered model,
// evaluated with the reference interpreter at random valid states, against central finite
// differences of the residual (fourth-order Richardson estimates; entries at kinks are
// skipped and counted). Exit status 1 when the worst relative error exceeds the tolerance
// (1e-6 by default).
// `talon gradcheck MODEL --steps H`: the adjoint gradient of a whole rollout (a random linear
// loss of the final state) against central differences of the rollout
// (runtime/rollout_check.h); prints max_rel_error and the cosine similarity (tolerance 1e-2).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <random>

#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/usage.h"
#include "cli/world_setup.h"
#include "common/json.h"
#include "ir/lower/gradcheck.h"
#include "ir/lower/lower.h"
#include "runtime/control_table.h"
#include "runtime/rollout_check.h"

namespace talon::cli {
namespace {

struct GradcheckArgs {
  ModelArgs model;
  bool kernels = false;
  bool json = false;
  int samples = 3;
  uint64_t seed = 1;
  int max_columns = 64;
  double tolerance = -1;  // default: 1e-6 for --kernels, 1e-2 for --steps
  // --steps: whole rollouts
  int steps = 0;
  double dt = 0, epsilon = 1e-6;
  std::string keyframe, ctrl_file, wrt = "controls";
  bool templates = true;  // both modes
  codegen::SolverOptions solver;
  std::vector<runtime::ParamOverride> params;
};

void print_json(const ir::GradcheckReport& report, double tolerance) {
  JsonWriter json;
  json.begin_object();
  json.key("samples").value(report.samples);
  json.key("max_rel_error").value(report.max_rel_error);
  json.key("tolerance").value(tolerance);
  json.key("passed").value(report.max_rel_error <= tolerance);
  json.key("compared").value(report.compared);
  json.key("skipped").value(report.skipped);
  json.key("kernels").begin_object();
  for (const ir::KernelCheck& k : report.kernels) {
    json.key(k.kernel).begin_object();
    json.key("max_rel_error").value(k.max_rel_error);
    json.key("compared").value(k.compared);
    json.key("skipped").value(k.skipped);
    json.key("worst").value(k.worst);
    json.end_object();
  }
  json.end_object();
  json.end_object();
  std::cout << json.str() << '\n';
}

// The noise model (ir/lower/gradcheck.h), for --help.
constexpr const char* kNoiseModel = R"(How entries are compared:
  Each derivative is estimated by Richardson extrapolation of central differences at steps
  s, s/2, s/4 (s = 1e-3 of the input's scale; fourth-order, ~1e-10 relative accuracy).
  Relative error = max(0, |k - f| - noise - spread) / max(|k|, |f|, 1e-3 * M), with k the
  kernel's value, f the estimate, noise its rounding (100 eps |r| / step), spread the
  disagreement of the estimates from (s, s/2) and (s/2, s/4), and M the largest entry of the
  compared column (or of the gradient over the same input).
  Entries whose spread exceeds 1e-7 of their size sit within a step of a kink (max, min, abs,
  select switch): differencing cannot certify them, so they are skipped and counted
  ("skipped" in the report and in --json).)";

// The inputs --wrt names: every step's controls, every parameter, or the initial velocities
// and centre-of-mass positions.
std::vector<RolloutInput> rollout_inputs(const Simulator& sim, const GradcheckArgs& args) {
  std::vector<RolloutInput> out;
  if (args.wrt == "controls")
    for (int k = 0; k < args.steps; ++k)
      for (int a = 0; a < sim.nctrl(); ++a) out.push_back({RolloutInput::Ctrl, a, k, args.epsilon});
  if (args.wrt == "params")
    for (int i = 0; i < sim.nparam(); ++i)
      out.push_back({RolloutInput::Param, i, 0,
                     args.epsilon * std::max(1.0, std::abs(sim.default_params()[i]))});
  if (args.wrt == "initial-state") {
    for (int i = 0; i < sim.nv(); ++i) out.push_back({RolloutInput::U0, i, 0, args.epsilon});
    for (int b = 0; b < sim.nq() / 7; ++b)
      for (int i = 0; i < 3; ++i) out.push_back({RolloutInput::Q0, 7 * b + i, 0, args.epsilon});
  }
  return out;
}

int run_rollout(const GradcheckArgs& args) {
  Expected<Model> model = load_for_cli(args.model, args.json);
  if (!model) return 1;
  std::optional<CliSimulation> created = create_simulation(
      std::move(*model), {args.ctrl_file, args.solver, args.params, 0, args.templates}, args.json);
  if (!created) return 1;
  const Simulator* sim = &created->sim;
  const runtime::ControlTable* table = created->controls.get();
  runtime::WorldBatch start = sim->make_worlds(1);
  Expected<int> keyframe = apply_keyframe(*sim, args.keyframe, start);
  print_diagnostics(keyframe.diagnostics(), args.json);
  if (!keyframe) return 1;
  RolloutSetup setup;
  setup.h = args.dt > 0 ? args.dt : sim->model().timestep;
  setup.steps = args.steps;
  setup.initial = [&](runtime::WorldBatch& w, int i) {
    std::copy(start.q.begin(), start.q.end(), w.q_of(i).begin());
    std::copy(start.u.begin(), start.u.end(), w.u_of(i).begin());
    std::copy(start.ctrl.begin(), start.ctrl.end(), w.ctrl_of(i).begin());
  };
  // Two forward rollouts: the adjoint's (one world), then the differences' (a batch).
  CountProgress progress("talon gradcheck: rollout step", 2 * args.steps);
  int steps_done = 0;
  setup.controls = [&](int k, runtime::WorldBatch& w) {
    if (table)
      for (int i = 0; i < w.count; ++i) runtime::controls_at(*table, k, w.ctrl_of(i));
    progress.update(steps_done++);
  };
  // A random linear loss of the final state (like the kernel check's random cotangents).
  std::mt19937_64 rng(args.seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  for (int i = 0; i < sim->nq(); ++i) setup.wq.push_back(i % 7 < 3 ? unit(rng) : 0.0);
  for (int i = 0; i < sim->nv(); ++i) setup.wu.push_back(unit(rng));
  const std::vector<RolloutInput> inputs = rollout_inputs(*sim, args);
  Expected<RolloutCheck> check = check_rollout_gradients(*sim, setup, inputs);
  progress.finish();
  print_diagnostics(check.diagnostics(), args.json);
  if (!check) return 1;
  const double tolerance = args.tolerance > 0 ? args.tolerance : 1e-2;
  const double error = check->max_relative_error(), cosine = check->cosine();
  const bool passed = error <= tolerance;
  if (args.json) {
    JsonWriter json;
    json.begin_object();
    json.key("steps").value(args.steps);
    json.key("wrt").value(args.wrt);
    json.key("compared").value(static_cast<int>(inputs.size()));
    json.key("max_rel_error").value(error);
    json.key("cosine").value(cosine);
    json.key("tolerance").value(tolerance);
    json.key("passed").value(passed);
    json.key("unconverged_steps").value(check->unconverged_steps);
    json.key("labels").array(check->labels);
    json.key("adjoint").array(check->adjoint);
    json.key("difference").array(check->difference);
    json.end_object();
    std::cout << json.str() << '\n';
  } else {
    std::cout << "rollout of " << args.steps << " steps, gradient with respect to " << args.wrt
              << " (" << inputs.size() << " entries): max relative error " << error
              << ", cosine similarity " << cosine << ": " << (passed ? "PASS" : "FAIL")
              << " (tolerance " << tolerance << ")\n";
    if (check->unconverged_steps > 0)
      std::cout << check->unconverged_steps
                << " steps ended above the convergence tolerance (their gradients are those of "
                   "the returned iterate)\n";
  }
  return passed ? 0 : 1;
}

int run(const GradcheckArgs& args) {
  if (args.steps > 0) return run_rollout(args);
  if (!args.params.empty()) {
    std::cerr
        << "talon gradcheck: --param sets the parameters of a rollout (--steps H); "
           "--kernels checks the kernels at random states, parameters within 10 % of the model's\n";
    return 2;
  }
  if (!args.kernels) {
    std::cerr << "talon gradcheck: nothing to check; pass --kernels (per-kernel derivatives "
                 "against finite differences) or --steps H (whole-rollout gradients)\n";
    return 2;
  }
  Expected<Model> model = load_for_cli(args.model, args.json);
  if (!model) return 1;
  ir::LowerOptions lower;
  lower.set_templates(args.templates);
  Expected<ir::ResidualProgram> program = with_elapsed_progress(
      "talon gradcheck: lowering the model", [&] { return ir::lower_model(*model, lower); });
  for (const Diagnostic& d : program.diagnostics().items())
    if (d.severity == Severity::Error || !args.json) std::cerr << d.format() << '\n';
  if (!program) return 1;
  ir::GradcheckOptions options;
  options.max_columns = args.max_columns;
  const ir::GradcheckReport report = with_elapsed_progress(
      "talon gradcheck: checking the kernels",
      [&] { return ir::gradcheck_kernels(*program, args.samples, args.seed, options); });
  const double tolerance = args.tolerance > 0 ? args.tolerance : 1e-6;
  const bool passed = report.max_rel_error <= tolerance;
  if (args.json) {
    print_json(report, tolerance);
  } else {
    std::cout << report.format() << "max relative error " << report.max_rel_error << " over "
              << report.samples << " random states (" << report.skipped
              << " entries skipped at kinks): " << (passed ? "PASS" : "FAIL") << " (tolerance "
              << tolerance << ")\n";
  }
  return passed ? 0 : 1;
}

}  // namespace

void add_gradcheck_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "gradcheck",
      "Check derivative kernels (--kernels) or whole-rollout gradients (--steps H) against\n"
      "central finite differences.\n\nExamples:\n"
      "  talon gradcheck models/sliding_box.xml --kernels\n"
      "  talon gradcheck models/three_wheeler_scene.xml --steps 20 --dt 0.1 \\\n"
      "      --ctrl models/three_wheeler_drive.csv --wrt controls");
  auto args = std::make_shared<GradcheckArgs>();  // lives as long as the callback
  command->footer(kNoiseModel);
  add_model_args(*command, args->model);
  command->add_flag("--kernels", args->kernels,
                    "Check every derivative kernel of the lowered residual at random states");
  command->add_flag("--json", args->json, "Print one JSON object (max_rel_error, per kernel)");
  command->add_option("--samples", args->samples, "Random states to check")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  command->add_option("--seed", args->seed, "Random seed")->capture_default_str();
  command
      ->add_option("--max-columns", args->max_columns,
                   "Columns differenced per kernel and state (<= 0: all)")
      ->capture_default_str();
  command
      ->add_option("--tolerance", args->tolerance,
                   "Largest accepted relative error (default 1e-6 for --kernels, 1e-2 for "
                   "--steps)")
      ->check(positive_number());
  const char* rollout = "Whole rollouts (--steps)";
  command
      ->add_option("--steps", args->steps,
                   "Check the adjoint gradient of an H-step rollout against finite "
                   "differences of the rollout")
      ->check(positive_number())
      ->group(rollout);
  command->add_option("--wrt", args->wrt, "controls (every step's), params or initial-state")
      ->check(CLI::IsMember({"controls", "params", "initial-state"}))
      ->capture_default_str()
      ->group(rollout);
  add_time_step_option(*command, args->dt)->group(rollout);
  command->add_option("--keyframe", args->keyframe, "Start from this keyframe")->group(rollout);
  command->add_option("--ctrl", args->ctrl_file, "CSV of controls (as for talon simulate)")
      ->group(rollout);
  add_param_args(*command, args->params)->group(rollout);
  command->add_option("--epsilon", args->epsilon, "Finite-difference step (relative for params)")
      ->check(positive_number())
      ->capture_default_str()
      ->group(rollout);
  add_templates_arg(*command, args->templates);
  args->solver = gradient_solver_options();  // as `talon gradient`: a tightly converged forward
  // A difference quotient of two rollouts carries each one's stopping error over ε, and a
  // control's gradient entry is O(h): at 1e-8 the pushed box (models/push_box.xml, h = 0.01,
  // 20 steps) compared at 1.65 (cosine 0.998), at 1e-11 at 0.0018. 1e-12 is below what some
  // steps reach (the three-wheeler's crossing then splits a step; docs/cli.md).
  args->solver.convergence_tolerance = 1e-11;
  add_solver_args(*command, args->solver);
  command->callback([args, &exit_code] { exit_code = run(*args); });
}

}  // namespace talon::cli
